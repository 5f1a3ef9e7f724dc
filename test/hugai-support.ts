import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { defineAgent } from '../src/index.js'
import { HugaiClient, RpcError } from '../src/client/index.js'
import type { TestServer } from './harness.js'

/** The seed's §3.1 initialize params. */
export const INIT = seed('initialize').params

/** A seed example (src/dialects/hugai/fixtures/seed/<name>.json), parsed. */
export function seed(name: string): { jsonrpc: '2.0'; method: string; params: Record<string, unknown>; id?: number } {
  return JSON.parse(readFileSync(new URL(`../src/dialects/hugai/fixtures/seed/${name}.json`, import.meta.url), 'utf8'))
}

/** A client on `s`'s /rpc, initialized with `init` (the seed's params by default; null: not initialized). */
export async function connect(s: TestServer, init: Record<string, unknown> | null = INIT): Promise<HugaiClient> {
  const c = await HugaiClient.connect({ url: s.url })
  if (init) await c.call('initialize', { ...INIT, ...init })
  return c
}

/** POST /rpc with fetch. */
export async function post(s: TestServer, body: unknown, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/rpc`, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

/** assert.rejects predicate: an RpcError with this code (and, optionally, data.field). */
export const rpcCode = (n: number, field?: string) => (err: unknown) => {
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
    'run-tests': { description: 'Runs the test suite of a branch', execute: (args) => ({ branch: typeof args.branch === 'string' ? args.branch : 'main', passed: 12, failed: 0 }) },
    'broken-step': {
      execute: () => {
        throw new Error('runner offline')
      },
    },
  },
  run: (ctx) => ctx.say('ci agent').then(() => {}),
})

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
