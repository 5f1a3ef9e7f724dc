import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Capabilities, Dialect } from '../src/dialect-kit.js'
import { DIALECTS } from '../src/dialects/registry.js'
import { startServer } from './harness.js'

// `Capabilities` is the one description of what a dialect carries: `GET /` and the inspector API list each
// served dialect's, as the dialect declares it (the inspector page shows them: inspector-own-agent.test.ts).

const toyCaps: Capabilities = {
  transport: 'carrier pigeon',
  streaming: false,
  approvals: false,
  clientTools: false,
  state: false,
  resume: false,
  cancel: false,
}
const toy: Dialect = { name: 'toy', capabilities: toyCaps, mount: () => ({ dialect: 'toy', paths: { toy: '/toy' } }) }
const bare: Dialect = { name: 'bare', mount: () => ({ dialect: 'bare', paths: {} }) }

test("GET / and GET /inspector/api/info list each served dialect's declared capabilities, custom ones included", async (t) => {
  const s = await startServer({ dialects: [toy, bare] })
  t.after(() => s.close())
  const expected: Record<string, Capabilities> = {}
  for (const d of DIALECTS) expected[d.name] = d.capabilities!
  expected.toy = toyCaps
  const index = (await (await fetch(`${s.url}/`, { headers: { accept: 'application/json' } })).json()) as { dialects: Record<string, Capabilities> }
  assert.deepEqual(index.dialects, expected, 'every built-in dialect and the custom one; a dialect without capabilities is not listed')
  assert.equal(index.dialects.huma?.transport, 'Socket.IO')
  const info = (await (await fetch(`${s.url}/inspector/api/info`)).json()) as { agents: string[]; dialects: Record<string, Capabilities> }
  assert.deepEqual(info.dialects, expected)
  assert.ok(info.agents.length > 0)
})
