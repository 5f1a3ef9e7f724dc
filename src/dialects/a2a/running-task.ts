import type { Artifact, Part, Task } from '@a2a-js/sdk'

/**
 * The copy of a task the SDK's result manager works on while a request carries the task out, kept so that each
 * update costs the same however long the task has grown. The result manager loads the task, changes it and saves
 * it once per update; a deep copy each way (and each appended chunk a part of its own) made an answer of N chunks
 * cost O(N²). Here a load copies only the objects the result manager changes in place (the task and its artifacts;
 * it replaces, never edits, `status`, `history`, `metadata` and an artifact's `parts`), and a save merges an
 * artifact's appended text parts into one, as the task read back from the log has it (`taskOf`).
 */

/** A copy of `task` the caller may change: new task and artifact objects; parts, history and metadata shared. */
export function copyTask(task: Task): Task {
  return { ...task, artifacts: task.artifacts.map((a) => ({ ...a })) }
}

/**
 * `task` as kept between updates: each artifact's adjacent plain text parts (the chunks `append` added) joined
 * into one, and what later copies share frozen, so a result manager that changed it in place would fail loudly
 * instead of changing the kept copy. Costs O(artifacts + parts added since the last save), not O(text).
 */
export function keptTask(task: Task): Task {
  if (task.history) Object.freeze(task.history)
  return { ...task, artifacts: Object.freeze(task.artifacts.map(joinedText)) as Artifact[] }
}

const plainText = (p: Part | undefined): p is Part & { content: { $case: 'text'; value: string } } =>
  p?.content?.$case === 'text' && !p.filename && (p.metadata === undefined || Object.keys(p.metadata).length === 0)

function joinedText(a: Artifact): Artifact {
  if (a.parts.length < 2) return Object.freeze({ ...a, parts: Object.freeze(a.parts) as Part[] })
  const parts: Part[] = []
  for (const p of a.parts) {
    const last = parts[parts.length - 1]
    if (plainText(last) && plainText(p) && last.mediaType === p.mediaType)
      parts[parts.length - 1] = { ...last, content: { $case: 'text', value: last.content.value + p.content.value } }
    else parts.push(p)
  }
  return Object.freeze({ ...a, parts: Object.freeze(parts) as Part[] })
}
