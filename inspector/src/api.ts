import { readSse } from '../../src/client/sse.js'
import type { StoredEvent } from '../../src/core/events.js'

/** A canonical event as the inspector API sends it: the store's `StoredEvent` (src/core/events.ts), narrowed by `type`. */
export type CanonicalEvent = StoredEvent

export type { SessionRow } from '../../src/client/inspector-api.js'

/** The answer of `POST /sessions/:id/fork`. */
export interface ForkAnswer {
  id: string
  forkedFrom: { sessionId: string; atSeq: number }
  agent: string
  lastSeq: number
  activeRunId: string | null
}

/** Calls the inspector API (and /metrics) with the page's credentials. */
export class Api {
  token = ''

  headers(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {}
  }

  async json<T>(path: string): Promise<T> {
    const res = await fetch(path, { headers: this.headers() })
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }

  /**
   * Forks session `sessionId` after its event `atSeq` (`POST /sessions/:id/fork`): a new session of the caller's
   * whose log is events 1..atSeq. Throws the server's error message (with its status and code) when refused.
   */
  async fork(sessionId: string, atSeq: number): Promise<ForkAnswer> {
    const res = await fetch(`/sessions/${encodeURIComponent(sessionId)}/fork`, {
      method: 'POST',
      headers: { ...this.headers(), 'content-type': 'application/json' },
      body: JSON.stringify({ atSeq }),
    })
    if (res.status !== 201) throw new Error(`fork refused: ${res.status} ${errorText(await res.text())}`)
    return (await res.json()) as ForkAnswer
  }

  async text(path: string): Promise<string> {
    const res = await fetch(path, { headers: this.headers() })
    if (!res.ok) throw new Error(`${path}: ${res.status}`)
    return res.text()
  }

  /** Every canonical event of a session from seq `after` on, page by page. */
  async allEvents(sessionId: string, after = 0): Promise<CanonicalEvent[]> {
    const out: CanonicalEvent[] = []
    for (;;) {
      const page = await this.json<{ events: CanonicalEvent[]; next: number; more: boolean }>(
        `/inspector/api/sessions/${encodeURIComponent(sessionId)}/events?after=${after}&limit=1000`,
      )
      out.push(...page.events)
      if (!page.more) return out
      after = page.next
    }
  }

  /**
   * Follows a session's canonical events (replayed from `after`, then live) until `signal` aborts. A session
   * that does not exist yet (the dialect creates it with the first message) is waited for; a dropped stream
   * resumes from the last seq seen.
   */
  async follow(sessionId: string, onEvent: (e: CanonicalEvent) => void, signal: AbortSignal, onProblem: (msg: string) => void): Promise<void> {
    let after = 0
    let failures = 0
    while (!signal.aborted) {
      try {
        const res = await fetch(`/inspector/api/sessions/${encodeURIComponent(sessionId)}/stream?after=${after}`, { headers: this.headers(), signal })
        if (res.status === 404) {
          await wait(Math.min(1000, 100 * ++failures), signal)
          continue
        }
        if (!res.ok || !res.body) throw new Error(`canonical stream: ${res.status} ${await res.text()}`)
        failures = 0
        for await (const m of readSse(res.body)) {
          const e = JSON.parse(m.data) as CanonicalEvent
          after = e.seq
          onEvent(e)
        }
      } catch (err) {
        if (signal.aborted) return
        onProblem(err instanceof Error ? err.message : String(err))
        await wait(Math.min(2000, 200 * ++failures), signal)
      }
    }
  }
}

/** `code: message` from a `{error: {code, message}}` body, else the body itself. */
function errorText(body: string): string {
  try {
    const e = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error
    if (e && typeof e.message === 'string') return `${String(e.code)}: ${e.message}`
  } catch {
    // not JSON: show it as it came
  }
  return body.slice(0, 300)
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t)
        resolve()
      },
      { once: true },
    )
  })
}
