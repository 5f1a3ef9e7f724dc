// An agent that throws (issue 46): every dialect's client gets its code and `the agent failed (ref …)`, never the
// thrown message; the log line `run failed` carries the message, stack and cause under that ref; the inspector API
// (the stored run error) shows both. With `exposeErrors` clients get the message as thrown.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { randomUUID } from 'node:crypto'
import { pino } from 'pino'
import { AiSdkClient, connectA2a, connectMcp, HumaClient, MyAgentClient } from '../src/client/index.js'
import { defineAgent, type StoredEvent } from '../src/index.js'
import { aguiBridgeAgent } from '../src/agents/agui/index.js'
import { a2aMessage, asTask } from './support/a2a.js'
import { unreachable } from './agui-bridge-support.js'
import { agentFor, run } from './agui-support.js'
import { connect as connectHugai } from './hugai-support.js'
import { startServer, type TestServer } from './harness.js'

const SECRET = 'the order database is on fire'

/** Throws an error with a cause, from a named function (its frame is in the stack). */
const burning = defineAgent({
  name: 'burning',
  async run(ctx) {
    await ctx.say('Looking it up… ')
    throwFromTheOrderDatabase()
  },
})

function throwFromTheOrderDatabase(): never {
  throw new Error(SECRET, { cause: new Error('ENOSPC: no space left on device') })
}

/** The masked message (`/api/chat` puts the code first, as it does for every run error). */
const MASKED = /^(?:execution_error: )?the agent failed \(ref ([0-9a-f]{10})\)$/

let s: TestServer
const lines: Array<Record<string, unknown>> = []
before(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) })
  s = await startServer({ agents: [burning], logger })
})
after(() => s.close())

/** The ref in a masked client message; asserts the message is masked and the thrown text absent. */
function refOf(message: unknown, where: string): string {
  const m = MASKED.exec(String(message))
  assert.ok(m, `${where}: the masked message, not ${JSON.stringify(message)}`)
  return m[1]!
}

/** The `run failed` log line of `ref`: the thrown message with its cause, its stack, the ref. */
function assertLogged(ref: string, where: string): void {
  const line = lines.find((l) => l.ref === ref)
  assert.ok(line, `${where}: a log line with ref ${ref}`)
  assert.equal(line.msg, 'run failed')
  assert.equal(line.outcome, 'execution_error')
  const err = line.err as { message: string; stack: string }
  assert.equal(err.message, `${SECRET}: ENOSPC: no space left on device`)
  assert.match(err.stack, /at throwFromTheOrderDatabase \(.*agent-failure\.test\.ts:\d+:\d+\)/)
  assert.match(err.stack, /caused by: Error: ENOSPC/)
}

test('HAI: an error frame with the masked message and the ref in details; the log and the inspector keep the thrown error', async () => {
  const c = await s.hai()
  c.say('where is my order?')
  const msgs = await c.untilCompleted()
  const err = msgs.find((m) => m.type === 'error')
  assert.equal(err?.type, 'error')
  assert.equal(err.error_code, 'execution_error')
  const ref = refOf(err.message, 'HAI')
  assert.equal(err.details?.ref, ref)
  assert.ok(!JSON.stringify(msgs).includes('on fire'), 'nothing of the thrown error reaches the client')
  assertLogged(ref, 'HAI')
  const page = (await (await fetch(`${s.url}/inspector/api/sessions/${c.sessionId}/events`)).json()) as { events: StoredEvent[] }
  const stored = page.events.find((e) => e.type === 'run.error') as Extract<StoredEvent, { type: 'run.error' }>
  assert.equal(stored.message, `the agent failed (ref ${ref})`)
  assert.deepEqual([stored.internal?.ref, stored.internal?.message], [ref, SECRET])
  assert.match(stored.internal?.stack ?? '', /throwFromTheOrderDatabase[\s\S]*caused by: Error: ENOSPC/)
})

test('AG-UI: RUN_ERROR with the masked message', async () => {
  const events = await run(agentFor(s.url), 'where is my order?').catch((e: unknown) => assert.fail(String(e)))
  const end = events.at(-1)!
  assert.equal(end.type, 'RUN_ERROR')
  assert.equal(end.code, 'execution_error')
  assertLogged(refOf(end.message, 'AG-UI'), 'AG-UI')
  assert.ok(!JSON.stringify(events).includes('on fire'))
})

test('HUMA: the error event with the masked message', async () => {
  const c = await HumaClient.connect({ url: s.url })
  try {
    c.contextUpdate('where is my order?')
    const err = await c.nextError()
    assert.equal(err.code, 'EXECUTION_ERROR')
    assertLogged(refOf(err.message, 'HUMA'), 'HUMA')
  } finally {
    c.close()
  }
})

test('MyAgent: error.execution with the masked message', async () => {
  const c = await MyAgentClient.connect({ url: s.url })
  try {
    await c.createSession()
    c.message('where is my order?')
    const err = await c.next('error.execution')
    assertLogged(refOf(err.content, 'MyAgent'), 'MyAgent')
  } finally {
    c.close()
  }
})

test('HugAI: the agent/request error carries the masked message', async () => {
  const c = await connectHugai(s)
  try {
    const err = await c
      .call('agent/request', { sourceAgent: 'tester', targetAgent: 'burning', task: 'where is my order?' })
      .then(() => assert.fail('the request should fail'))
      .catch((e: Error & { data?: { code?: string } }) => e)
    assert.equal(err.data?.code, 'execution_error')
    assertLogged(refOf(err.message, 'HugAI'), 'HugAI')
    assert.ok(!JSON.stringify(err).includes('on fire'))
  } finally {
    c.close()
  }
})

test('/api/chat (AI SDK): the error chunk carries the masked message', async () => {
  const c = await AiSdkClient.connect({ url: s.url })
  const chunks = []
  for await (const chunk of c.send(randomUUID(), 'where is my order?')) chunks.push(chunk)
  const err = chunks.find((x) => x.type === 'error') as { errorText: string } | undefined
  assert.ok(err, 'an error chunk')
  assertLogged(refOf(err.errorText, '/api/chat'), '/api/chat')
  assert.ok(!JSON.stringify(chunks).includes('on fire'))
})

test('MCP: the ask_ tool result is an error with the masked message', async () => {
  const c = await connectMcp({ url: s.url })
  try {
    const result = await c.callTool({ name: 'ask_burning', arguments: { message: 'where is my order?' } })
    assert.equal(result.isError, true)
    const said = (result.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? '').join('')
    assert.ok(!said.includes('on fire'), said)
    const ref = /\(ref ([0-9a-f]{10})\)/.exec(said)?.[1]
    assert.ok(ref, `a ref in ${said}`)
    assertLogged(ref, 'MCP')
  } finally {
    await c.close()
  }
})

test('A2A: the failed task status carries the masked message', async () => {
  const c = await connectA2a({ url: s.url, agent: 'burning' })
  const task = asTask(await c.sendMessage({ tenant: '', message: a2aMessage('where is my order?'), configuration: undefined, metadata: undefined }))
  const said = JSON.stringify(task.status?.message)
  assert.ok(!said.includes('on fire'), said)
  const ref = /\(ref ([0-9a-f]{10})\)/.exec(said)?.[1]
  assert.ok(ref, `a ref in ${said}`)
  assertLogged(ref, 'A2A')
})

test('a bridged agent: the remote failure keeps its code (BRIDGED_ERROR_CODES), its message (naming the remote) is masked', async (t) => {
  const dead = await unreachable()
  t.after(() => dead.close())
  const b = await startServer({ agents: [aguiBridgeAgent({ url: dead.url })] })
  t.after(() => b.close())
  const c = await b.hai()
  c.say('anyone there?')
  const err = (await c.untilCompleted()).find((m) => m.type === 'error')
  assert.ok(err?.type === 'error')
  assert.equal(err.error_code, 'unavailable')
  refOf(err.message, 'bridge')
  assert.ok(!JSON.stringify(err).includes('127.0.0.2'), 'the remote address stays on the server')
})

test('exposeErrors: clients get the thrown message (development); the log line still has the ref', async (t) => {
  const dev = await startServer({ agents: [burning], exposeErrors: true })
  t.after(() => dev.close())
  const c = await dev.hai()
  c.say('where is my order?')
  const err = (await c.untilCompleted()).find((m) => m.type === 'error') as { message: string }
  assert.equal(err.message, SECRET)
  const session = await dev.server.sessions.open(c.sessionId, 'anonymous')
  const stored = (await dev.server.sessions.store.read(session.id, 0, 100)).find((e) => e.type === 'run.error')
  assert.match(stored?.type === 'run.error' ? (stored.internal?.ref ?? '') : '', /^[0-9a-f]{10}$/)
})
