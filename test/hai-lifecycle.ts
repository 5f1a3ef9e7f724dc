/**
 * Lifecycle verifier for HAI streams, written from the seed
 * (`agora-hai-protocol.md` §Message Types and §Conversation Flows) plus
 * Parlance's `seq` extension. Every e2e test over HAI runs its collected
 * messages through `verifyHaiStream`; `hai-lifecycle.test.ts` proves it fails.
 */
import type { HaiServerMessage } from '../src/client/index.js'

/** Thrown when a stream breaks a lifecycle rule; `index` is the offending message's position. */
export class HaiStreamError extends Error {
  override readonly name = 'HaiStreamError'
  constructor(
    readonly index: number,
    readonly rule: string,
    message: string,
  ) {
    super(message)
  }
}

export interface VerifyHaiOptions {
  /**
   * The stream is whole: it ends with `status: completed`, every message got
   * its `is_final: true`, every tool call its end or error. Pass false for a
   * stream cut short (a socket closed mid-run). @default true
   */
  complete?: boolean
}

const STATUSES = new Set(['thinking', 'routing', 'executing_tools', 'completed'])
const RISKS = new Set(['low', 'medium', 'high', 'critical'])
/** Frames that may carry no `seq`: inbound errors (answers to a bad frame) and history replay. */
const UNSEQUENCED = new Set(['error', 'assistant_message'])

type Loose = Record<string, unknown>

const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v)
const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0

/**
 * Checks a HAI server→client stream and throws a `HaiStreamError` naming the
 * message and the rule it breaks:
 *
 * - every message has the fields its lifecycle needs (`message_id`, boolean
 *   `is_final`, `tool_call_id`, the seed's `status` / `risk_level` values…);
 * - per `message_id`: non-final chunks, then exactly one `is_final: true`, nothing after it;
 * - every `tool_call_end` / `tool_call_error` follows a `tool_call_start` with the
 *   same `tool_call_id` (and tool name), and each id ends at most once;
 * - `status: completed` is the last message of a run: no message or tool call
 *   is still open when it arrives;
 * - `seq` strictly increases. Frames without `seq` are allowed only for inbound
 *   errors and history `assistant_message`s; the one repeated seq allowed is a
 *   run error's `error` frame followed by its `status: completed` (one event,
 *   two frames);
 * - unless `complete: false`: the stream ends with `status: completed` and
 *   nothing is left open.
 *
 * Pass a stream from the start of a run: for a resumed connection, what the
 * old socket saw followed by what the new one got.
 */
export function verifyHaiStream(messages: readonly HaiServerMessage[], options: VerifyHaiOptions = {}): void {
  const finals = new Map<string, number>() // message_id → index of its is_final
  const openMessages = new Map<string, number>() // message_id → index of its first chunk
  const openTools = new Map<string, { index: number; name: string }>()
  const endedTools = new Map<string, number>()
  const startedTools = new Set<string>()
  let lastSeq = -Infinity
  let lastSeqIndex = -1
  let lastSequenced: Loose | undefined

  const fail = (i: number, rule: string, why: string): never => {
    const m = messages[i] as Loose | undefined
    const where = m ? `${String(m.type)}${typeof m.seq === 'number' ? ` seq ${m.seq}` : ''}` : 'end of stream'
    throw new HaiStreamError(i, rule, `HAI stream invalid at message #${i} (${where}): ${why} [${rule}]`)
  }

  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as unknown
    if (!isObject(m)) fail(i, 'shape', 'a message must be a JSON object')
    const msg = m as Loose
    const type = msg.type
    if (typeof type !== 'string') fail(i, 'shape', 'missing "type"')

    // seq ordering
    if (msg.seq === undefined) {
      if (!UNSEQUENCED.has(type as string)) fail(i, 'seq', `a ${String(type)} frame must carry seq`)
    } else {
      const seq = msg.seq
      if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1) fail(i, 'seq', `seq must be a positive integer, got ${JSON.stringify(seq)}`)
      const runErrorPair =
        seq === lastSeq && lastSequenced?.type === 'error' && lastSeqIndex === i - 1 && type === 'status' && msg.status === 'completed'
      if ((seq as number) <= lastSeq && !runErrorPair) {
        fail(i, 'seq', `seq ${JSON.stringify(seq)} after ${lastSeq} (#${lastSeqIndex}): seq must strictly increase`)
      }
      lastSeq = seq as number
      lastSeqIndex = i
      lastSequenced = msg
    }

    switch (type) {
      case 'assistant_message_chunk': {
        const id = msg.message_id
        if (!isId(id)) fail(i, 'shape', 'assistant_message_chunk needs a message_id')
        if (typeof msg.content !== 'string') fail(i, 'shape', 'assistant_message_chunk needs string content')
        if (typeof msg.is_final !== 'boolean') fail(i, 'shape', `is_final must be a boolean, got ${JSON.stringify(msg.is_final)}`)
        const done = finals.get(id as string)
        if (done !== undefined) {
          fail(
            i,
            msg.is_final ? 'one-final' : 'chunk-after-final',
            `message ${String(id)}: ${msg.is_final ? 'a second is_final' : 'a chunk'} after the final at #${done}`,
          )
        }
        if (msg.is_final) {
          finals.set(id as string, i)
          openMessages.delete(id as string)
        } else if (!openMessages.has(id as string)) openMessages.set(id as string, i)
        break
      }
      case 'assistant_message':
        if (typeof msg.content !== 'string') fail(i, 'shape', 'assistant_message needs string content')
        break
      case 'tool_call_start': {
        const id = msg.tool_call_id
        if (!isId(id)) fail(i, 'shape', 'tool_call_start needs a tool_call_id')
        if (!isId(msg.tool_name)) fail(i, 'shape', 'tool_call_start needs a tool_name')
        if (!isObject(msg.parameters)) fail(i, 'shape', 'tool_call_start needs parameters (an object)')
        if (startedTools.has(id as string)) fail(i, 'tool-start-once', `tool call ${String(id)} started twice`)
        startedTools.add(id as string)
        openTools.set(id as string, { index: i, name: msg.tool_name as string })
        break
      }
      case 'tool_call_end':
      case 'tool_call_error': {
        const id = msg.tool_call_id
        if (!isId(id)) fail(i, 'shape', `${type} needs a tool_call_id`)
        if (!isId(msg.tool_name)) fail(i, 'shape', `${type} needs a tool_name`)
        if (type === 'tool_call_end' && typeof msg.result !== 'string') fail(i, 'shape', 'tool_call_end.result must be a string')
        if (type === 'tool_call_error' && typeof msg.error !== 'string') fail(i, 'shape', 'tool_call_error.error must be a string')
        const ended = endedTools.get(id as string)
        if (ended !== undefined) fail(i, 'tool-end-once', `tool call ${String(id)} already ended at #${ended}`)
        const start = openTools.get(id as string)
        if (!start) fail(i, 'tool-end-after-start', `${type} for ${String(id)} without tool_call_start before it`)
        if (start!.name !== msg.tool_name)
          fail(i, 'tool-end-after-start', `tool_name ${String(msg.tool_name)} differs from the start's ${start!.name}`)
        openTools.delete(id as string)
        endedTools.set(id as string, i)
        break
      }
      case 'tool_approval_request':
        for (const f of ['tool_name', 'tool_description', 'reasoning', 'approval_id'] as const) {
          if (typeof msg[f] !== 'string') fail(i, 'shape', `tool_approval_request.${f} must be a string`)
        }
        if (!isId(msg.approval_id)) fail(i, 'shape', 'tool_approval_request needs an approval_id')
        if (!isObject(msg.parameters)) fail(i, 'shape', 'tool_approval_request needs parameters (an object)')
        if (!RISKS.has(msg.risk_level as string)) fail(i, 'shape', `risk_level ${JSON.stringify(msg.risk_level)} is not one of the seed's`)
        break
      case 'status':
        if (!STATUSES.has(msg.status as string)) fail(i, 'shape', `status ${JSON.stringify(msg.status)} is not one of the seed's`)
        if (msg.status === 'completed') {
          // completed is the last message of its run: nothing of the run may still be open
          for (const [id, at] of openMessages) fail(i, 'completed-last', `status completed while message ${id} (first chunk #${at}) has no is_final`)
          for (const [id, t] of openTools) fail(i, 'completed-last', `status completed while tool call ${id} (#${t.index}) has no end or error`)
        }
        break
      case 'error':
        if (!isId(msg.error_code)) fail(i, 'shape', 'error needs an error_code')
        if (typeof msg.message !== 'string') fail(i, 'shape', 'error needs a message')
        if (msg.details !== undefined && !isObject(msg.details)) fail(i, 'shape', 'error.details must be an object')
        break
      default:
        fail(i, 'shape', `unknown server message type ${JSON.stringify(type)}`)
    }
  }

  if (options.complete !== false) {
    const end = messages.length
    for (const [id, at] of openMessages) fail(end, 'complete', `message ${id} (first chunk #${at}) never got is_final`)
    for (const [id, t] of openTools) fail(end, 'complete', `tool call ${id} (#${t.index}) never ended`)
    const last = lastSequenced
    if (!last || last.type !== 'status' || last.status !== 'completed') {
      fail(end, 'complete', `the stream does not end with status completed (last sequenced message: ${last ? String(last.type) : 'none'})`)
    }
  }
}
