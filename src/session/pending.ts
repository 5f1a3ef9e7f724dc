/**
 * Requests waiting for an answer from outside (approvals, client tool
 * results), each with its own timeout. On timeout the waiter receives the
 * value `onTimeout` gives; `rejectAll` ends every wait with an error.
 * `observe`, if given, hears every id start (true) and stop (false) waiting.
 */
export class PendingRequests<T, M = undefined> {
  private readonly waits = new Map<string, { resolve: (v: T) => void; reject: (e: unknown) => void; timer: NodeJS.Timeout; meta: M }>()

  constructor(private readonly observe?: (id: string, waiting: boolean) => void) {}

  wait(id: string, timeoutMs: number, meta: M, onTimeout: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waits.delete(id)
        this.observe?.(id, false)
        resolve(onTimeout())
      }, timeoutMs)
      timer.unref()
      this.waits.set(id, { resolve, reject, timer, meta })
      this.observe?.(id, true)
    })
  }

  /** Answers a wait; false when nothing waits under that id. */
  resolve(id: string, value: T): boolean {
    const w = this.waits.get(id)
    if (!w) return false
    this.waits.delete(id)
    clearTimeout(w.timer)
    this.observe?.(id, false)
    w.resolve(value)
    return true
  }

  has(id: string): boolean {
    return this.waits.has(id)
  }

  /** The ids still waiting with their metadata. */
  entries(): Array<[string, M]> {
    return [...this.waits].map(([id, w]) => [id, w.meta])
  }

  /** Ends every wait with `err`. */
  rejectAll(err: unknown): void {
    const waits = [...this.waits]
    this.waits.clear()
    for (const [id, w] of waits) {
      clearTimeout(w.timer)
      this.observe?.(id, false)
      w.reject(err)
    }
  }
}
