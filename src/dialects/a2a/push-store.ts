import { randomUUID } from 'node:crypto'
import type { TaskPushNotificationConfig } from '@a2a-js/sdk'
import type { PushNotificationStore, ServerCallContext, StoredPushNotificationConfig } from '@a2a-js/sdk/server'
import type { Json } from '../../core/index.js'
import { ownerOf, type TaskLog } from './task-store.js'

/** The record scope of one task's webhooks (key: the config id). */
export const pushScope = (taskId: string): string => `a2a.push:${taskId}`

/** A webhook as stored: the config, the wire version it was registered over, and who registered it. */
interface StoredConfig {
  config: TaskPushNotificationConfig
  wireVersion: string
  owner: string
}

/** Webhooks one task may have (a listing reads at most this many). */
const MAX_CONFIGS = 100

/**
 * The SDK's `PushNotificationStore` over Parlance's store records (scope `a2a.push:<task id>`, one record per
 * config): a task's webhooks survive restarts and are read by every node of a cluster, like the task itself.
 * They are records, not events: a webhook's credentials must not be replayed to every client of the session.
 * Each config keeps the wire version it was registered over (`loadWithMetadata`) and its owner: another
 * principal neither sees nor deletes it.
 */
export class RecordPushStore implements PushNotificationStore {
  constructor(private readonly records: Pick<TaskLog, 'getRecord' | 'putRecord' | 'listRecords'>) {}

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    if (!config.id) config.id = randomUUID()
    const held = (await this.records.getRecord(pushScope(taskId), config.id)) as unknown as StoredConfig | undefined
    if (held && held.owner !== ownerOf(context)) return
    const value: StoredConfig = {
      config: JSON.parse(JSON.stringify(config)) as TaskPushNotificationConfig,
      wireVersion: context.requestedVersion || '0.3',
      owner: ownerOf(context),
    }
    await this.records.putRecord(pushScope(taskId), config.id, value as unknown as Json)
  }

  async load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return (await this.loadWithMetadata(taskId, context)).map((s) => s.config)
  }

  async loadWithMetadata(taskId: string, context: ServerCallContext): Promise<StoredPushNotificationConfig[]> {
    const owner = ownerOf(context)
    const all = await this.records.listRecords(pushScope(taskId), '', MAX_CONFIGS)
    return all
      .map((r) => r.value as unknown as StoredConfig)
      .filter((s) => s.owner === owner)
      .map((s) => ({ config: s.config, wireVersion: s.wireVersion }))
  }

  async delete(taskId: string, context: ServerCallContext, configId: string = taskId): Promise<void> {
    const held = (await this.records.getRecord(pushScope(taskId), configId)) as unknown as StoredConfig | undefined
    if (held && held.owner === ownerOf(context)) await this.records.putRecord(pushScope(taskId), configId, undefined)
  }
}
