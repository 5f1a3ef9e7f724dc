// The page the browser-origins test loads from another origin than Parlance's: every dialect's browser client,
// callable from the test as `window.scenario(name, ...args)`. A scenario resolves `{ ok: true, value }` or
// `{ ok: false, error }` (never throws into the test), bounded in time.
import { a2a, agui, aisdk, aisdkApproval, aisdkResumeFinish, aisdkResumeStart, mcp } from './http.js'
import { hai, huma, hugai, myagent } from './sockets.js'
import { within } from './util.js'

const scenarios = { hai, myagent, hugai, huma, aisdk, aisdkApproval, aisdkResumeStart, aisdkResumeFinish, agui, mcp, a2a } as const

export type ScenarioName = keyof typeof scenarios
export type ScenarioResult = { ok: true; value: unknown } | { ok: false; error: string }

async function scenario(name: ScenarioName, ...args: unknown[]): Promise<ScenarioResult> {
  const fn = scenarios[name] as (...a: unknown[]) => Promise<unknown>
  try {
    return { ok: true, value: await within(fn(...args), 45_000, `end of ${name}`) }
  } catch (err) {
    return { ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }
  }
}

const page = globalThis as unknown as { scenario: typeof scenario; document: { body: { dataset: Record<string, string> } } }
page.scenario = scenario
page.document.body.dataset.ready = 'true'
