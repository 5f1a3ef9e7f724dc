import { ParlanceError, type DecodeLimits, type Decoded } from '../../core/index.js'
import type { Pending } from './decode-resume.js'
import { decodeRunRequest, decoder } from './decode.js'
import {
  CommandEnvelope,
  EventStreamRequest,
  InputRespondParams,
  RunStartParams,
  SERVED_METHODS,
  UNSERVED_METHODS,
  type ProtocolErrorCode,
} from './protocol-wire.js'
import { MULTITASK, type MultitaskStrategy, type RunRequest } from './wire.js'

/** A command Parlance carries out, lifted to what the classic API already does with it. */
export type ProtocolCommand =
  | { readonly id: number; readonly method: 'run.start'; readonly run: RunRequest }
  | { readonly id: number; readonly method: 'input.respond'; readonly resume: Readonly<Record<string, unknown>> }
  | { readonly id: number; readonly method: 'state.get' }

/** A decoded command, or the error to answer (with the command's id when it had one). */
export type DecodedCommand = { ok: true; value: ProtocolCommand } | { ok: false; error: ParlanceError; id: number | null }

const envelope = decoder(CommandEnvelope)
const runStart = decoder(RunStartParams)
const respond = decoder(InputRespondParams)

/** An error whose protocol code is not the one its Parlance code maps to (`details.protocolError`). */
const protocolError = (code: ProtocolErrorCode, message: string) => new ParlanceError('invalid_message', message, { protocolError: code })

/** A params error, its field named from the command (`params.input.messages[0]`). */
const inParams = (d: { ok: false; error: ParlanceError }, id: number): DecodedCommand => {
  const field = typeof d.error.details?.field === 'string' ? `params.${d.error.details.field}` : 'params'
  return { ok: false, id, error: new ParlanceError(d.error.code, `params.${d.error.message}`, { ...d.error.details, field }) }
}

/**
 * `run.start` as the classic run request it is: `input` (`{messages: [...]}`, LangChain message dicts) is validated by
 * the same rules (the last message a human one, text content only); the strategy as `useStream` names it.
 */
function runRequestOf(id: number, params: Record<string, unknown>, limits: DecodeLimits): DecodedCommand {
  const p = runStart(JSON.stringify(params), limits)
  if (!p.ok) return inParams(p, id)
  const strategy = p.value.multitask_strategy ?? p.value.multitaskStrategy ?? undefined
  if (strategy !== undefined && !(MULTITASK as readonly string[]).includes(strategy))
    return { ok: false, id, error: protocolError('invalid_argument', `params.multitaskStrategy: one of ${MULTITASK.join(', ')}`) }
  // `forkFrom` arrives as config.configurable.checkpoint_id: the classic run's `checkpoint` (an edit, or with no
  // input, the checkpoint's last human message answered again).
  const configurable = (p.value.config as { configurable?: { checkpoint_id?: unknown } } | undefined)?.configurable
  const checkpoint = typeof configurable?.checkpoint_id === 'string' ? configurable.checkpoint_id : undefined
  const input = p.value.input ?? null
  const hasMessages = typeof input === 'object' && input !== null && Array.isArray((input as { messages?: unknown }).messages)
  if (!hasMessages && (checkpoint === undefined || input !== null))
    return { ok: false, id, error: protocolError('invalid_argument', 'params.input: a run needs input.messages, ending with a human message') }
  const body = {
    assistant_id: p.value.assistant_id,
    input: hasMessages ? { messages: (input as { messages: unknown[] }).messages } : null,
    ...(checkpoint !== undefined ? { checkpoint: { checkpoint_id: checkpoint } } : {}),
    ...(p.value.metadata ? { metadata: p.value.metadata } : {}),
    ...(strategy ? { multitask_strategy: strategy as MultitaskStrategy } : {}),
  }
  const run = decodeRunRequest(JSON.stringify(body), limits)
  if (!run.ok) return inParams(run, id)
  return { ok: true, value: { id, method: 'run.start', run: run.value } }
}

/**
 * Decodes a `POST /threads/{id}/commands` body (pure; never throws). `input.respond` becomes the classic API's
 * resume keyed by interrupt id (Parlance's interrupt ids are approval and tool call ids), so it answers exactly the
 * interrupts named. A method the protocol has and Parlance does not serve is `not_supported`; any other,
 * `unknown_command`.
 */
export function decodeCommand(body: string, limits: DecodeLimits): DecodedCommand {
  const e = envelope(body, limits)
  if (!e.ok) return { ok: false, error: e.error, id: null }
  const { id, method } = e.value
  const params = e.value.params ?? {}
  if ((UNSERVED_METHODS as readonly string[]).includes(method))
    return {
      ok: false,
      id,
      error: protocolError(
        'not_supported',
        `${method} is not served: Parlance serves ${SERVED_METHODS.join(', ')}; subscribe with POST /threads/{thread_id}/stream/events`,
      ),
    }
  if (method === 'run.start') return runRequestOf(id, params, limits)
  if (method === 'state.get') return { ok: true, value: { id, method } }
  if (method === 'input.respond') {
    const r = respond(JSON.stringify(params), limits)
    if (!r.ok) return inParams(r, id)
    const refused = (['goto', 'update'] as const).find((k) => params[k] !== undefined && params[k] !== null)
    if (refused)
      return {
        ok: false,
        id,
        error: protocolError('not_supported', `params.${refused}: a Parlance agent has no graph nodes or channels to set; answer with response only`),
      }
    const entries = 'responses' in r.value ? r.value.responses : [r.value]
    const resume: Record<string, unknown> = {}
    for (const x of entries) resume[x.interrupt_id] = x.response
    return { ok: true, value: { id, method, resume } }
  }
  return { ok: false, id, error: new ParlanceError('unknown_type', `unknown command "${method}"; served: ${SERVED_METHODS.join(', ')}`) }
}

/** Decodes a `POST /threads/{id}/stream/events` body (pure). */
export const decodeEventStreamRequest: (body: string, limits: DecodeLimits) => Decoded<EventStreamRequest> = decoder(EventStreamRequest)

/**
 * The answers of `input.respond` as the classic resume (pure). A headless tool's answer comes keyed once more by its
 * tool call id (`{[interruptId]: {[toolCallId]: result}}`, what the SDK's headless-tool helpers send); since a client
 * tool's interrupt id is its tool call id, that inner map is unwrapped to the result.
 */
export function resumeOf(resume: Readonly<Record<string, unknown>>, pending: readonly Pending[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...resume }
  for (const p of pending) {
    const v = out[p.id]
    if (p.kind !== 'tool' || typeof v !== 'object' || v === null || Array.isArray(v)) continue
    const keys = Object.keys(v)
    if (keys.length === 1 && keys[0] === p.id) out[p.id] = (v as Record<string, unknown>)[p.id]
  }
  return out
}
