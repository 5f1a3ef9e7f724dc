import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineAgent } from '../agent-api/index.js'
import { DEFAULT_LIMITS, ParlanceError, type StoredEvent } from '../core/index.js'
import { createMemoryStore, EventStore } from '../store/index.js'
import { SessionManager } from './session-manager.js'
import { RAW_EVENTS, type Subscriber } from './subscription.js'

test('maxStateBytes: a setState or a patch past it throws frame_too_large to the agent; nothing is stored, the state is as before', async () => {
  const outcomes: string[] = []
  const refused = (err: unknown) => {
    assert.ok(err instanceof ParlanceError && err.code === 'frame_too_large', String(err))
    assert.match(err.message, /limits\.maxStateBytes/)
    outcomes.push(`refused at ${String(err.details?.stateBytes)}`)
    return true
  }
  const agent = defineAgent({
    name: 'big',
    async run(ctx) {
      await ctx.setState({ items: { a: 'x'.repeat(400) } })
      await assert.rejects(ctx.setState({ items: { a: 'x'.repeat(2000) } }), refused)
      await assert.rejects(ctx.setState([{ op: 'add', path: '/items/b', value: 'y'.repeat(700) }]), refused)
      // Within the limit once something is taken out in the same patch.
      await ctx.setState([
        { op: 'remove', path: '/items/a' },
        { op: 'add', path: '/items/b', value: 'y'.repeat(700) },
      ])
      outcomes.push('patched')
    },
  })
  const store = new EventStore(createMemoryStore())
  const sessions = new SessionManager({
    store,
    agents: new Map([[agent.name, agent]]),
    defaultAgent: agent.name,
    limits: { ...DEFAULT_LIMITS, maxStateBytes: 1000 },
  })
  const session = await sessions.open('limit', 'alice')
  const events: StoredEvent[] = []
  await new Promise<void>((resolve) => {
    const sub: Subscriber<StoredEvent, null> = {
      codecKey: 'test',
      encoder: RAW_EVENTS,
      view: null,
      write(frames) {
        events.push(...frames)
        if (frames.some((e) => e.type === 'run.finished' || e.type === 'run.error')) resolve()
        return true
      },
    }
    session.subscribe(sub)
    void session.handle({ type: 'user.message', sessionId: 'limit', content: 'go' })
  })
  assert.deepEqual(
    outcomes.slice(0, 2).map((o) => o.startsWith('refused at ')),
    [true, true],
  )
  assert.equal(outcomes[2], 'patched')
  assert.deepEqual(
    events.filter((e) => e.type.startsWith('state.')).map((e) => e.type),
    ['state.snapshot', 'state.delta'],
    'only the accepted changes are in the log',
  )
  assert.deepEqual(session.model.state, { items: { b: 'y'.repeat(700) } })
  assert.equal(events.at(-1)?.type, 'run.finished')
})
