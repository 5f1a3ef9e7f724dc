import { ParlanceError } from '../../../core/index.js'

/** Task priorities, most urgent first. */
export type Priority = 'critical' | 'high' | 'medium' | 'low'
const RANK: Record<Priority, number> = { critical: 0, high: 1, medium: 2, low: 3 }

interface Waiting {
  rank: number
  n: number
  start: () => void
}

/** Runs at most `concurrency` tasks at once; waiting ones start by priority (critical first), then arrival. */
export class TaskQueue {
  private running = 0
  private readonly waiting: Waiting[] = []
  private n = 0

  constructor(private readonly concurrency: number) {}

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waiting.length
  }

  /** Runs `task` when a slot is free. Aborting `signal` while it waits removes it (rejects with `cancelled`). */
  run<T>(priority: Priority, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', onAbort)
        this.running++
        task()
          .then(resolve, reject)
          .finally(() => {
            this.running--
            this.waiting.shift()?.start()
          })
      }
      const entry: Waiting = { rank: RANK[priority], n: this.n++, start }
      const onAbort = () => {
        const i = this.waiting.indexOf(entry)
        if (i >= 0) this.waiting.splice(i, 1)
        reject(new ParlanceError('cancelled', `task cancelled while queued: ${String(signal?.reason ?? 'cancelled')}`))
      }
      if (signal?.aborted) return onAbort()
      if (this.running < this.concurrency) return start()
      signal?.addEventListener('abort', onAbort, { once: true })
      // Insert in order: the queue stays sorted by rank, then arrival.
      const at = this.waiting.findIndex((w) => w.rank > entry.rank)
      this.waiting.splice(at < 0 ? this.waiting.length : at, 0, entry)
    })
  }
}
