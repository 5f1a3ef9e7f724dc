import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk'
import { RequestMalformedError } from '@a2a-js/sdk/errors'
import { V1PushNotificationSerializer, type PushNotificationSender, type PushNotificationStore, type ServerCallContext } from '@a2a-js/sdk/server'
import type { EndpointDeps } from '../../binding/index.js'
import type { WebhookGuard, WebhookTarget } from './webhook-guard.js'
import { ownerOf } from './task-store.js'
import { withTraceHeaders } from '../../telemetry/index.js'

/** How a webhook is retried: attempts in all, and the first backoff (doubled each time, with jitter). */
export interface PushRetry {
  attempts: number
  firstDelayMs: number
  /** Per attempt. */
  timeoutMs: number
}

export const PUSH_RETRY: PushRetry = { attempts: 4, firstDelayMs: 250, timeoutMs: 5_000 }

/** How long a task's webhooks, once read, are used for its updates before they are read again (ms). */
export const PUSH_CONFIGS_FRESH_MS = 1_000

/** One POST of a webhook body to a checked target; resolves to the HTTP status. Tests inject their own. */
export type PushPost = (target: WebhookTarget, headers: Record<string, string>, body: string, timeoutMs: number) => Promise<number>

/**
 * POSTs to the address the guard checked and nowhere else: the request's `lookup` answers the host name with that
 * address, so the name is not resolved again (no DNS rebinding between check and connect), while the Host header
 * and TLS (SNI and certificate name) still use the URL's host. No pooled socket: a kept-alive one may have been
 * opened to an address of an earlier check.
 */
export const pinnedPost: PushPost = (target, headers, body, timeoutMs) =>
  new Promise((resolve, reject) => {
    const lookup: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all)
        (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
          { address: target.address, family: target.family },
        ])
      else callback(null, target.address, target.family)
    }
    const u = target.url
    const options: RequestOptions = {
      method: 'POST',
      host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: u.port || undefined,
      path: `${u.pathname}${u.search}`,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup,
      timeout: timeoutMs,
      agent: false,
    }
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(options, (res: IncomingMessage) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode ?? 0))
      res.once('error', reject)
    })
    req.once('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.once('error', reject)
    req.end(body)
  })

/**
 * The push-notification store the SDK's request handler is given: `store`, with every config checked by the
 * webhook guard before it is saved (`CreateTaskPushNotificationConfig`, and a config inside `SendMessage`'s
 * configuration, which the handler saves before the task runs). A refused URL is the SDK's invalid-params error
 * (JSON-RPC -32602) saying why; nothing is saved and no task starts.
 */
export function guardedPushStore(store: PushNotificationStore, guard: WebhookGuard, changed?: (taskId: string) => void): PushNotificationStore {
  const guarded: PushNotificationStore = {
    async save(taskId, context, config) {
      const checked = await guard.check(config.url)
      if (!checked.ok) throw new RequestMalformedError(checked.reason)
      await store.save(taskId, context, config)
      changed?.(taskId)
    },
    load: (taskId, context) => store.load(taskId, context),
    async delete(taskId, context, configId) {
      await store.delete(taskId, context, configId)
      changed?.(taskId)
    },
  }
  const withMetadata = store.loadWithMetadata?.bind(store)
  if (withMetadata) guarded.loadWithMetadata = withMetadata
  return guarded
}

/**
 * Delivers a task's updates to the webhooks registered for it (A2A push notifications), in order per task: the
 * SDK's own v1.0 body (`StreamResponse` JSON, `application/a2a+json`), authenticated as the config says
 * (`authentication` → `Authorization: <scheme> <credentials>`, else `token` → `X-A2A-Notification-Token`).
 * Each delivery checks its URL again with the webhook guard (a name may resolve elsewhere since the config was
 * saved) and connects to the address it checked. A failed delivery (network error, timeout, 408/429/5xx) is
 * retried with exponential backoff; a 4xx or a refused URL is final. Failures are logged, never thrown: a
 * webhook cannot stall or fail the task.
 */
export class RetryingPushSender implements PushNotificationSender {
  private readonly serializer = new V1PushNotificationSerializer()
  private readonly chains = new Map<string, Promise<void>>()
  /** A task's webhooks as last read from the store, per task and owner, in the order they were read (oldest first). */
  private readonly known = new Map<string, { at: number; configs: Promise<TaskPushNotificationConfig[]> }>()

  constructor(
    private readonly store: PushNotificationStore,
    private readonly log: EndpointDeps['log'],
    private readonly guard: WebhookGuard,
    private readonly retry: PushRetry = PUSH_RETRY,
    private readonly post: PushPost = pinnedPost,
    /** How long a task's webhooks, once read, are used without reading them again (ms). */
    private readonly freshMs = PUSH_CONFIGS_FRESH_MS,
  ) {}

  /** A task's webhooks changed through this node (saved, deleted): the next update reads them again. */
  forget(taskId: string): void {
    for (const key of this.known.keys()) if (key.startsWith(`${taskId}\u0000`)) this.known.delete(key)
  }

  /**
   * The webhooks of `taskId` visible to the caller. The SDK asks for every update of a task, so they are read
   * from the store at most once per `freshMs` per task and owner (a read was one SQLite query per streamed chunk,
   * ~14 % of a long A2A answer's CPU); a change made through this node is seen at once (`forget`), one made
   * through another node of a cluster within `freshMs`.
   */
  private configsOf(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    const now = performance.now()
    for (const [key, k] of this.known) {
      if (now - k.at < this.freshMs) break
      this.known.delete(key)
    }
    const key = `${taskId}\u0000${ownerOf(context)}`
    const held = this.known.get(key)
    if (held) return held.configs
    const configs = this.store.load(taskId, context)
    this.known.set(key, { at: now, configs })
    configs.catch(() => this.known.delete(key))
    return configs
  }

  async send(update: StreamResponse, context: ServerCallContext, task?: Task): Promise<void> {
    const p = update.payload
    const taskId = !p ? '' : p.$case === 'task' ? p.value.id : p.value.taskId
    if (!taskId) return
    const configs = await this.configsOf(taskId, context)
    if (configs.length === 0) return
    const { body, contentType } = this.serializer.serialize(update, task)
    const previous = this.chains.get(taskId) ?? Promise.resolve()
    const next = previous.then(() => Promise.all(configs.map((c) => this.deliver(c, body, contentType))).then(() => {}))
    this.chains.set(taskId, next)
    await next
    if (this.chains.get(taskId) === next) this.chains.delete(taskId)
  }

  private async deliver(config: TaskPushNotificationConfig, body: string, contentType: string): Promise<void> {
    const headers: Record<string, string> = { 'content-type': contentType }
    if (config.authentication?.scheme && config.authentication.credentials)
      headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`
    else if (config.token) headers['x-a2a-notification-token'] = config.token
    // The trace context the update was made in (traceparent/tracestate), under the registered propagator.
    const traced = withTraceHeaders(headers)
    let last = ''
    for (let attempt = 1; attempt <= this.retry.attempts; attempt++) {
      const checked = await this.guard.check(config.url)
      if (!checked.ok) {
        last = checked.reason
        break
      }
      try {
        const status = await this.post(checked.target, traced, body, this.retry.timeoutMs)
        if (status >= 200 && status < 300) return
        last = `HTTP ${status}`
        if (status < 500 && status !== 408 && status !== 429) break
      } catch (err) {
        last = (err as Error).message
      }
      if (attempt < this.retry.attempts)
        await new Promise((r) => setTimeout(r, this.retry.firstDelayMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5)))
    }
    this.log.warn({ url: config.url, taskId: config.taskId, error: last }, 'A2A push notification not delivered')
  }
}
