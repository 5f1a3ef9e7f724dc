// Runs configurations side by side: every server is started first, then each repetition runs one load
// generator per configuration in turn, so slow drifts of a shared machine hit every configuration alike.
import { runLoad, startServer, type ChildOptions, type ServerProcess } from './proc.js'
import type { BenchContext } from './result.js'

/** One configuration: its server process and the load generator that measures one sample against it. */
export interface Config<T> {
  name: string
  server: { script: string; args: string[]; options?: ChildOptions }
  load(port: number): { script: string; args: string[]; timeoutMs?: number }
  /** The samples one load generator run yields. */
  samples(out: T): number[]
}

export async function interleaved<T>(ctx: BenchContext, configs: ReadonlyArray<Config<T>>): Promise<Array<[string, number[]]>> {
  const servers: ServerProcess[] = []
  try {
    for (const c of configs) servers.push(await startServer(c.server.script, c.server.args, c.server.options))
    const samples = configs.map(() => [] as number[])
    for (let r = 0; r < ctx.reps; r++) {
      for (const [i, c] of configs.entries()) {
        const l = c.load(servers[i]!.port)
        const out = await runLoad<T>(l.script, l.args, { timeoutMs: l.timeoutMs ?? 120_000 })
        samples[i]!.push(...c.samples(out))
        ctx.log(
          `    rep ${r + 1}/${ctx.reps} ${c.name}: ${c
            .samples(out)
            .map((x) => Math.round(x).toLocaleString('en-US'))
            .join(', ')}`,
        )
      }
    }
    return configs.map((c, i) => [c.name, samples[i]!])
  } finally {
    await Promise.all(servers.map((s) => s.close()))
  }
}
