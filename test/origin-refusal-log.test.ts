// A refused browser origin is logged (issue 46): the page sees only "Failed to fetch", so the server says which
// origin it refused and the --allow-origin that allows it — once per origin, whatever the path or transport.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import WebSocket from 'ws'
import { pino } from 'pino'
import { startServer } from './harness.js'

test('each refused origin is logged once (warn), with the origin and the --allow-origin to add', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) })
  const s = await startServer({ logger })
  t.after(() => s.close())
  const refused = () => lines.filter((l) => l.refused !== undefined)
  const post = (origin: string) =>
    fetch(`${s.url}/api/chat`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' }).then((r) => r.status)
  assert.equal(await post('https://app.example.com'), 403)
  assert.equal(await post('https://app.example.com'), 403)
  // The same origin over a WebSocket upgrade: refused too, not logged again.
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/ws`, { origin: 'https://app.example.com' })
  const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)))
  assert.equal(status, 403)
  assert.equal(refused().length, 1)
  const [line] = refused()
  assert.equal(line!.level, 40, 'warn')
  assert.equal(line!.refused, 'origin https://app.example.com')
  assert.match(String(line!.msg), /origin https:\/\/app\.example\.com is not allowed .*--allow-origin https:\/\/app\.example\.com/)
  assert.equal(await post('https://other.example.com'), 403)
  assert.deepEqual(
    refused().map((l) => l.refused),
    ['origin https://app.example.com', 'origin https://other.example.com'],
  )
  // An allowed (loopback) page is not a refusal.
  assert.notEqual(await post('http://localhost:5173'), 403)
  assert.equal(refused().length, 2)
})
