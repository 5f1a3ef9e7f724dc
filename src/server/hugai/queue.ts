/** Task priorities, most urgent first. */
export type Priority = 'critical' | 'high' | 'medium' | 'low'
const RANK: Record<Priority, number> = { critical: 0, high: 1, medium: 2, low: 3 }

/** Runs at most `concurrency` tasks at once; waiting ones start by priority, then arrival. */
export class TaskQueue {
  private running = 0
  private readonly waiting: Array<{ rank: number; n: number; start: () => void }> = []
  private n = 0

  constructor(private readonly concurrency: number) {}

  run<T>(priority: Priority, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++
        task()
          .then(resolve, reject)
          .finally(() => {
            this.running--
            this.waiting.shift()?.start()
          })
      }
      if (this.running < this.concurrency) return start()
      this.waiting.push({ rank: RANK[priority], n: this.n++, start })
      this.waiting.sort((a, b) => a.rank - b.rank || a.n - b.n)
    })
  }
}
