// Seed conformance, HugAI v2 (issue 20): every example of the seed (src/dialects/hugai/fixtures/seed/, verbatim)
// posted on HTTP /rpc, alone and all in one batch, gets the answer the seed implies — a §3.4 response (result or
// error object, with the request's id) for requests, nothing for notifications — and a WebSocket client gets
// the §3.5 `event` notifications the hub sends; docs/dialects/hugai.md's "Seed conformance" table (one row per
// seed section) is read. test/hugai-rpc.test.ts walks the same examples over a WebSocket, in the seed's order.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { demoAgent } from '../../src/index.js'
import { startServer } from '../harness.js'
import { ciAgent, connect, post, seed, type RpcAnswer, type TaskResult } from '../hugai-support.js'

/** The seed's examples, by section, with what each must be answered (a result's keys, an error code, or no answer). */
const EXAMPLES: Array<[string, string, { result: readonly string[] } | { error: number } | 'none']> = [
  ['3.1', 'initialize', { result: ['protocolVersion', 'methods', 'agents', 'session', 'capabilities'] }],
  // Registering over stateless HTTP: the agent could never be sent its requests, so the hub says so.
  ['3.2', 'agent-register', { error: -32010 }],
  // test-agent-2 is registered by nobody here.
  ['3.3', 'agent-request', { error: -32002 }],
  ['3.5', 'event', 'none'],
  ['3.6', 'governance-approval', { result: ['checkpoint', 'decision', 'recorded', 'matched'] }],
  // Over HTTP there is no connection to call back (`callback: "event"`): the result comes in the response.
  ['3.7', 'tool-integration', { result: ['invocationId', 'status', 'result'] }],
  ['3.8', 'audit-log', 'none'],
]

function docTable(): Map<string, string> {
  const doc = readFileSync(new URL('../../docs/dialects/hugai.md', import.meta.url), 'utf8')
  const section = doc.slice(doc.indexOf('## Seed conformance'))
  return new Map([...section.matchAll(/^\| §(3\.\d) `([a-z/]+)` \|(.*)\|$/gm)].map(([, sec, method, rest]) => [sec!, `${method!}|${rest!}`]))
}

function check(name: string, answer: RpcAnswer<Record<string, unknown>> | undefined, want: (typeof EXAMPLES)[number][2]): void {
  const id = seed(name).id
  if (want === 'none') return assert.equal(answer, undefined, `${name} is a notification: no answer`)
  assert.ok(answer, `${name} is answered`)
  assert.equal(answer.jsonrpc, '2.0')
  assert.equal(answer.id, id, `${name}: the response carries the request's id`)
  if ('error' in want) {
    assert.equal(answer.error?.code, want.error, `${name}: ${JSON.stringify(answer)}`)
    assert.equal(typeof answer.error?.message, 'string')
    assert.equal(answer.result, undefined, 'a response has a result or an error, not both')
  } else {
    for (const k of want.result) assert.ok(answer.result && k in answer.result, `${name}: result.${k} (${JSON.stringify(answer)})`)
    assert.equal(answer.error, undefined)
  }
}

test('HugAI seed: every example verbatim over HTTP, alone and batched, gets a §3.4 response or, for notifications, none', async (t) => {
  const s = await startServer({ agents: [demoAgent, ciAgent] })
  t.after(() => s.close())
  for (const [, name, want] of EXAMPLES) {
    const r = await post<RpcAnswer<Record<string, unknown>>>(s, seed(name))
    if (want === 'none') assert.equal(r.status, 204, `${name}: a notification alone gets 204 and no body`)
    else check(name, r.body, want)
  }
  // All of them in one batch: one response per request, by id, none for the notifications.
  const batch = await post<Array<RpcAnswer<Record<string, unknown>>>>(
    s,
    EXAMPLES.map(([, name]) => seed(name)),
  )
  assert.equal(batch.body.length, EXAMPLES.filter(([, , w]) => w !== 'none').length)
  for (const [, name, want] of EXAMPLES)
    check(
      name,
      batch.body.find((a) => a.id === seed(name).id),
      want,
    )
})

test('HugAI seed: §3.5 events reach a WebSocket client (task progress, checkpoints, tool results), and the doc table covers every section', async (t) => {
  const s = await startServer({ agents: [demoAgent, ciAgent] })
  t.after(() => s.close())
  const c = await connect(s)
  t.after(() => c.close())
  const task = c.call<TaskResult>('agent/request', { sourceAgent: 'demo-agent-1', targetAgent: 'demo', task: 'delete the notes' })
  const checkpoint = await c.nextNotification((n) => n.params.event === 'checkpoint')
  await c.call('governance/approval', { checkpoint: checkpoint.params.data!.checkpoint, artifact: {}, approver: 'user-123', decision: 'approved' })
  assert.match((await task).output, /^Done: deleted/)
  await c.nextNotification((n) => n.params.event === 'checkpoint-resolved')
  await c.call('tool/integration', seed('tool-integration').params)
  await c.nextNotification((n) => n.params.event === 'tool-result')
  // (The client keeps only messages without an id as notifications.)
  for (const n of c.notifications) {
    assert.equal(n.method, 'event', 'server notifications are §3.5 events')
    assert.equal(typeof n.params.event, 'string')
  }
  const table = docTable()
  for (const sec of ['3.1', '3.2', '3.3', '3.4', '3.5', '3.6', '3.7', '3.8'])
    assert.ok(table.has(sec), `docs/dialects/hugai.md's Seed conformance table has §${sec}`)
})
