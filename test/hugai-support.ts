import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { defineAgent } from '../src/index.js'
import { HugaiClient, RpcError } from '../src/client/index.js'
import type { TestServer } from './harness.js'

/** The seed's §3.1 initialize params. */
export const INIT = seed('initialize').params

/** A seed example (src/dialects/hugai/fixtures/seed/<name>.json), parsed. */
export function seed(name: string): { jsonrpc: '2.0'; method: string; params: Record<string, unknown>; id?: number } {
  return JSON.parse(readFileSync(new URL(`../src/dialects/hugai/fixtures/seed/${name}.json`, import.meta.url), 'utf8')) as ReturnType<typeof seed>
}

/** A JSON-RPC answer as the tests read it off the wire (`R`: the shape of `result`). */
export interface RpcAnswer<R = Record<string, unknown>> {
  jsonrpc: '2.0'
  id: string | number | null
  result?: R
  error?: { code: number; message: string; data?: { field?: string; [key: string]: unknown } }
}

/** An answer the test expects to succeed: `result` is there. */
export type RpcResult<R> = RpcAnswer<R> & { result: R }

/** The result of `initialize`. */
export interface InitializeResult {
  protocolVersion: string
  methods: string[]
  agents: { agentId: string }[]
  session: { peerId: string; [key: string]: unknown }
  capabilities: { serverRequests: boolean; [key: string]: unknown }
}

/** The result of `agent/request`: a built-in agent's run (output, tool results, state) or a remote agent's `result`. */
export interface TaskResult {
  taskId: string
  status: string
  output: string
  toolResults: unknown[]
  state: unknown
  result: unknown
}

/** The params of an `agent/request` the hub sends to a registered agent. */
export interface TaskRequestParams {
  taskId: string
  task: string
  context?: Record<string, unknown>
}

/** The params of a `tool/integration` request the hub sends for a client tool. */
export interface ToolRequestParams {
  taskId: string
  tool: string
  action: string
  data: unknown
}

/** One audit log entry (`audit/query` answers `{ entries }`). */
export interface AuditEntry {
  seq: number
  action: string
  actor: string
  target?: string
  timestamp: string
  details: Record<string, unknown>
}

/** The result of `audit/query`. */
export interface AuditPage {
  entries: AuditEntry[]
}

/** A client on `s`'s /rpc, initialized with `init` (the seed's params by default; null: not initialized). */
export async function connect(s: TestServer, init: Record<string, unknown> | null = INIT): Promise<HugaiClient> {
  const c = await HugaiClient.connect({ url: s.url })
  if (init) await c.call('initialize', { ...INIT, ...init })
  return c
}

/** POST /rpc with fetch; `B` is the answer's shape (a batch: `RpcAnswer[]`), `null` for an empty body. */
export async function post<B = RpcAnswer>(s: TestServer, body: unknown, contentType = 'application/json'): Promise<{ status: number; body: B }> {
  const res = await fetch(`${s.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : null) as B }
}

/** assert.rejects predicate: an RpcError with this code (and, optionally, data.field). */
export const rpcCode =
  (n: number, field?: string) =>
  (err: unknown): err is RpcError => {
    assert.ok(err instanceof RpcError, String(err))
    assert.equal(err.code, n, `${err.code}: ${err.message}`)
    if (field) assert.equal((err.data as { field?: string }).field, field)
    return true
  }

/** An agent with a server tool named like the seed's §3.7 example (`ci-pipeline` / `run-tests`). */
export const ciAgent = defineAgent({
  name: 'ci',
  description: 'CI pipeline tools',
  tools: {
    'run-tests': {
      description: 'Runs the test suite of a branch',
      execute: (args) => ({ branch: typeof args.branch === 'string' ? args.branch : 'main', passed: 12, failed: 0 }),
    },
    'broken-step': {
      execute: () => {
        throw new Error('runner offline')
      },
    },
  },
  run: (ctx) => ctx.say('ci agent').then(() => {}),
})
