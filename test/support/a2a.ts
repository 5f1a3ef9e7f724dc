// What the A2A tests build and read with the official @a2a-js/sdk types: a user text message (every field the
// 1.0 shape requires), a result narrowed to a task, and a task's response text.
import assert from 'node:assert/strict'
import { Role, type Message, type Task } from '@a2a-js/sdk'

/** A user message holding one text part. */
export const a2aMessage = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: globalThis.crypto.randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...extra,
})

/** A send or get result, asserted to be a task. */
export const asTask = (r: unknown): Task => {
  assert.ok(r && typeof r === 'object' && 'status' in r, `a task, not ${JSON.stringify(r)}`)
  return r as Task
}

/** The text of a task's response artifacts. */
export const taskText = (t: Task): string =>
  t.artifacts
    .filter((a) => a.name === 'response')
    .flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')))
    .join('')
    .trim()
