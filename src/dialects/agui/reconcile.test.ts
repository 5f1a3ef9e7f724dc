import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Command, HistoryMessage } from '../../core/index.js'
import { reconcile, type StoredConversation } from './reconcile.js'
import type { AguiMessage, AguiRunInput } from './wire.js'

const u = (id: string, content: string): HistoryMessage => ({ id, role: 'user', content })
const a = (id: string, content: string): HistoryMessage => ({ id, role: 'assistant', content })
const STORED = [u('u1', 'one'), a('a1', 'answer one'), u('u2', 'two'), a('a2', 'answer two')]

function session(messages: HistoryMessage[], activeRunId: string | null = null): StoredConversation {
  return { id: 't', model: { messages, state: {} }, activeRunId, waitsFor: () => false }
}
const input = (messages: AguiMessage[], extra: Partial<AguiRunInput> = {}): AguiRunInput => ({ threadId: 't', runId: 'r', messages, ...extra })
/** Each command as its type, with the fields that matter here. */
const brief = (cs: Command[]) =>
  cs.map((c) =>
    c.type === 'user.message'
      ? {
          type: c.type,
          messageId: c.messageId,
          content: c.content,
          ...(c.rewind ? { rewind: c.rewind } : {}),
          ...(c.onBusy ? { onBusy: c.onBusy } : {}),
        }
      : c.type === 'run.regenerate'
        ? { type: c.type, messageId: c.messageId }
        : c.type === 'history.replace'
          ? { type: c.type, ids: c.messages.map((m) => m.id) }
          : { type: c.type },
  )

test('a new trailing user turn on top of the stored history (or with no history at all) only adds it', () => {
  for (const messages of [[...STORED, u('u3', 'three')], [u('u3', 'three')]] as AguiMessage[][]) {
    const r = reconcile(session(STORED), input(messages), { onBusy: 'enqueue' })
    assert.equal(r.forks, false)
    assert.deepEqual(brief(r.commands), [{ type: 'user.message', messageId: 'u3', content: 'three', onBusy: 'enqueue' }])
  }
  // Stored history empty: the client's history is taken whole (a thread started elsewhere), never a fork.
  const r = reconcile(session([]), input([...STORED, u('u3', 'three')] as AguiMessage[]), {})
  assert.equal(r.forks, false)
  assert.deepEqual(brief(r.commands), [
    { type: 'history.replace', ids: ['u1', 'a1', 'u2', 'a2'] },
    { type: 'user.message', messageId: 'u3', content: 'three' },
  ])
})

test('an edited or replaced user turn forks and cuts back to the message before the first stored turn that differs', () => {
  // A new message in place of u2 (the client dropped u2 and its answer).
  const replaced = reconcile(session(STORED), input([STORED[0], STORED[1], u('u2b', 'TWO')] as AguiMessage[]), {})
  assert.equal(replaced.forks, true)
  assert.deepEqual(brief(replaced.commands), [{ type: 'user.message', messageId: 'u2b', content: 'TWO', rewind: { toMessageId: 'a1' } }])
  // u1 edited in place (same id, new text): nothing before it is kept.
  const edited = reconcile(session(STORED), input([u('u1', 'ONE')] as AguiMessage[]), {})
  assert.equal(edited.forks, true)
  assert.deepEqual(brief(edited.commands), [{ type: 'user.message', messageId: 'u1', content: 'ONE', rewind: { toMessageId: null } }])
  // Dropping u2's turn but keeping a stored message after it cannot be a cut: the client's list replaces the history.
  const kept = reconcile(session([...STORED, u('u3', 'three')]), input([STORED[0], u('u3', 'three'), u('u4', 'four')] as AguiMessage[]), {})
  assert.equal(kept.forks, true)
  assert.deepEqual(brief(kept.commands), [
    { type: 'history.replace', ids: ['u1', 'u3'] },
    { type: 'user.message', messageId: 'u4', content: 'four', rewind: { toMessageId: 'u3' } },
  ])
})

test('a list ending at a stored user turn whose answer it dropped regenerates it, unless it answers something or that run is active', () => {
  const r = reconcile(session(STORED), input(STORED.slice(0, 3) as AguiMessage[]), { onBusy: 'rollback' })
  assert.equal(r.forks, false)
  assert.deepEqual(brief(r.commands), [{ type: 'run.regenerate', messageId: 'u2' }])
  assert.equal((r.commands[0] as Extract<Command, { type: 'run.regenerate' }>).onBusy, 'rollback')
  // The run answering u2 is still going: the request re-attaches to it.
  assert.deepEqual(reconcile(session(STORED, 'run_2'), input(STORED.slice(0, 3) as AguiMessage[]), {}).commands, [])
  // A late approval answer is not a regenerate.
  assert.deepEqual(
    reconcile(session(STORED), input(STORED.slice(0, 3) as AguiMessage[], { resume: [{ interruptId: 'gone', status: 'resolved' }] }), {}).commands,
    [],
  )
  // The whole history, nothing new: nothing to do.
  assert.deepEqual(reconcile(session(STORED), input(STORED as AguiMessage[]), {}).commands, [])
})
