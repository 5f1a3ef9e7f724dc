import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineAgent } from '../agent-api/index.js'
import { DEFAULT_LIMITS, type StoredEvent } from '../core/index.js'
import { EventStore, createMemoryStore } from '../store/index.js'
import { SessionManager } from './session-manager.js'
import { RAW_EVENTS, type Subscriber } from './subscription.js'

const echo = defineAgent({ name: 'echo', run: async (ctx) => void (await ctx.say(`echo ${ctx.input.text}`)) })

function manager() {
  const store = new EventStore(createMemoryStore())
  return new SessionManager({ store, agents: new Map([['echo', echo]]), defaultAgent: 'echo', limits: { ...DEFAULT_LIMITS } })
}

/** Collects events until a run ends. */
function collector(): Subscriber & { ended: Promise<void>; events: StoredEvent[] } {
  let done!: () => void
  const events: StoredEvent[] = []
  return {
    codecKey: 'c',
    events,
    ended: new Promise<void>((r) => (done = r)),
    encoder: RAW_EVENTS,
    view: null,
    write(frames) {
      for (const e of frames as StoredEvent[]) {
        events.push(e)
        if (e.type === 'run.finished' || e.type === 'run.error') done()
      }
      return true
    },
  }
}

test('idle sessions are unloaded and reload from the store with history and seq intact', async (t) => {
  const m = manager()
  t.after(() => m.shutdown())
  const s = await m.open('s1', 'p')
  const c = collector()
  const sub = s.subscribe(c)
  void s.handle({ type: 'user.message', sessionId: 's1', content: 'one' })
  await c.ended
  assert.equal(m.evictIdle(Date.now() + 1), 0, 'a session with a subscriber stays')
  sub.close()
  await m.store.flush()
  assert.equal(m.evictIdle(Date.now() - 60_000), 0, 'a recently used session stays')
  assert.equal(m.evictIdle(Date.now() + 1), 1)
  assert.equal(m.loadedCount, 0)

  const again = await m.open('s1', 'p')
  assert.notEqual(again, s)
  assert.equal(again.lastSeq, s.lastSeq)
  assert.deepEqual(again.model.messages, s.model.messages)
  const c2 = collector()
  again.subscribe(c2)
  void again.handle({ type: 'user.message', sessionId: 's1', content: 'two' })
  await c2.ended
  assert.equal(c2.events[0]!.seq, s.lastSeq + 1)
})

test('a session with an active run is never unloaded', async (t) => {
  const m = manager()
  t.after(() => m.shutdown())
  const s = await m.open('s2', 'p')
  void s.handle({ type: 'user.message', sessionId: 's2', content: 'x' })
  assert.equal(m.evictIdle(Date.now() + 1), 0)
})
