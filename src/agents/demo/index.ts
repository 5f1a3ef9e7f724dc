import { defineAgent, type RunContext } from '../../agent-api/index.js'
import { ParlanceError } from '../../core/index.js'

/** Largest N accepted by `count N`. */
export const MAX_COUNT = 1_000_000

/**
 * Splits text into at least 3 chunks of about 16 characters, for a visible
 * stream. Splits between code points, never inside a surrogate pair: a chunk
 * ending in half an emoji is a lone surrogate, which strict JSON parsers reject.
 */
export function chunks(text: string, min = 3): string[] {
  const chars = Array.from(text)
  const n = Math.max(min, Math.ceil(chars.length / 16))
  const size = Math.max(1, Math.ceil(chars.length / n))
  const out: string[] = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''))
  return out
}

function* counting(n: number): Generator<string> {
  for (let i = 1; i <= n; i++) yield `${i} `
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(t)
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

async function* slowly(n: number, ms: number, signal: AbortSignal): AsyncGenerator<string> {
  for (let i = 1; i <= n; i++) {
    await sleep(ms, signal)
    yield `${i} `
  }
}

const say = (ctx: RunContext, text: string) => ctx.say(chunks(text))

async function weather(ctx: RunContext, text: string): Promise<void> {
  const city = /\bin\s+([A-Za-z][\w-]*)/i.exec(text)?.[1] ?? 'Amsterdam'
  await ctx.status('routing', 'Routing to the weather tool')
  await ctx.status('executing_tools', `Looking up the weather in ${city}`)
  const w = await ctx.callTool<{ city: string; temperature_c: number; conditions: string }>('get_weather', { city })
  await say(ctx, `The weather in ${w.city} is ${w.conditions} at ${w.temperature_c} °C.`)
}

async function remove(ctx: RunContext): Promise<void> {
  const args = { path: 'notes/demo.txt' }
  // HAI's approval flow: status thinking, then the approval request.
  await ctx.status('thinking', 'Deciding whether deleting notes/demo.txt needs your approval')
  const answer = await ctx.approve({ tool: 'delete_file', args, risk: 'high', reasoning: 'You asked me to delete the demo notes file.' })
  if (answer.by === 'timeout') return void (await say(ctx, 'The approval request timed out, so notes/demo.txt was not deleted.'))
  if (!answer.approved)
    return void (await say(ctx, `Not approved, so notes/demo.txt was not deleted.${answer.feedback ? ` (${answer.feedback})` : ''}`))
  await ctx.status('executing_tools', 'Deleting notes/demo.txt')
  const result = await ctx.callTool('delete_file', args)
  await say(ctx, `Done: ${typeof result === 'string' ? result : JSON.stringify(result)}.`)
}

async function plan(ctx: RunContext): Promise<void> {
  const p = await ctx.plan(['Gather requirements', 'Draft the answer', 'Review'])
  const percents = [33, 66, 100]
  for (const [i, task] of p.tasks.entries()) {
    await ctx.step(task.title, () => ctx.progress(percents[i]!, { plan: p, taskId: task.id, message: `${task.title} (${i + 1}/${p.tasks.length})` }))
  }
  await say(ctx, 'The plan is complete: requirements gathered, answer drafted and reviewed.')
}

/**
 * The demo agent: deterministic, no network. Behaviour by trigger word (see
 * ARCHITECTURE.md): weather, delete, plan, state, fail, count N, slow, client, burst;
 * anything else is echoed.
 */
export const demoAgent = defineAgent({
  name: 'demo',
  description: 'Deterministic demo agent: echo, weather tool, approvals, plans, state, failures, load and client tools.',
  tools: {
    get_weather: {
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: (args) => ({ city: String(args.city), temperature_c: 18, conditions: 'cloudy' }),
    },
    delete_file: {
      description: 'Deletes a file permanently',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      execute: (args) => `deleted ${String(args.path)}`,
    },
    flaky_tool: {
      description: 'A tool that always fails',
      execute: () => {
        throw new Error('flaky_tool is out of order')
      },
    },
    get_client_info: {
      description: 'Information about the client (runs in the client)',
      parameters: { type: 'object', properties: {} },
    },
  },
  async run(ctx) {
    const text = ctx.input.text
    const lower = text.toLowerCase()
    if (lower.includes('weather')) return weather(ctx, text)
    if (lower.includes('delete')) return remove(ctx)
    if (lower.includes('plan')) return plan(ctx)
    if (lower.includes('state')) {
      await ctx.setState({ counter: 0 })
      await ctx.setState([{ op: 'replace', path: '/counter', value: 1 }])
      return void (await say(ctx, 'State updated: counter is 1.'))
    }
    if (lower.includes('fail')) {
      await ctx.status('executing_tools', 'Running flaky_tool')
      try {
        await ctx.callTool('flaky_tool', {})
      } catch (err) {
        // Deliberate and documented (the `fail` walkthrough in each dialect's doc): shown to clients as it is.
        throw new ParlanceError('execution_error', `the run failed: ${(err as Error).message}`, undefined, { cause: err, expose: true })
      }
      return
    }
    const count = /\bcount\s+(\d{1,7})\b/.exec(lower)
    if (count) {
      const n = Number(count[1])
      if (n > MAX_COUNT) throw new ParlanceError('invalid_message', `count is limited to ${MAX_COUNT}`, undefined, { expose: true })
      return void (await ctx.say(counting(n)))
    }
    if (lower.includes('slow')) return void (await ctx.say(slowly(50, 100, ctx.signal)))
    if (lower.includes('client')) {
      await ctx.status('executing_tools', 'Asking the client for get_client_info')
      const info = await ctx.callTool('get_client_info', {})
      return void (await say(ctx, `Client info: ${JSON.stringify(info)}`))
    }
    if (lower.includes('burst')) {
      // A messaging burst: three whole messages, each confirmed by a client that confirms delivery (HUMA).
      const sent = await ctx.send(['Here is the first message.', 'And a second one.', 'That was the burst.'])
      if (!sent.ok) {
        throw new ParlanceError('execution_error', `delivered ${sent.delivered} of 3 messages: ${sent.error ?? 'delivery failed'}`, undefined, {
          expose: true,
        })
      }
      return
    }
    await ctx.status('thinking', 'Assistant is thinking...')
    await say(ctx, `Echo: ${text}`)
  },
})
