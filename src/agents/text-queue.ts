/** Text chunks pushed as they arrive (a model stream, a remote agent) and read as an async iterable (`ctx.say` / `ctx.think` stream it); `end` closes it. */
export class TextQueue implements AsyncIterable<string> {
  private readonly chunks: string[] = []
  private ended = false
  private wake: (() => void) | null = null

  push(chunk: string): void {
    this.chunks.push(chunk)
    this.wake?.()
  }

  end(): void {
    this.ended = true
    this.wake?.()
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      while (this.chunks.length) yield this.chunks.shift()!
      if (this.ended) return
      await new Promise<void>((r) => (this.wake = r))
      this.wake = null
    }
  }
}
