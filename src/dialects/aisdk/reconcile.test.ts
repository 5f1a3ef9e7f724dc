import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Command, HistoryMessage } from '../../core/index.js'
import { reconcile, type StoredChat } from './reconcile.js'
import type { ChatRequest } from './wire.js'

const STORED: HistoryMessage[] = [
  { id: 'u1', role: 'user', content: 'one' },
  { id: 't1', role: 'assistant', content: 'answer one' },
  { id: 'u2', role: 'user', content: 'two' },
  { id: 't2', role: 'assistant', content: 'answer two' },
]
const session = (messages = STORED): StoredChat => ({ id: 'chat', model: { messages }, waitsFor: () => false })
type Msg = ChatRequest['messages'][number]
const user = (id: string, text: string): Msg => ({ id, role: 'user', parts: [{ type: 'text', text } as Msg['parts'][number]] })
// The UI stream's assistant ids never match the stored ones.
const assistant = (id: string): Msg => ({ id, role: 'assistant', parts: [] })
const body = (messages: Msg[], extra: Partial<ChatRequest> = {}): ChatRequest => ({ id: 'chat', messages, trigger: 'submit-message', ...extra })
const only = (cs: Command[]) => {
  assert.equal(cs.length, 1)
  return cs[0]!
}

test('a new last user message is sent with the body onBusy; one already stored as is is not', () => {
  const r = reconcile(
    session(),
    body([user('u1', 'one'), assistant('msg_r1'), user('u2', 'two'), assistant('msg_r2'), user('u3', 'three')], { onBusy: 'enqueue' }),
    undefined,
  )
  assert.deepEqual(only(r.commands), { type: 'user.message', sessionId: 'chat', content: 'three', messageId: 'u3', onBusy: 'enqueue' })
  assert.equal(r.forks, false)
  assert.deepEqual(reconcile(session(), body([user('u3', 'three')]), undefined).forks, false, 'only the new message: no divergence')
  assert.deepEqual(reconcile(session(), body([user('u1', 'one'), assistant('m'), user('u2', 'two')]), undefined).commands, [])
})

test('an earlier message edited (same id, new text, list cut there) forks and cuts back to the message before it', () => {
  const r = reconcile(session(), body([user('u1', 'one'), assistant('msg_r1'), user('u2', 'TWO')], { messageId: 'u2' }), 'demo')
  assert.equal(r.forks, true)
  assert.deepEqual(only(r.commands), {
    type: 'user.message',
    sessionId: 'chat',
    content: 'TWO',
    messageId: 'u2',
    agent: 'demo',
    rewind: { toMessageId: 't1' },
  })
  assert.deepEqual((only(reconcile(session(), body([user('u1', 'ONE')]), undefined).commands) as { rewind?: unknown }).rewind, { toMessageId: null })
})

test('regenerate-message regenerates the last user message of the request; an unknown one is sent as new', () => {
  const r = reconcile(
    session(),
    body([user('u1', 'one'), assistant('msg_r1'), user('u2', 'two')], { trigger: 'regenerate-message', messageId: 'msg_r2', onBusy: 'rollback' }),
    undefined,
  )
  assert.deepEqual(only(r.commands), { type: 'run.regenerate', sessionId: 'chat', messageId: 'u2', onBusy: 'rollback' })
  const fresh = reconcile(session([]), body([user('n1', 'hello')], { trigger: 'regenerate-message' }), undefined)
  assert.equal(only(fresh.commands).type, 'user.message')
})
