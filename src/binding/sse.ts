import type { ServerResponse } from 'node:http'
import type { BatchEncoder, SseRunFormat } from '../core/index.js'

export type { SseRunFormat }
import type { Session } from '../session/index.js'
import type { EndpointDeps } from './endpoint.js'

/** SSE comment sent while a stream is idle, so proxies keep it open. */
const HEARTBEAT_MS = 15_000

/** What a response's frames depend on: the dialect's view, the run it follows, where it ends, and whether it has. */
export interface SseRunView<View> {
  readonly view: View
  /** The run streamed (events of other runs are skipped; session-level ones, runId '', pass); null: the first run end or pause met closes it. */
  readonly follow: string | null
  /** The response ends after this seq (no run active when it started: the end of the log then), else Infinity. */
  readonly endAt: number
  readonly ended: boolean
  /** Precomputed share key. */
  readonly key: string
}

/**
 * The batch encoder of an SSE run: each batch becomes one string (one `res.write`), and the view records when
 * the response has ended — in the view, so every response sharing the encoding ends with it.
 */
export function sseRunEncoder<View>(f: SseRunFormat<View>): BatchEncoder<string, SseRunView<View>> {
  return {
    encode(events, rv) {
      if (rv.ended) return { frames: [], view: rv }
      let out = ''
      let ended = false
      let view = rv.view
      for (const e of events) {
        if (rv.follow !== null && e.runId !== rv.follow && e.runId !== '') continue
        if (f.step) {
          const s = f.step(e, view)
          out += s.out
          view = s.view
          if (s.end || e.seq >= rv.endAt) {
            if (!s.end) out += f.empty(view)
            ended = true
            break
          }
          continue
        }
        for (const x of f.event(e, view)) out += x
        const last = f.ending(e, view) ?? (e.seq >= rv.endAt ? f.empty(view) : null)
        if (last) {
          out += last
          ended = true
          break
        }
      }
      return { frames: out ? [out] : [], view: ended || view !== rv.view ? { ...rv, view, ended } : rv }
    },
    shareKey: (rv) => rv.key,
  }
}

/** Encoders by format, so every response of a dialect uses the same encoder object. */
const encoders = new WeakMap<object, BatchEncoder<string, SseRunView<never>>>()

function encoderOf<View>(f: SseRunFormat<View>): BatchEncoder<string, SseRunView<View>> {
  let encoder = encoders.get(f) as BatchEncoder<string, SseRunView<View>> | undefined
  if (!encoder) encoders.set(f, (encoder = sseRunEncoder(f)) as BatchEncoder<string, SseRunView<never>>)
  return encoder
}

const startOf = <View>(f: SseRunFormat<View>, view: View, follow: string | null, endAt: number): SseRunView<View> => ({
  view,
  follow,
  endAt,
  ended: false,
  key: `${f.shareKey(view)}\0${follow ?? ''}\0${endAt}`,
})

/**
 * Streams a session's events after `from` as one HTTP response: the opening, the events of run `follow`
 * (and session-level ones), and the closing when that run ends or pauses for the client. With `follow`
 * null, the first run end or pause met closes it; with no run active, the end of the log does. Writes are
 * one per committed batch, encoded once for every response of the same run, and paced by the response's
 * buffer; closing the request only detaches (the run goes on, and its events stay replayable by seq).
 */
export function streamRun<View>(
  deps: Pick<EndpointDeps, 'metrics'>,
  res: ServerResponse,
  session: Session,
  from: number,
  follow: string | null,
  f: SseRunFormat<View>,
  view: View,
): void {
  res.writeHead(200, f.headers)
  res.write(f.opening(view))
  const endAt = session.activeRunId === null ? session.lastSeq : Infinity
  if (from >= endAt) return void res.end(f.empty(view))
  const encoder = encoderOf(f)
  deps.metrics.connections.inc({ dialect: f.dialect })
  let done = false
  const finish = () => {
    if (done) return
    done = true
    clearInterval(heartbeat)
    deps.metrics.connections.dec({ dialect: f.dialect })
    sub.close()
  }
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
  heartbeat.unref()
  const start = startOf(f, view, follow, endAt)
  const sub = session.subscribe(
    {
      codecKey: `${f.dialect}:${start.key}`,
      encoder,
      view: start,
      write(frames) {
        if (res.writableEnded || res.destroyed) return false
        for (const x of frames) res.write(x)
        if ((sub.subscriber.view as SseRunView<View>).ended) {
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

/**
 * The view a format holds once run `follow` ends or pauses after `from` (null: the client went away first), for a
 * dialect that answers a run in one body (a non-streamed OpenAI completion): the same fold as `streamRun`, with
 * nothing written.
 */
export function collectRun<View>(
  res: ServerResponse,
  session: Session,
  from: number,
  follow: string | null,
  f: SseRunFormat<View>,
  view: View,
): Promise<View | null> {
  const endAt = session.activeRunId === null ? session.lastSeq : Infinity
  if (from >= endAt) return Promise.resolve(view)
  const encoder = encoderOf(f)
  const start = startOf(f, view, follow, endAt)
  return new Promise((resolve) => {
    let done = false
    const sub = session.subscribe(
      {
        codecKey: `${f.dialect}:collect:${start.key}`,
        encoder,
        view: start,
        write() {
          const rv = sub.subscriber.view as SseRunView<View>
          if (!done && rv.ended) {
            done = true
            sub.close()
            resolve(rv.view)
          }
          return !done
        },
      },
      from,
    )
    res.once('close', () => {
      if (done) return
      done = true
      sub.close()
      resolve(null)
    })
  })
}
