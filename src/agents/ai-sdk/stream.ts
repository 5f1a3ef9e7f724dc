import type { LanguageModelUsage, TextStreamPart, ToolSet } from 'ai'
import type { RunContext } from '../../agent-api/index.js'
import type { TokenUsage } from '../../core/index.js'
import type { ToolHooks } from './tools.js'
import { TextQueue } from '../text-queue.js'
import { endChatSpan, failSpan, startChatSpan, type Span } from '../../telemetry/index.js'

/** The text or reasoning message being streamed, if any. */
interface Block {
  kind: 'text' | 'reasoning'
  id: string
  feed: TextQueue
  done: Promise<unknown>
}

/** What reading a run's stream found out. */
export interface StreamOutcome {
  /** Model calls made. */
  steps: number
  /** Tool calls the last model call made (when the loop stopped there, the model never answered them). */
  lastCalls: number
  /** The first error the stream reported. */
  error: unknown
  aborted: boolean
}

/** What a `usage` report needs besides the counts. */
export interface ModelName {
  model: string
  provider?: string
}

/**
 * Reads `streamText`'s full stream into the run: text and reasoning stream as messages (`ctx.say`,
 * `ctx.think`), closed before a tool call so the call follows the text it came after; each model call's usage
 * is recorded; tools the provider itself ran are recorded as external tools. Tools that run here record
 * themselves (see tools.ts): they wait on `hooks.seen` until this reader has passed their call.
 */
export class StreamReader implements ToolHooks {
  private block: Block | undefined
  private readonly passed = new Set<string>()
  private readonly waiting = new Map<string, () => void>()
  private finished = false
  private readonly providerCalls = new Map<string, { toolName: string; input: unknown }>()
  /** The span of the model call under way (to `finish-step`), and when the next call was sent (the start or the last `finish-step`). */
  private call: Span | null = null
  private nextCallAt = 0

  constructor(
    private readonly ctx: RunContext,
    private readonly name: ModelName,
  ) {}

  seen(toolCallId: string): Promise<void> {
    if (this.finished || this.passed.has(toolCallId)) return this.closeBlock()
    return new Promise<void>((resolve) => this.waiting.set(toolCallId, resolve))
  }

  async read(stream: AsyncIterable<TextStreamPart<ToolSet>>): Promise<StreamOutcome> {
    const outcome: StreamOutcome = { steps: 0, lastCalls: 0, error: undefined, aborted: false }
    let calls = 0
    // The SDK reports a step once the model's response starts (`start-step`), or only an error if it fails first.
    this.nextCallAt = Date.now()
    try {
      for await (const part of stream) {
        switch (part.type) {
          case 'text-delta':
          case 'reasoning-delta':
            if (part.text) {
              const kind = part.type === 'text-delta' ? 'text' : 'reasoning'
              // One message at a time: the last one ends before the next starts.
              if (this.block && (this.block.kind !== kind || this.block.id !== part.id)) await this.closeBlock()
              this.write(kind, part.id, part.text)
            }
            break
          case 'text-end':
          case 'reasoning-end':
            if (this.block?.id === part.id) await this.closeBlock()
            break
          case 'tool-call':
            calls++
            await this.closeBlock()
            this.pass(part.toolCallId)
            if (part.providerExecuted) this.providerCalls.set(part.toolCallId, { toolName: part.toolName, input: part.input })
            break
          case 'tool-result':
          case 'tool-error':
            if (part.providerExecuted)
              await this.providerTool(part.toolCallId, part.type === 'tool-result' ? { output: part.output } : { error: part.error })
            break
          case 'start-step':
            this.call?.end()
            this.call = this.startCall()
            break
          case 'finish-step':
            if (this.call) {
              endChatSpan(this.call, {
                responseModel: part.response.modelId,
                responseId: part.response.id,
                finishReason: part.finishReason,
                ...(part.usage.inputTokens !== undefined ? { inputTokens: part.usage.inputTokens } : {}),
                ...(part.usage.outputTokens !== undefined ? { outputTokens: part.usage.outputTokens } : {}),
              })
              this.call = null
            }
            this.nextCallAt = Date.now()
            await this.closeBlock()
            outcome.steps++
            outcome.lastCalls = calls
            calls = 0
            await this.usage(part.usage)
            break
          case 'error':
            outcome.error ??= part.error
            this.call ??= this.startCall()
            this.failCall(part.error)
            break
          case 'abort':
            outcome.aborted = true
            break
          default:
            break
        }
      }
      await this.closeBlock()
    } catch (err) {
      outcome.error ??= err
    } finally {
      if (this.call) this.failCall(outcome.error ?? (outcome.aborted ? this.ctx.signal.reason : new Error('the model stream ended mid-call')))
      this.finished = true
      for (const resolve of this.waiting.values()) resolve()
      this.waiting.clear()
      this.block?.feed.end()
    }
    return outcome
  }

  /** The span of a model call sent at `nextCallAt`. */
  private startCall(): Span {
    return startChatSpan(this.name.provider?.split('.')[0] || 'unknown', this.name.model, undefined, this.nextCallAt)
  }

  /** Ends the model call under way, if any, as failed with `err`. */
  private failCall(err: unknown): void {
    if (!this.call) return
    failSpan(this.call, err)
    this.call = null
  }

  private write(kind: Block['kind'], id: string, text: string): void {
    if (!this.block) {
      const feed = new TextQueue()
      const done = kind === 'text' ? this.ctx.say(feed) : this.ctx.think(feed)
      done.catch(() => {}) // the run ending is reported by the run, not by this message
      this.block = { kind, id, feed, done }
    }
    this.block.feed.push(text)
  }

  private async closeBlock(): Promise<void> {
    const b = this.block
    if (!b) return
    this.block = undefined
    b.feed.end()
    await b.done.catch(() => {})
  }

  private pass(toolCallId: string): void {
    this.passed.add(toolCallId)
    this.waiting.get(toolCallId)?.()
    this.waiting.delete(toolCallId)
  }

  /** A tool the provider ran (a hosted search, say): shown as a server tool with its result. */
  private async providerTool(toolCallId: string, result: { output: unknown } | { error: unknown }): Promise<void> {
    const call = this.providerCalls.get(toolCallId)
    if (!call) return
    this.providerCalls.delete(toolCallId)
    const args = call.input !== null && typeof call.input === 'object' ? (call.input as Record<string, unknown>) : {}
    const outcome =
      'output' in result
        ? Promise.resolve(JSON.parse(JSON.stringify(result.output ?? null)))
        : Promise.reject(result.error instanceof Error ? result.error : new Error(String(result.error)))
    await this.ctx.externalTool(call.toolName, args, outcome).catch(() => {})
  }

  private async usage(u: LanguageModelUsage | undefined): Promise<void> {
    if (!u) return
    const counts: TokenUsage = {}
    if (u.inputTokens !== undefined) counts.inputTokens = u.inputTokens
    if (u.outputTokens !== undefined) counts.outputTokens = u.outputTokens
    const reasoning = u.outputTokenDetails?.reasoningTokens
    if (reasoning !== undefined) counts.reasoningTokens = reasoning
    const cached = u.inputTokenDetails?.cacheReadTokens
    if (cached !== undefined) counts.cachedInputTokens = cached
    if (Object.keys(counts).length === 0) return
    await this.ctx.usage({ ...this.name, ...counts })
  }
}
