import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk'
import { V1PushNotificationSerializer, type PushNotificationSender, type PushNotificationStore, type ServerCallContext } from '@a2a-js/sdk/server'
import type { EndpointDeps } from '../../binding/index.js'

/** How a webhook is retried: attempts in all, and the first backoff (doubled each time, with jitter). */
export interface PushRetry {
  attempts: number
  firstDelayMs: number
  /** Per attempt. */
  timeoutMs: number
}

export const PUSH_RETRY: PushRetry = { attempts: 4, firstDelayMs: 250, timeoutMs: 5_000 }

/**
 * Delivers a task's updates to the webhooks registered for it (A2A push notifications), in order per task: the
 * SDK's own v1.0 body (`StreamResponse` JSON, `application/a2a+json`), authenticated as the config says
 * (`authentication` → `Authorization: <scheme> <credentials>`, else `token` → `X-A2A-Notification-Token`).
 * A failed delivery (network error, timeout, 408/429/5xx) is retried with exponential backoff; a 4xx is final.
 * Failures are logged, never thrown: a webhook cannot stall or fail the task.
 */
export class RetryingPushSender implements PushNotificationSender {
  private readonly serializer = new V1PushNotificationSerializer()
  private readonly chains = new Map<string, Promise<void>>()

  constructor(
    private readonly store: PushNotificationStore,
    private readonly log: EndpointDeps['log'],
    private readonly retry: PushRetry = PUSH_RETRY,
  ) {}

  async send(update: StreamResponse, context: ServerCallContext, task?: Task): Promise<void> {
    const p = update.payload
    const taskId = !p ? '' : p.$case === 'task' ? p.value.id : p.value.taskId
    if (!taskId) return
    const configs = await this.store.load(taskId, context)
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
    if (config.authentication?.scheme && config.authentication.credentials) headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`
    else if (config.token) headers['x-a2a-notification-token'] = config.token
    let last = ''
    for (let attempt = 1; attempt <= this.retry.attempts; attempt++) {
      try {
        const res = await fetch(config.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.retry.timeoutMs) })
        if (res.ok) return
        last = `HTTP ${res.status}`
        if (res.status < 500 && res.status !== 408 && res.status !== 429) break
      } catch (err) {
        last = (err as Error).message
      }
      if (attempt < this.retry.attempts) await new Promise((r) => setTimeout(r, this.retry.firstDelayMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5)))
    }
    this.log.warn({ url: config.url, taskId: config.taskId, error: last }, 'A2A push notification not delivered')
  }
}
