// The MCP TypeScript SDK's clients in Node, 1.x (@modelcontextprotocol/sdk) and 2.x (@modelcontextprotocol/client),
// over streamable HTTP: the protocol version negotiated, tools listed and called, progress while a run streams,
// an approval asked through elicitation (accepted and declined), and cancel (AbortSignal → notifications/cancelled).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client'
import { CLIENTS } from '../lib/clients.mjs'
import { startParlance } from '../lib/parlance.mjs'

let parlance
before(async () => (parlance = await startParlance()))
after(() => parlance?.close())

const SDKS = [
  {
    client: CLIENTS.mcpSdk1,
    // 1.x: handlers are registered by the request's zod schema.
    connect: async (elicit) => {
      const c = new Client1({ name: 'parlance-compat', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} })
      if (elicit) c.setRequestHandler(ElicitRequestSchema, (req) => elicit(req.params.message))
      await c.connect(new Transport1(new URL(`${parlance.url}/mcp`)))
      return { c, version: c.transport?.protocolVersion }
    },
    call: (c, params, options) => c.callTool(params, undefined, options),
  },
  {
    client: CLIENTS.mcpClient2,
    // 2.x: handlers are registered by method name.
    connect: async (elicit) => {
      const c = new Client2({ name: 'parlance-compat', version: '2.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} })
      if (elicit) c.setRequestHandler('elicitation/create', (req) => elicit(req.params.message))
      await c.connect(new Transport2(new URL(`${parlance.url}/mcp`)))
      return { c, version: c.getNegotiatedProtocolVersion() }
    },
    call: (c, params, options) => c.callTool(params, options),
  },
]

const textOf = (r) => r.content.map((c) => c.text ?? '').join('')

for (const sdk of SDKS) {
  describe(sdk.client.title, { concurrency: true }, () => {
    test('connects and negotiates a protocol version; tools: ask_demo', async (t) => {
      const { c, version } = await sdk.connect()
      t.after(() => c.close())
      assert.match(String(version), /^\d{4}-\d{2}-\d{2}$/, `negotiated ${version}`)
      t.diagnostic(`protocol version ${version}`)
      assert.deepEqual(
        (await c.listTools()).tools.map((x) => x.name),
        ['ask_demo'],
      )
    })

    test('a tool call streams progress and answers with the text', async (t) => {
      const { c } = await sdk.connect()
      t.after(() => c.close())
      const progress = []
      const r = await sdk.call(c, { name: 'ask_demo', arguments: { message: 'count 5' } }, { onprogress: (p) => progress.push(p) })
      assert.equal(textOf(r), '1 2 3 4 5')
      assert.equal(r.structuredContent.status, 'completed')
      assert.ok(progress.length >= 5, `progress notifications: ${progress.length}`)
    })

    for (const approve of [true, false]) {
      test(`an approval through elicitation, ${approve ? 'accepted: the tool runs' : 'declined: it does not'}`, async (t) => {
        const asked = []
        const { c } = await sdk.connect((message) => {
          asked.push(message)
          return approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' }
        })
        t.after(() => c.close())
        const r = await sdk.call(c, { name: 'ask_demo', arguments: { message: 'delete my notes' } })
        assert.equal(asked.length, 1)
        assert.match(asked[0], /delete_file/)
        if (approve) assert.equal(textOf(r), 'Done: deleted notes/demo.txt.')
        else assert.match(textOf(r), /^Not approved, so notes\/demo\.txt was not deleted\./)
      })
    }

    test('cancel: aborting the call stops the run; the session goes on', async (t) => {
      const { c } = await sdk.connect()
      t.after(() => c.close())
      const sessionId = `mcp-cancel-${randomUUID()}`
      const abort = new AbortController()
      let started
      const first = new Promise((resolve) => (started = resolve))
      // "slow" streams 1 to 50, one number every 100 ms: abort after the first progress notification.
      const call = sdk.call(
        c,
        { name: 'ask_demo', arguments: { message: 'slow please', sessionId } },
        { signal: abort.signal, onprogress: () => started() },
      )
      await first
      abort.abort('enough')
      await assert.rejects(call)
      const session = await parlance.server.sessions.open(sessionId, 'anonymous')
      for (let i = 0; i < 200 && session.activeRunId; i++) await new Promise((r) => setTimeout(r, 50))
      assert.ok(!session.activeRunId, 'the run ended')
      const said = session.model.messages
        .filter((m) => m.role === 'assistant')
        .map((m) => String(m.content))
        .join('')
      assert.ok(!said.includes('50'), `the run was stopped before its end: ${said}`)
      assert.equal(textOf(await sdk.call(c, { name: 'ask_demo', arguments: { message: 'count 2', sessionId } })), '1 2')
    })
  })
}
