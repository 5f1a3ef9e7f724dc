// The paced agent of the `paced` benchmark: an LLM-like stream. On a message "paced T MS" its run calls
// `ctx.say` once with an async iterable that yields T tokens ("1 ", "2 ", …), token i due i·MS ms after the
// run asked for the first one, each awaited on a timer of its own, as a model's tokens trickle in.
// Loadable by bench/servers/parlance.ts --agent (default export).
//
// The schedule is absolute (timer i waits until start + i·MS), not chained (MS after the previous token):
// a setTimeout fires a fraction of a millisecond late even on an idle loop, and chained over 200 tokens that
// lateness adds up to tens of ms (measured on this machine: one session, bare ws server, p99 36 ms), so a
// chained schedule would measure timer granularity instead of the server. A model's tokens do not wait for the
// server either: a late server finds the overdue tokens ready (timer of 0) and the lag shows at the client.
import { defineAgent, type RunContext } from '../../src/index.js'

/** Tokens and pacing used when the message does not say (`paced` alone). */
export const DEFAULT_TOKENS = 200
export const DEFAULT_MS = 25
/** Upper bounds on what one message may ask for: T tokens, MS ms apart. */
const MAX_TOKENS = 100_000
const MAX_MS = 10_000

/** Parses "paced T MS" (either number optional) into bounded [tokens, ms]. */
export function parsePaced(text: string): [number, number] {
  const m = /\bpaced(?:\s+(\d{1,6}))?(?:\s+(\d{1,5}))?/.exec(text)
  const t = Math.min(MAX_TOKENS, Number(m?.[1] ?? DEFAULT_TOKENS))
  const ms = Math.min(MAX_MS, Number(m?.[2] ?? DEFAULT_MS))
  return [t, ms]
}

/** One timer, as the raw baselines use per token (a model client reads a socket; it adds no abort listener per token). */
const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** T tokens, token i (1-based) due i·MS ms after the first call, one timer per token; stops at the first token after an abort. */
async function* tokens(t: number, ms: number, signal: AbortSignal): AsyncGenerator<string> {
  const start = performance.now()
  for (let i = 1; i <= t; i++) {
    await wait(Math.max(0, start + i * ms - performance.now()))
    if (signal.aborted) return
    yield `${i} `
  }
}

const pacedAgent = defineAgent({
  name: 'paced',
  description: 'Benchmark agent: "paced T MS" streams T tokens, one every MS ms, through one ctx.say.',
  async run(ctx: RunContext) {
    const [t, ms] = parsePaced(ctx.input.text)
    await ctx.say(tokens(t, ms, ctx.signal))
  },
})

export default pacedAgent
