// Seed conformance, HUMA (issue 20): the seed's client events (src/dialects/huma/fixtures/, converted from its
// examples) emitted verbatim with socket.io-client — only a toolCallId that must name a real call is
// substituted — each answered as the seed implies; every server event type produced by the demo agent and
// checked field by field against the seed's tables; bursts ordered (typing_start, message_sent with index/count,
// typing_end); and docs/dialects/huma.md's "Seed conformance" table read, so the doc cannot drift.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import type { HumaErrorEvent, HumaServerEvent } from '../../src/client/index.js'
import { humaServer, watch } from '../huma-support.js'

const FIXTURES = new URL('../../src/dialects/huma/fixtures/', import.meta.url)
const examples = (type: string): Array<Record<string, unknown>> =>
  readdirSync(new URL(`${type}/`, FIXTURES))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(`${type}/${f}`, FIXTURES), 'utf8')) as Record<string, unknown>)
const example = (type: string, name: string) => JSON.parse(readFileSync(new URL(`${type}/${name}.json`, FIXTURES), 'utf8')) as Record<string, unknown>

/** Fields of each server event, from the seed's tables: required, then optional. */
const SEED_FIELDS: Record<string, { required: readonly string[]; optional: readonly string[] }> = {
  'tool-call': { required: ['type', 'toolCallId', 'toolName', 'arguments'], optional: [] },
  'cancel-tool-call': { required: ['type', 'toolCallId'], optional: ['toolName', 'reason'] },
  messaging: { required: ['type', 'event'], optional: ['toolCallId', 'message', 'messageIndex', 'messageCount', 'reason', 'extra_args'] },
  error: { required: ['type', 'message'], optional: ['code'] },
}
/** Parlance's one addition to every server event: its place in the session log (resume with auth.afterSeq). */
const EXTENSIONS = ['seq']

function docTable(): Map<string, string> {
  const doc = readFileSync(new URL('../../docs/dialects/huma.md', import.meta.url), 'utf8')
  const section = doc.slice(doc.indexOf('## Seed conformance'))
  return new Map([...section.matchAll(/^\| `([a-z_-]+)` \| ([^|]+) \|(.*)\|$/gm)].map(([, type, dir, rest]) => [type!, `${dir!}|${rest!}`]))
}

test("HUMA seed: client events verbatim, every server event in the seed's shape and order, the doc table honoured", async (t) => {
  const s = await humaServer()
  t.after(() => s.close())
  const c = await s.huma({ confirm: false })
  const w = await watch(s, c.sessionId)
  const events: Array<HumaServerEvent | HumaErrorEvent> = []
  const seen = () => c.received.length

  // context-update: the triggering examples run the agent, answered by a burst; the non-triggering one only records.
  for (const ev of examples('context-update')) {
    const from = seen()
    const runs = w.events.filter((e) => e.type === 'run.started').length
    c.sendRaw('message', ev)
    const ctx = await w.next((e) => e.type === 'context.update' && e.description === ev.description)
    if (ev.triggering === false) {
      assert.equal(ctx.runId, '', 'a non-triggering update starts no run')
      continue
    }
    await c.nextMessaging('typing_end')
    assert.ok(
      c.received.slice(from).some((e) => e.type === 'messaging' && e.event === 'message_sent'),
      'answered with a message',
    )
    assert.equal(w.events.filter((e) => e.type === 'run.started').length, runs + 1)
  }
  // addon-tool-event: the confirmation example confirms the message just sent (its toolCallId is the streamed message's id).
  const lastSent = [...c.received].reverse().find((e) => e.type === 'messaging' && e.event === 'message_sent')!
  c.sendRaw('message', { ...example('addon-tool-event', 'confirmation'), toolCallId: lastSent.type === 'messaging' ? lastSent.toolCallId : '' })
  await w.next((e) => e.type === 'message.delivery')
  // tool-result for a call nobody waits on: triggering → an error in the seed's shape; non-triggering → recorded quietly.
  c.sendRaw('message', example('tool-result', 'success'))
  const notPending = await c.nextError()
  assert.match(notPending.message, /550e8400-e29b-41d4-a716-446655440000/)
  c.sendRaw('message', example('tool-result', 'non-triggering'))
  await w.next((e) => e.type === 'custom' && e.name === 'tool.result.unsolicited')
  // tool-result answering a real call: the seed's success shape with the call's id.
  c.contextUpdate('client info please')
  const call = await c.next('tool-call')
  c.sendRaw('message', { ...example('tool-result', 'object-result'), toolCallId: call.toolCallId, toolName: call.toolName })
  await c.nextMessaging('typing_end')
  // An approval is a tool-call too; an interrupt cancels a pending call (cancel-tool-call).
  c.contextUpdate('delete the notes')
  const approval = await c.next('tool-call')
  assert.equal(approval.toolName, 'request_approval')
  c.contextUpdate('never mind, hello')
  const cancel = await c.next('cancel-tool-call')
  assert.equal(cancel.toolCallId, approval.toolCallId)
  await c.nextMessaging('typing_end')
  // A burst of three (ctx.send), confirmed with the seed's addon-tool-event shape, index by index.
  c.contextUpdate('send a burst')
  for (let i = 0; i < 3; i++) {
    const m = await c.nextMessaging('message_sent')
    c.sendRaw('message', {
      ...example('addon-tool-event', 'confirmation'),
      toolCallId: m.toolCallId,
      data: { messageIndex: m.messageIndex, success: true },
    })
  }
  await c.nextMessaging('typing_end')
  // Bad input: the seed's error.
  c.sendRaw('message', { type: 'context-update', triggering: 'yes' })
  const invalid = await c.nextError()
  assert.equal(invalid.code, 'INVALID_EVENT')
  events.push(...c.received, ...c.errors)

  for (const e of events) {
    const want = SEED_FIELDS[e.type]
    assert.ok(want, `${e.type} is a seed server event`)
    for (const k of want.required) assert.ok(k in e, `${e.type}: ${k} (${JSON.stringify(e)})`)
    for (const k of Object.keys(e))
      assert.ok([...want.required, ...want.optional, ...EXTENSIONS].includes(k), `${e.type}: ${k} is a field of the seed (${JSON.stringify(e)})`)
  }
  // Bursts: typing_start, then message_sent 0..count-1 of one toolCallId, then typing_end of that id.
  const messaging = events.filter((e): e is Extract<HumaServerEvent, { type: 'messaging' }> => e.type === 'messaging')
  const open = new Map<string, number>()
  for (const m of messaging) {
    const id = m.toolCallId ?? ''
    if (m.event === 'typing_start') open.set(id, 0)
    else if (m.event === 'message_sent') {
      assert.ok(open.has(id), 'message_sent inside its burst')
      assert.equal(m.messageIndex, open.get(id), 'indexes in order')
      assert.ok(m.messageIndex! < m.messageCount!, 'index < count')
      open.set(id, open.get(id)! + 1)
    } else {
      assert.ok(open.has(id), 'typing_end closes an open burst')
      open.delete(id)
    }
  }
  assert.equal(open.size, 0, 'every burst ended')

  const produced = new Set(events.map((e) => e.type))
  const table = docTable()
  for (const type of ['context-update', 'tool-result', 'addon-tool-event', 'tool-call', 'cancel-tool-call', 'messaging', 'error']) {
    const row = table.get(type)
    assert.ok(row, `docs/dialects/huma.md's Seed conformance table has ${type}`)
    if (!row.startsWith('client → server') && !/not produced/.test(row))
      assert.ok(produced.has(type as (typeof events)[number]['type']), `${type} was produced`)
  }
})
