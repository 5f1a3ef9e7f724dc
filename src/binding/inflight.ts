/**
 * Counts the inbound frames being carried out on every socket connection of a server, so a server that closes
 * answers the frames it has already read (a refusal while it drains, say) before it closes their sockets: a client
 * that sent a message and then lost its socket without an answer cannot know whether it arrived.
 */
export class InFlight {
  private n = 0
  private waiters: Array<() => void> = []

  /** A frame's work began. */
  start(): void {
    this.n++
  }

  /** A frame's work ended (answered or failed). */
  end(): void {
    if (--this.n === 0) for (const w of this.waiters.splice(0)) w()
  }

  /** Frames being carried out now. */
  get count(): number {
    return this.n
  }

  /** Resolves once no frame is being carried out, or after `timeoutMs`, whichever is first. */
  settled(timeoutMs: number): Promise<void> {
    if (this.n === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs)
      const waiters = this.waiters
      function done(): void {
        clearTimeout(timer)
        const i = waiters.indexOf(done)
        if (i >= 0) waiters.splice(i, 1)
        resolve()
      }
      waiters.push(done)
    })
  }
}
