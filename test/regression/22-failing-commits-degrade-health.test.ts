// Issue 22, finding 2 (second half): a store commit that kept failing was retried silently forever while
// /healthz still said ok. It now reports the store degraded, with the failure, until commits succeed again;
// the retried events are delivered then, none lost.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { FlakyBackend } from '../support/delegating-backend.js'
import { startServer } from '../harness.js'
import { waitFor } from '../support/wait.js'

test('/healthz turns degraded while commits keep failing, names the error, and recovers; nothing is lost', async (t) => {
  const backend = new FlakyBackend()
  const s = await startServer({ store: backend })
  t.after(() => s.close())
  const health = async () => {
    const r = await fetch(`${s.url}/healthz`)
    return {
      status: r.status,
      body: (await r.json()) as { status: string; store: { ok: boolean; commitsFailing?: { attempts: number; error: string } } },
    }
  }
  assert.equal((await health()).status, 200)

  const c = await s.hai()
  backend.broken = true
  c.say('count 3')
  const h = await waitFor(
    async () => {
      const now = await health()
      return now.status === 503 ? now : null
    },
    { what: '/healthz to report the failing commits' },
  )
  assert.equal(h.status, 503)
  assert.equal(h.body.status, 'degraded')
  assert.equal(h.body.store.ok, false)
  assert.match(h.body.store.commitsFailing?.error ?? '', /disk I\/O error/)
  assert.equal(c.received.length, 0, 'nothing reaches a client before it is stored')

  backend.broken = false
  const frames = await c.untilCompleted(15_000)
  assert.equal(
    frames
      .filter((m) => m.type === 'assistant_message_chunk' && m.content)
      .map((m) => (m.type === 'assistant_message_chunk' ? m.content : ''))
      .join(''),
    '1 2 3 ',
  )
  assert.equal((await health()).status, 200, 'healthy again once a commit succeeds')
})
