/**
 * An async iterable of text chunks fed from outside, for `ctx.say` / `ctx.think` while a remote message
 * streams in. `push` resolves once the consumer has taken the chunk and asked for the next one — i.e. once
 * the chunk was emitted — so the bridge keeps the remote's event order exactly. If the consumer stops
 * (the run ended), every waiting `push` resolves too, so nothing hangs.
 */
export class TextChannel implements AsyncIterable<string> {
  private readonly queue: Array<{ chunk: string; taken: () => void }> = []
  private ended = false
  private wake: (() => void) | null = null
  private released: Array<() => void> = []

  /** Adds a chunk; resolves when it has been consumed (or the consumer is gone). */
  push(chunk: string): Promise<void> {
    return new Promise((taken) => {
      if (this.ended) return taken()
      this.queue.push({ chunk, taken })
      this.signal()
    })
  }

  /** No more chunks: the consumer's loop ends after the queued ones. */
  end(): void {
    this.ended = true
    this.signal()
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string> {
    try {
      for (;;) {
        // Asking for the next chunk means the previous one was emitted.
        for (const r of this.released.splice(0)) r()
        while (this.queue.length === 0 && !this.ended) await new Promise<void>((r) => (this.wake = r))
        const next = this.queue.shift()
        if (!next) return
        this.released.push(next.taken)
        yield next.chunk
      }
    } finally {
      this.ended = true
      for (const r of this.released.splice(0)) r()
      for (const q of this.queue.splice(0)) q.taken()
    }
  }

  private signal(): void {
    const w = this.wake
    this.wake = null
    w?.()
  }
}
