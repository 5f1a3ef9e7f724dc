import { newId, ParlanceError, type Command, type EventBody, type Limits } from '../core/index.js'
import type { SendResult } from '../agent-api/index.js'
import { PendingRequests } from './pending.js'
import type { Run } from './run.js'
import type { Subscriber } from './subscription.js'

/**
 * The messaging addon: whole assistant messages sent as a burst with typing
 * delays and per-message delivery confirmation (HUMA's messaging lifecycle,
 * in canonical events any dialect can render):
 *
 *   typing {active: true, toolCallId}
 *   message.sent {index 0} → (confirming subscriber attached) wait → message.delivery {index 0}
 *   …
 *   typing {active: false, toolCallId[, reason]}
 *
 * A run stopped mid-burst gets `typing {active: false, reason: 'canceled'}` from `closeBursts`.
 */

/** A subscriber that answers `message.sent` with delivery confirmations (HUMA sockets). */
export interface ConfirmingSubscriber extends Subscriber {
  readonly confirmsDelivery: true
}

/** True when `s` declares it confirms delivery. */
export function confirmsDelivery(s: Subscriber): boolean {
  return (s as Partial<ConfirmingSubscriber>).confirmsDelivery === true
}

/** A delivery confirmation as the burst sees it. */
interface DeliveryAnswer {
  ok: boolean
  error?: string
  by: 'client' | 'timeout'
}

/** Burst state of one run (kept beside the Run rather than in it). */
interface Bursts {
  readonly open: Set<string>
  readonly deliveries: PendingRequests<DeliveryAnswer, undefined>
}

const perRun = new WeakMap<Run, Bursts>()

function bursts(run: Run): Bursts {
  let b = perRun.get(run)
  if (!b) {
    b = { open: new Set(), deliveries: new PendingRequests() }
    perRun.set(run, b)
  }
  return b
}

const key = (toolCallId: string, index: number) => `${toolCallId}#${index}`

/** What a burst needs from the session. */
export interface MessagingHost {
  /** True when a subscriber that confirms delivery is attached now (anywhere in a cluster, hence maybe a promise). */
  confirmsDelivery(): boolean | Promise<boolean>
}

/** Sends `messages` as one burst for `run`; `emit` appends for the run (and throws once it ended). */
export async function sendBurst(
  host: MessagingHost,
  run: Run,
  emit: (body: EventBody) => Promise<void> | undefined,
  limits: Pick<Limits, 'typingMsPerChar' | 'typingMaxMs' | 'messageConfirmTimeoutMs'>,
  toolCallId: string,
  /** The messages, or a function producing them once typing shows (a streamed `say` collected while "typing"). */
  source: readonly string[] | (() => Promise<readonly string[]>),
  extra?: Record<string, unknown>,
): Promise<SendResult & { messageIds: string[] }> {
  run.ensureActive()
  const messageIds: string[] = []
  const b = bursts(run)
  await emit({ type: 'typing', active: true, toolCallId })
  b.open.add(toolCallId)
  const messages = typeof source === 'function' ? await source() : source
  run.ensureActive()
  const count = messages.length
  let delivered = 0
  let error: string | undefined
  for (let index = 0; index < count; index++) {
    const message = messages[index]!
    await typingDelay(Math.min(limits.typingMaxMs, limits.typingMsPerChar * message.length), run.signal)
    run.ensureActive()
    const messageId = newId('msg')
    messageIds.push(messageId)
    const confirm = await host.confirmsDelivery()
    run.ensureActive()
    const timeoutMs = limits.messageConfirmTimeoutMs
    const answer = confirm
      ? b.deliveries.wait(key(toolCallId, index), timeoutMs, undefined, (): DeliveryAnswer => ({
          ok: false,
          error: `no delivery confirmation within ${timeoutMs} ms`,
          by: 'timeout',
        }))
      : undefined
    await emit({ type: 'message.sent', toolCallId, messageId, message, index, count, confirm, ...(extra ? { extra } : {}) })
    if (answer) {
      const a = await answer
      run.ensureActive()
      await emit({
        type: 'message.delivery',
        toolCallId,
        messageId,
        index,
        ok: a.ok,
        by: a.by,
        ...(a.ok ? {} : { error: a.error ?? 'delivery failed' }),
      })
      if (!a.ok) {
        error = a.error ?? 'delivery failed'
        break
      }
    }
    delivered++
  }
  b.open.delete(toolCallId)
  await emit(error === undefined ? { type: 'typing', active: false, toolCallId } : { type: 'typing', active: false, toolCallId, reason: 'failed' })
  return error === undefined ? { delivered, ok: true, messageIds } : { delivered, ok: false, error, messageIds }
}

/** Ends the run's open bursts (`typing` off, reason 'canceled') and its delivery waits; for a run that stops. */
export function closeBursts(run: Run, append: (body: EventBody) => void, reason?: unknown): void {
  const b = perRun.get(run)
  if (!b) return
  for (const toolCallId of b.open) append({ type: 'typing', active: false, toolCallId, reason: 'canceled' })
  b.open.clear()
  b.deliveries.rejectAll(reason ?? new ParlanceError('cancelled', 'the run stopped'))
}

/**
 * An addon event: a messaging confirmation (`{messageIndex, success, error?}`) answers the burst's wait.
 * Returns false when nothing waits for it (late, duplicate from a second tab, or another addon's data).
 */
export function deliverAddonEvent(run: Run | null, cmd: Extract<Command, { type: 'addon.event' }>): boolean {
  const { messageIndex, success, error } = cmd.data
  if (!run || typeof messageIndex !== 'number' || typeof success !== 'boolean') return false
  const b = perRun.get(run)
  if (!b) return false
  const answer: DeliveryAnswer = success
    ? { ok: true, by: 'client' }
    : { ok: false, by: 'client', error: typeof error === 'string' && error ? error : 'the client reported a failed delivery' }
  return b.deliveries.resolve(key(cmd.toolCallId, messageIndex), answer)
}

/**
 * A delivery confirmation of a streamed message (`say`): HUMA renders a streamed message as a burst of one
 * whose toolCallId is the message id, and its client confirms it like any burst. Nothing waits for it (the
 * stream is not held back for one dialect); it is recorded as `message.delivery` when it names an assistant
 * message of the session, and ignored otherwise, as a late or duplicate confirmation is.
 */
export function recordStreamedDelivery(
  s: { model: { messages: readonly { id: string; role: string }[] }; appendNow(runId: string, body: EventBody): void },
  runId: string,
  cmd: Extract<Command, { type: 'addon.event' }>,
): void {
  const { messageIndex, success, error } = cmd.data
  if (typeof messageIndex !== 'number' || typeof success !== 'boolean') return
  if (!s.model.messages.some((m) => m.id === cmd.toolCallId && m.role === 'assistant')) return
  s.appendNow(runId, {
    type: 'message.delivery',
    toolCallId: cmd.toolCallId,
    messageId: cmd.toolCallId,
    index: messageIndex,
    ok: success,
    by: 'client',
    ...(success ? {} : { error: typeof error === 'string' && error ? error : 'the client reported a failed delivery' }),
  })
}

function typingDelay(ms: number, signal: AbortSignal): Promise<void> | undefined {
  if (signal.aborted) return Promise.reject(abortReason(signal))
  if (ms <= 0) return undefined
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t)
      reject(abortReason(signal))
    }
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** Why `signal` fired, as an Error (the run's stop reason is a ParlanceError). */
export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason
  return r instanceof Error ? r : new Error(String(r))
}
