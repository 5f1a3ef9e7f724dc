// Conversation control (issue 19) over real sockets: a test agent whose runs stay active until the test says so.
import { defineAgent, type AgentDefinition, type HistoryMessage } from '../src/index.js'

/** A gated agent: what each run saw, and the gate. */
export interface Gated {
  agent: AgentDefinition
  /** Per run, in order: its `ctx.history` as `u:text` / `a:text`. */
  seen: string[][]
  /** Per run, in order: its input text (a user message, or a triggering context update's description). */
  inputs: string[]
  /** Lets the oldest waiting run finish (or the next one to arrive, if none waits yet). */
  release(): void
  /** Resolves once `n` runs have said their answer (the n-th is then at its gate, unless a permit let it through). */
  started(n: number): Promise<void>
}

/**
 * Streams `answer to <input>` in two chunks, then waits until `release()` (or until it is stopped), so a run
 * is deterministically active while the test sends more input. Records the history every run saw.
 */
export function gatedAgent(name = 'gated', onBusy?: AgentDefinition['onBusy']): Gated {
  const seen: string[][] = []
  const inputs: string[] = []
  const gates: Array<() => void> = []
  let permits = 0
  let answered = 0
  const waiting: Array<{ n: number; resolve: () => void }> = []
  const agent = defineAgent({
    name,
    ...(onBusy ? { onBusy } : {}),
    async run(ctx) {
      seen.push(ctx.history.map((m: HistoryMessage) => `${m.role[0]}:${m.content}`))
      inputs.push(ctx.input.text)
      await ctx.say(['answer to ', ctx.input.text])
      answered++
      for (const w of waiting.filter((x) => x.n <= answered)) {
        waiting.splice(waiting.indexOf(w), 1)
        w.resolve()
      }
      if (permits > 0) permits--
      else {
        let open = () => {}
        const gate = new Promise<void>((r) => gates.push((open = r)))
        await Promise.race([gate, aborted(ctx.signal)])
        // A run stopped while it waited leaves the queue of gates: release() opens the next live one.
        const i = gates.indexOf(open)
        if (i >= 0) gates.splice(i, 1)
      }
    },
  })
  return {
    agent,
    seen,
    inputs,
    release() {
      const open = gates.shift()
      if (open) open()
      else permits++
    },
    started: (n) => new Promise<void>((resolve) => (answered >= n ? resolve() : waiting.push({ n, resolve }))),
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve()
    else signal.addEventListener('abort', () => resolve(), { once: true })
  })
}

/** The user turns of a history as `gatedAgent` records it. */
export const userTurns = (history: readonly string[]): string[] => history.filter((x) => x.startsWith('u:')).map((x) => x.slice(2))
