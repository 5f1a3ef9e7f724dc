import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventBody, StoredEvent } from '../../core/index.js'
import { encode } from './encode.js'

const at = (body: EventBody): StoredEvent => ({ ...body, sessionId: 'chat-1', runId: 'run_1', seq: 7, ts: 1_700_000_000_000 })
const chunks = (body: EventBody) => encode(at(body)).map((f) => JSON.parse(/^data: (.*)\n\n$/s.exec(f)![1]!) as Record<string, unknown>)

test('message.queued and history.rewound are transient data-message-queued / data-history-rewound parts carrying the event fields', () => {
  assert.deepEqual(chunks({ type: 'message.queued', messageId: 'q1', content: 'later' }), [
    { type: 'data-message-queued', data: { messageId: 'q1', content: 'later' }, transient: true },
  ])
  assert.deepEqual(chunks({ type: 'history.rewound', toMessageId: 'a1', reason: 'edit', branch: 'fork_1' }), [
    { type: 'data-history-rewound', data: { toMessageId: 'a1', reason: 'edit', branch: 'fork_1' }, transient: true },
  ])
  assert.deepEqual(chunks({ type: 'history.rewound', toMessageId: null, reason: 'rollback', droppedRunId: 'run_0' }), [
    { type: 'data-history-rewound', data: { toMessageId: null, reason: 'rollback', droppedRunId: 'run_0' }, transient: true },
  ])
})
