import type { Assistant, Checkpoint, LcInterrupt, LcMessage, MultitaskStrategy, Run, RunStatus, Thread, ThreadState, ThreadStatus } from './wire.js'

/** Milliseconds since the epoch as the API's ISO 8601 timestamps. */
export const iso = (ms: number) => new Date(ms).toISOString()

/** The node name of Parlance's agent in tasks, `next` and stream metadata (a Parlance agent is one step). */
export const AGENT_NODE = 'agent'

/** One assistant per served agent: `assistant_id` = `graph_id` = the agent's name. */
export function assistantObject(name: string, description: string | undefined, since: number): Assistant {
  return {
    assistant_id: name,
    graph_id: name,
    name,
    description: description ?? null,
    config: {},
    context: {},
    metadata: { created_by: 'system' },
    version: 1,
    created_at: iso(since),
    updated_at: iso(since),
  }
}

export function checkpointOf(threadId: string, id: string | null): Checkpoint {
  return { thread_id: threadId, checkpoint_ns: '', checkpoint_id: id, checkpoint_map: null }
}

/** What a thread state is built from. */
export interface StateParts {
  threadId: string
  messages: readonly LcMessage[]
  interrupts: readonly LcInterrupt[]
  checkpointId: string | null
  parentId: string | null
  createdAt: number | null
  error?: string | null
  /** A run is active (not waiting for the client): `next` names the agent, as a checkpoint mid-run does. */
  running?: boolean
}

/**
 * A thread state: `values` {messages}; while a run is active, `next: ['agent']` (what `useStream` of
 * `@langchain/react` reads to rejoin the thread's stream after a reload); while it waits for the client, also one
 * task whose `interrupts` are what it waits on (what `useStream` reads when it loads a thread).
 */
export function stateObject(p: StateParts): ThreadState {
  const waiting = p.interrupts.length > 0
  return {
    values: { messages: [...p.messages] },
    next: waiting || p.running ? [AGENT_NODE] : [],
    checkpoint: checkpointOf(p.threadId, p.checkpointId),
    metadata: { source: 'loop', step: 0, parents: {} },
    created_at: p.createdAt === null ? null : iso(p.createdAt),
    parent_checkpoint: p.parentId === null ? null : checkpointOf(p.threadId, p.parentId),
    tasks:
      waiting || p.error
        ? [
            {
              id: `task_${p.checkpointId ?? '0'}`,
              name: AGENT_NODE,
              error: p.error ?? null,
              interrupts: [...p.interrupts],
              checkpoint: null,
              state: null,
            },
          ]
        : [],
    interrupts: [...p.interrupts],
  }
}

/** What a thread object is built from. */
export interface ThreadParts {
  threadId: string
  createdAt: number
  updatedAt: number
  metadata: Record<string, unknown>
  status: ThreadStatus
  messages: readonly LcMessage[]
  interrupts: readonly LcInterrupt[]
  error: string | null
}

export function threadObject(p: ThreadParts): Thread {
  return {
    thread_id: p.threadId,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
    state_updated_at: iso(p.updatedAt),
    metadata: p.metadata,
    status: p.status,
    values: { messages: [...p.messages] },
    interrupts: p.interrupts.length > 0 ? { [`task_${p.threadId}`]: [...p.interrupts] } : {},
    config: {},
    error: p.error,
  }
}

/** What a run object is built from. */
export interface RunParts {
  runId: string
  threadId: string
  assistantId: string
  createdAt: number
  updatedAt: number
  status: RunStatus
  multitask: MultitaskStrategy | null
}

export function runObject(p: RunParts): Run {
  return {
    run_id: p.runId,
    thread_id: p.threadId,
    assistant_id: p.assistantId,
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
    status: p.status,
    metadata: {},
    multitask_strategy: p.multitask,
    kwargs: {},
  }
}
