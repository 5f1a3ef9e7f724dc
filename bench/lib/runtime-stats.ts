import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'

/** What a measured stretch of a benchmark cost the runtime: garbage collections and event-loop delay. */
export interface RuntimeStats {
  gc: { count: number; ms: number }
  loopDelayMs: { p50: number; p99: number; max: number }
}

const r1 = (x: number) => Math.round(x * 10) / 10

/**
 * Counts garbage collections from now on, and samples event-loop delay between `start()` and `stop()` (1 ms
 * resolution). `stop()` returns both.
 */
export function watchRuntime(): { start(): void; stop(): RuntimeStats } {
  let count = 0
  let ms = 0
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      count++
      ms += e.duration
    }
  })
  gc.observe({ entryTypes: ['gc'] })
  const loop = monitorEventLoopDelay({ resolution: 1 })
  return {
    start: () => loop.enable(),
    stop() {
      loop.disable()
      gc.disconnect()
      return {
        gc: { count, ms: Math.round(ms) },
        loopDelayMs: { p50: r1(loop.percentile(50) / 1e6), p99: r1(loop.percentile(99) / 1e6), max: r1(loop.max / 1e6) },
      }
    },
  }
}
