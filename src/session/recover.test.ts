import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventBody, StoredEvent } from '../core/index.js'
import { closingEvents } from './recover.js'

function log(bodies: Array<[string, EventBody]>): StoredEvent[] {
  return bodies.map(([runId, b], i) => ({ ...b, sessionId: 's', runId, seq: i + 1, ts: 0 }))
}

test('closingEvents closes exactly what the crashed run left open, in order', async () => {
  const events = log([
    ['r0', { type: 'run.started', agent: 'a' }],
    ['r0', { type: 'text.start', messageId: 'old' }],
    ['r1', { type: 'run.started', agent: 'a' }],
    ['r1', { type: 'reasoning.start', messageId: 'think' }],
    ['r1', { type: 'reasoning.end', messageId: 'think' }],
    ['r1', { type: 'tool.call', toolCallId: 'done', toolName: 't', args: {}, target: 'client' }],
    ['r1', { type: 'tool.result', toolCallId: 'done', toolName: 't', result: 1 }],
    ['r1', { type: 'approval.requested', approvalId: 'ap', toolName: 'x', toolDescription: '', args: {}, reasoning: '', risk: 'low', timeoutMs: 1 }],
    ['r1', { type: 'tool.call', toolCallId: 'open', toolName: 'c', args: {}, target: 'client' }],
    ['r1', { type: 'tool.call', toolCallId: 'srv', toolName: 's', args: {}, target: 'server' }],
    ['r1', { type: 'text.start', messageId: 'm1' }],
    ['r1', { type: 'text.delta', messageId: 'm1', delta: 'x' }],
  ])
  const read = async (_s: string, after: number, limit: number) => events.slice(after, after + limit)
  for (const pageSize of [1, 3, 1000]) {
    assert.deepEqual(await closingEvents(read, 's', 'r1', events.length, pageSize), [
      { type: 'approval.resolved', approvalId: 'ap', approved: false, by: 'cancel' },
      { type: 'tool.cancel', toolCallId: 'open', toolName: 'c', reason: 'the server stopped' },
      { type: 'text.end', messageId: 'm1', cut: true },
    ])
  }
})
