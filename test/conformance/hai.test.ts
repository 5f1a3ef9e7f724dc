// Seed conformance, HAI (issue 20): every client example of the seed (src/dialects/hai/fixtures/, copied
// verbatim from agora-hai-protocol.md) is sent as it is over a real WebSocket and gets the answer the seed
// implies; the demo agent is driven to produce every server message type, each frame checked against its
// schema in wire.ts and the ordering rules the seed states; and every seed type is either produced or listed in
// docs/dialects/hai.md's "Seed conformance" table — the test reads the table, so the doc cannot drift.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { Value } from '@sinclair/typebox/value'
import WebSocket from 'ws'
import { OUTBOUND, OUTBOUND_TYPES, INBOUND } from '../../src/dialects/hai/wire.js'
import { startServer, type TestServer } from '../harness.js'

type Frame = Record<string, unknown> & { type: string }
const FIXTURES = new URL('../../src/dialects/hai/fixtures/', import.meta.url)
/** The seed's message types: one fixture folder each. */
const SEED_TYPES = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
const fixtures = (type: string): string[] =>
  readdirSync(new URL(`${type}/`, FIXTURES))
    .filter((f) => f.endsWith('.json'))
    .map((f) => readFileSync(new URL(`${type}/${f}`, FIXTURES), 'utf8'))

/** A raw socket on /ws that records every frame. */
async function socket(
  s: TestServer,
  query = '',
): Promise<{ ws: WebSocket; frames: Frame[]; next(pred: (f: Frame) => boolean, ms?: number): Promise<Frame> }> {
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/ws${query}`)
  const frames: Frame[] = []
  let cursor = 0
  const waiters = new Set<() => void>()
  ws.on('message', (d: Buffer) => {
    frames.push(JSON.parse(d.toString()) as Frame)
    for (const w of waiters) w()
  })
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  return {
    ws,
    frames,
    next: (pred, ms = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          while (cursor < frames.length) {
            const f = frames[cursor++]!
            if (pred(f)) {
              waiters.delete(check)
              clearTimeout(timer)
              return resolve(f)
            }
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(frames.slice(-5))}`))
        }, ms)
        waiters.add(check)
        check()
      }),
  }
}
const completed = (f: Frame) => f.type === 'status' && f.status === 'completed'

/** The "Seed conformance" table of docs/dialects/hai.md: seed type → what the doc says. */
function docTable(): Map<string, string> {
  const doc = readFileSync(new URL('../../docs/dialects/hai.md', import.meta.url), 'utf8')
  const section = doc.slice(doc.indexOf('## Seed conformance'))
  const rows = new Map<string, string>()
  for (const [, type, rest] of section.matchAll(/^\| `([a-z_]+)` \|(.*)\|$/gm)) rows.set(type!, rest!)
  return rows
}

test('HAI seed: every client example, verbatim, gets the answer the seed implies; the socket stays up', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  for (const text of fixtures('user_message')) {
    const c = await socket(s)
    t.after(() => c.ws.close())
    c.ws.send(text)
    await c.next(completed)
    const sent = JSON.parse(text) as { session_id: string }
    const chunks = c.frames.filter((f) => f.type === 'assistant_message_chunk')
    assert.ok(chunks.length >= 2, `${text}: streamed`)
    assert.ok(
      c.frames.every((f) => f.session_id === sent.session_id),
      'every frame names the session the message named',
    )
  }
  // The seed's approval response names an approval nobody waits for: a clear error, the socket stays usable.
  const c = await socket(s)
  t.after(() => c.ws.close())
  c.ws.send(fixtures('user_message')[0]!) // binds the socket to the seed's session
  await c.next(completed)
  c.ws.send(fixtures('tool_approval_response')[0]!)
  const err = await c.next((f) => f.type === 'error')
  assert.equal(err.error_code, 'not_found')
  assert.match(String(err.message), /appr_abc123/)
  // And with the id of a real request, the seed's response shape answers it.
  c.ws.send(JSON.stringify({ ...(JSON.parse(fixtures('user_message')[0]!) as object), content: 'delete the notes' }))
  const request = await c.next((f) => f.type === 'tool_approval_request')
  c.ws.send(fixtures('tool_approval_response')[0]!.replace('appr_abc123', String(request.approval_id)))
  const end = await c.next((f) => f.type === 'tool_call_end')
  assert.equal(end.tool_name, 'delete_file')
})

test("HAI seed: the demo agent produces every server type, each valid against wire.ts, in the seed's order; the doc lists the rest", async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const sessionId = `conformance-${Date.now()}`
  const c = await socket(s, `?session_id=${sessionId}`)
  t.after(() => c.ws.close())
  const say = async (content: string, answer?: (f: Frame) => string | null) => {
    const from = c.frames.length
    c.ws.send(JSON.stringify({ type: 'user_message', content, session_id: sessionId }))
    if (answer) {
      const req = await c.next((f) => f.type === 'tool_approval_request')
      const approved = answer(req)
      if (approved !== null) c.ws.send(JSON.stringify({ type: 'tool_approval_response', approval_id: req.approval_id, approved: approved === 'yes' }))
    }
    await c.next(completed, 15_000)
    return c.frames.slice(from)
  }
  const runs = [
    await say('count 3'),
    await say('weather in Paris'),
    await say('fail'),
    await say('delete it', () => 'yes'),
    await say('burst'),
    await say('plan'),
  ]
  c.ws.send('{}')
  await c.next((f) => f.type === 'error' && f.error_code === 'invalid_message')

  for (const f of c.frames)
    assert.ok(
      Value.Check(OUTBOUND[f.type as keyof typeof OUTBOUND], f),
      `${f.type} matches wire.ts: ${JSON.stringify(f)} ${JSON.stringify([...Value.Errors(OUTBOUND[f.type as keyof typeof OUTBOUND], f)].slice(0, 2))}`,
    )
  const produced = new Set(c.frames.map((f) => f.type))

  // Ordering: a message's chunks end with one is_final chunk; a tool call starts before it ends or fails; every
  // run ends with status completed, and seqs increase.
  for (const run of runs) {
    assert.ok(completed(run.at(-1)!), 'a run ends with status completed')
    const byMessage = new Map<string, boolean[]>()
    for (const f of run)
      if (f.type === 'assistant_message_chunk')
        byMessage.set(String(f.message_id), [...(byMessage.get(String(f.message_id)) ?? []), f.is_final === true])
    for (const [id, finals] of byMessage)
      assert.deepEqual(
        finals.map((x, i) => x === (i === finals.length - 1)),
        finals.map(() => true),
        `message ${id}: only the last chunk is final`,
      )
    const started = new Set<unknown>()
    for (const f of run) {
      if (f.type === 'tool_call_start') started.add(f.tool_call_id)
      if (f.type === 'tool_call_end' || f.type === 'tool_call_error') assert.ok(started.has(f.tool_call_id), `${f.type} after its tool_call_start`)
    }
  }
  const seqs = c.frames.flatMap((f) => (typeof f.seq === 'number' ? [f.seq] : []))
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!, 'seqs increase')

  const table = docTable()
  for (const type of SEED_TYPES) {
    const row = table.get(type)
    assert.ok(row, `docs/dialects/hai.md's Seed conformance table has a row for ${type}`)
    const outbound = (OUTBOUND_TYPES as readonly string[]).includes(type)
    if (outbound && !/not produced/.test(row)) assert.ok(produced.has(type), `${type}: the doc says it is produced, and the demo produced it`)
    if (!outbound) assert.ok(type in INBOUND, `${type} is a client message the codec reads`)
  }
})
