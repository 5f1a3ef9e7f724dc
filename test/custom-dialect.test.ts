// Adding a dialect without editing Parlance (issue 21): a toy protocol, "Toy", defined entirely in this file
// with the public `parlance/dialect` kit and served through `createServer({ dialects })` next to the built-in
// ones. Client → server: `{"op":"say","session":ID,"text":…}` or `{"op":"stop","session":ID}`. Server →
// client: `{"ev":"text","seq":N,"text":…}` per streamed chunk, `{"ev":"done","seq":N}` when the run ends,
// `{"ev":"error","code":…,"message":…}`.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import WebSocket from 'ws'
import { ERROR_CODES, ParlanceError, type Command, type ErrorCode, type StoredEvent } from '../src/index.js'
import {
  asBuffers,
  attach,
  parseJson,
  resumePoint,
  serveSocket,
  type Codec,
  type Dialect,
  type Session,
  type Subscription,
} from '../src/dialect-kit.js'
import { textOf } from '../src/client/index.js'
import { startServer } from './harness.js'

// --- the dialect: codec (pure), binding (routes and the runner) --------------------------------------------

const TOY_ERRORS = Object.fromEntries(ERROR_CODES.map((c) => [c, c.toUpperCase()])) as Record<ErrorCode, string>

const toy: Codec<Command, string, null> = {
  name: 'toy',
  errors: TOY_ERRORS,
  decode(frame) {
    const parsed = parseJson(frame)
    if (!parsed.ok) return parsed
    const m = parsed.value as { op?: unknown; session?: unknown; text?: unknown }
    if (typeof m.session !== 'string' || m.session.length === 0)
      return { ok: false, error: new ParlanceError('invalid_message', '"session" must be a non-empty string') }
    if (m.op === 'say' && typeof m.text === 'string') return { ok: true, value: { type: 'user.message', sessionId: m.session, content: m.text } }
    if (m.op === 'stop') return { ok: true, value: { type: 'run.cancel', sessionId: m.session } }
    return { ok: false, error: new ParlanceError('unknown_type', 'op must be "say" (with text) or "stop"') }
  },
  encode(events: readonly StoredEvent[], view: null) {
    const frames: string[] = []
    for (const e of events) {
      if (e.type === 'text.delta') frames.push(JSON.stringify({ ev: 'text', seq: e.seq, text: e.delta }))
      else if (e.type === 'run.finished' || e.type === 'run.error') frames.push(JSON.stringify({ ev: 'done', seq: e.seq }))
    }
    return { frames, view }
  },
  shareKey: () => 'toy', // no frame depends on the connection: one encoding per batch for every Toy socket
  encodeError: (e) => JSON.stringify({ ev: 'error', code: TOY_ERRORS[e.code], message: e.message }),
}

const TOY_WIRE = asBuffers(toy) // each shared batch converted to bytes once

const toyDialect: Dialect = {
  name: 'toy',
  mount: (deps) => ({
    dialect: 'toy',
    paths: { toy: '/toy' },
    upgrade(req, socket, head, url) {
      if (url.pathname !== '/toy') return false
      deps.ws.upgrade(req, socket, head, deps.principal(req), (conn) => {
        let bound: { session: Session; sub: Subscription } | null = null
        const run = serveSocket(conn, deps, {
          dialect: 'toy',
          decode: (text) => toy.decode(text, deps.limits),
          async handle(cmd) {
            const session = await deps.sessions.open(cmd.sessionId!, conn.principal, { create: cmd.type === 'user.message' })
            if (bound?.session !== session) {
              bound?.sub.close()
              bound = { session, sub: attach(conn, session, resumePoint(session), { encoder: TOY_WIRE, view: null, label: `toy:${conn.id}` }) }
            }
            await session.handle(cmd)
          },
          error: (e) => toy.encodeError(e, null),
        })
        conn.onframe = run.frame
        conn.onclose = () => {
          run.closed()
          bound?.sub.close()
        }
      })
      return true
    },
  }),
}

// --- the tests ----------------------------------------------------------------------------------------------

/** A raw `ws` client of the Toy dialect that collects parsed frames. */
async function toyClient(url: string) {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/toy`)
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  const frames: Array<Record<string, unknown>> = []
  const waiters: Array<() => void> = []
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    assert.equal(isBinary, false, 'Toy frames are text frames')
    frames.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>)
    for (const w of waiters.splice(0)) w()
  })
  const until = async (pred: (f: Record<string, unknown>) => boolean) => {
    while (!frames.some(pred)) await new Promise<void>((r) => waiters.push(r))
  }
  return { ws, frames, until, send: (m: object) => ws.send(JSON.stringify(m)) }
}

test('a dialect added through createServer({ dialects }) streams the demo agent and shares the session with HAI', async (t) => {
  const s = await startServer({ dialects: [toyDialect] })
  t.after(() => s.close())
  const index = (await (await fetch(`${s.url}/`, { headers: { accept: 'application/json' } })).json()) as { endpoints: Record<string, string> }
  assert.equal(index.endpoints.toy, '/toy', 'GET / lists the new endpoint')

  const sessionId = `toy-${Date.now()}`
  const hai = await s.hai({ sessionId, resumeAfter: -1 })
  const a = await toyClient(s.url)
  const b = await toyClient(s.url)
  t.after(() => {
    a.ws.close()
    b.ws.close()
  })
  b.send({ op: 'say', session: sessionId, text: 'warm up' }) // binds b to the session
  await b.until((f) => f.ev === 'done')
  const warmedUp = b.frames.find((f) => f.ev === 'done')!.seq as number
  await hai.untilCompleted()
  a.send({ op: 'say', session: sessionId, text: 'count 5' })
  await a.until((f) => f.ev === 'done')
  const runEnd = a.frames.find((f) => f.ev === 'done')!.seq as number
  assert.ok(runEnd > warmedUp)
  const texts = (c: typeof a) => c.frames.filter((f) => f.ev === 'text' && (f.seq as number) > warmedUp).map((f) => f.text)
  assert.deepEqual(texts(a), ['1 ', '2 ', '3 ', '4 ', '5 '])
  await b.until((f) => f.ev === 'done' && f.seq === runEnd)
  assert.deepEqual(texts(b), texts(a), 'a second Toy socket of the session gets the same stream')
  const haiRun = await hai.untilCompleted()
  assert.equal(textOf(haiRun), '1 2 3 4 5 ', 'a HAI client of the same session sees the run the Toy client started')
})

test('bad input to a custom dialect is answered in its own error shape and the socket stays up', async (t) => {
  const s = await startServer({ dialects: [toyDialect] })
  t.after(() => s.close())
  const c = await toyClient(s.url)
  t.after(() => c.ws.close())
  c.ws.send('{not json')
  c.send({ op: 'dance', session: 'x' })
  await c.until((f) => f.code === 'UNKNOWN_TYPE')
  assert.deepEqual(
    c.frames.map((f) => [f.ev, f.code]),
    [
      ['error', 'INVALID_JSON'],
      ['error', 'UNKNOWN_TYPE'],
    ],
  )
  c.send({ op: 'say', session: `toy-ok-${Date.now()}`, text: 'count 2' })
  await c.until((f) => f.ev === 'done')
  assert.deepEqual(
    c.frames.filter((f) => f.ev === 'text').map((f) => f.text),
    ['1 ', '2 '],
  )
})

test('a dialect named like a built-in replaces it; two with one name are refused', async (t) => {
  const s = await startServer({ dialects: [{ name: 'hai', mount: () => ({ dialect: 'hai', paths: { hai: '/my-hai' } }) }] })
  t.after(() => s.close())
  const index = (await (await fetch(`${s.url}/`, { headers: { accept: 'application/json' } })).json()) as { endpoints: Record<string, string> }
  assert.equal(index.endpoints.hai, '/my-hai')
  assert.equal((await fetch(`${s.url}/ws`)).status, 404, 'the built-in HAI mount is gone')
  await assert.rejects(() => startServer({ dialects: [toyDialect, toyDialect] }), /two dialects are named "toy"/)
})
