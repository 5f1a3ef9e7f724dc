import assert from 'node:assert/strict'
import { createServer as netServer, type AddressInfo } from 'node:net'
import { test } from 'node:test'
import { AguiClient, AiSdkClient } from '../src/client/index.js'
import { startServer } from './harness.js'

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const probe = netServer().listen(0, '127.0.0.1')
  await new Promise((r) => probe.once('listening', r))
  const { port } = probe.address() as AddressInfo
  await new Promise((r) => probe.close(r))
  return port
}

test('AguiClient.connect and AiSdkClient.connect check the server, the token and the agent like the socket clients (issue 22)', async (t) => {
  const s = await startServer({ auth: { authenticate: (_req, token) => (token === 'good' ? 'alice' : null) } })
  t.after(() => s.close())
  for (const Client of [AguiClient, AiSdkClient]) {
    const client = await Client.connect({ url: s.url, token: 'good', agent: 'demo' })
    assert.ok(client instanceof Client)
    await assert.rejects(Client.connect({ url: s.url, token: 'bad' }), /refused the credentials \(401\): the token is not accepted/)
    await assert.rejects(Client.connect({ url: s.url }), /refused the credentials \(401\): the server needs a token/)
    await assert.rejects(Client.connect({ url: s.url, token: 'good', agent: 'dmeo' }), /serves no agent "dmeo" \(it serves demo\)/)
    const port = await deadPort()
    await assert.rejects(
      Client.connect({ url: `http://127.0.0.1:${port}` }),
      new RegExp(`cannot reach Parlance at http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`),
    )
  }
  // connect's client runs like a constructed one.
  const agui = await AguiClient.connect({ url: s.url, token: 'good' })
  const types: string[] = []
  for await (const { event } of agui.run({ threadId: 't-connect', runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'hello' }] }))
    types.push(event.type)
  assert.equal(types[0], 'RUN_STARTED')
  assert.equal(types.at(-1), 'RUN_FINISHED')
})
