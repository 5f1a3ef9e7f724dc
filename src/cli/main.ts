#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { DEFAULT_LIMITS, type Limits } from '../core/index.js'
import { chat } from './chat.js'
import { serve, type ServeOptions } from './serve.js'

const USAGE = `usage:
  parlance serve [--agent demo|./agent.js]… [--port 8000] [--host 127.0.0.1] [--data ./.parlance] [--store sqlite|memory] [--token TOKEN]
                 [--store redis://127.0.0.1:6379 [--node-id ID] [--redis-prefix parlance:] [--lease-ms 5000]]   (a node of a cluster)
                 [--agent openai --model NAME]   (OPENAI_BASE_URL, OPENAI_API_KEY)
                 [--agent agui:URL]               (any AG-UI agent, e.g. agui:http://127.0.0.1:9000/agui, served over every dialect)
                 [--limit NAME=VALUE]…            (any limit of the README's table, e.g. --limit principalRatePerSec=500)
                 [--trust-proxy]                  (behind a reverse proxy: rate limits key on X-Forwarded-For's first address)
  parlance chat  [--url http://127.0.0.1:8000] [--session ID] [--token TOKEN]

environment: PORT (default port), LOG_LEVEL (pino level, default info), PARLANCE_TOKEN (default --token),
             PARLANCE_SECRET (key for signed exports), PARLANCE_NODE_ID (default --node-id), PARLANCE_REDIS_PREFIX`

/** `--limit NAME=VALUE`, repeatable: each a known limit and a non-negative integer (ms, bytes, counts or per second). */
export function parseLimits(specs: readonly string[]): Partial<Limits> {
  const out: Partial<Record<keyof Limits, number>> = {}
  const names = Object.keys(DEFAULT_LIMITS) as Array<keyof Limits>
  for (const spec of specs) {
    const m = /^([A-Za-z]+)=(\d+)$/.exec(spec)
    if (!m) throw new Error(`--limit takes NAME=VALUE with a whole number, e.g. --limit principalRatePerSec=500; got "${spec}"`)
    const name = m[1] as keyof Limits
    if (!names.includes(name)) throw new Error(`--limit: unknown limit "${m[1]}"; one of: ${names.join(', ')}`)
    out[name] = Number(m[2])
  }
  return out
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv
  if (command === 'serve') {
    const { values } = parseArgs({
      args: rest,
      options: {
        agent: { type: 'string', multiple: true },
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        store: { type: 'string' },
        token: { type: 'string' },
        model: { type: 'string' },
        'node-id': { type: 'string' },
        'redis-prefix': { type: 'string' },
        'lease-ms': { type: 'string' },
        limit: { type: 'string', multiple: true },
        'trust-proxy': { type: 'boolean' },
      },
    })
    const port = Number(values.port ?? process.env.PORT ?? 8000)
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${values.port ?? process.env.PORT}`)
    const store = values.store ?? 'sqlite'
    if (store !== 'sqlite' && store !== 'memory' && !/^rediss?:\/\/./.test(store)) {
      throw new Error(`--store must be sqlite, memory or a Redis URL (redis://host:port), not ${store}`)
    }
    const leaseMs = values['lease-ms'] === undefined ? undefined : Number(values['lease-ms'])
    if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs >= 100)) throw new Error(`--lease-ms must be an integer ≥ 100, not ${values['lease-ms']}`)
    const cluster = { nodeId: values['node-id'], prefix: values['redis-prefix'], leaseMs }
    return serve({
      port,
      host: values.host ?? '127.0.0.1',
      dataDir: values.data ?? './.parlance',
      store: store as ServeOptions['store'],
      cluster,
      agents: values.agent ?? [],
      token: values.token ?? process.env.PARLANCE_TOKEN,
      model: values.model,
      limits: parseLimits(values.limit ?? []),
      trustProxy: values['trust-proxy'] ?? false,
    })
  }
  if (command === 'chat') {
    const { values } = parseArgs({ args: rest, options: { url: { type: 'string' }, session: { type: 'string' }, token: { type: 'string' } } })
    return chat({ url: values.url ?? `http://127.0.0.1:${process.env.PORT ?? 8000}`, sessionId: values.session, token: values.token ?? process.env.PARLANCE_TOKEN })
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  throw new Error(`unknown command "${command}"\n${USAGE}`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`parlance: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(2)
})
