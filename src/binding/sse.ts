import type { ServerResponse } from 'node:http'
import type { StoredEvent } from '../core/index.js'
import type { Session } from '../session/index.js'
import type { EndpointDeps } from './endpoint.js'

/** SSE comment sent while a stream is idle, so proxies keep it open. */
const HEARTBEAT_MS = 15_000

/** How one HTTP dialect frames a run on Server-Sent Events. */
export interface SseRunFormat {
  readonly dialect: string
  readonly headers: Readonly<Record<string, string>>
  /** Written first. */
  readonly opening: string
  /** SSE messages for one event (run ends and pauses excluded). */
  encode(e: StoredEvent): string[]
  /** The closing messages when `e` ends the run or pauses it for the client; null otherwise. */
  ending(e: StoredEvent): string | null
  /** Closing messages when there is nothing (more) to follow. */
  readonly empty: string
}

let streamNo = 0

/**
 * Streams a session's events after `from` as one HTTP response: the opening, the events of run `follow`
 * (and session-level ones), and the closing when that run ends or pauses for the client. With `follow`
 * null, the first run end or pause met closes it; with no run active, the end of the log does. Writes are
 * batched per commit and paced by the response's buffer; closing the request only detaches (the run goes
 * on, and its events stay replayable by seq).
 */
export function streamRun(deps: Pick<EndpointDeps, 'metrics'>, res: ServerResponse, session: Session, from: number, follow: string | null, f: SseRunFormat): void {
  res.writeHead(200, f.headers)
  res.write(f.opening)
  const endAt = session.activeRunId === null ? session.lastSeq : Infinity
  if (from >= endAt) return void res.end(f.empty)
  deps.metrics.connections.inc({ dialect: f.dialect })
  let done = false
  let ended = false
  const finish = () => {
    if (done) return
    done = true
    clearInterval(heartbeat)
    deps.metrics.connections.dec({ dialect: f.dialect })
    sub.close()
  }
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
  heartbeat.unref()
  const codecKey = `${f.dialect}:${++streamNo}`
  const sub = session.subscribe(
    {
      codecKey,
      view: null,
      encoder: {
        encode(events) {
          const out: string[] = []
          for (const e of events) {
            if (ended) break
            if (follow !== null && e.runId !== follow && e.runId !== '') continue
            for (const x of f.encode(e)) out.push(x)
            const last = f.ending(e) ?? (e.seq >= endAt ? f.empty : null)
            if (last) {
              out.push(last)
              ended = true
            }
          }
          return { frames: out, view: null }
        },
        shareKey: () => codecKey,
      },
      write(frames) {
        if (res.writableEnded || res.destroyed) return false
        res.write((frames as string[]).join(''))
        if (ended) {
          res.end()
          finish()
        }
        return true
      },
      backlog: () => res.writableLength,
      drop: () => res.destroy(),
    },
    from,
  )
  res.once('close', finish)
}
