#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { DEFAULT_LIMITS, ON_BUSY, onBusyOf, type Limits } from '../core/index.js'
import { withConfig } from './config.js'
import { parseIntegrations } from './mcp.js'
import type { ServeOptions } from './serve.js'

// The server, the dialects and the chat client are imported when a command needs them, not up front: loading the
// whole gateway costs about 0.6 s of CPU, which `--version`, `--help` and a refused flag do not need to pay.

/** `serve --help`, naming the dialects of the registry. */
const serveUsage = (dialects: readonly string[]) => `usage: parlance serve [options]

Serves agents over every dialect (${dialects.join(', ')}) from one process.

options:
  --config FILE         settings from a JSON file whose keys are these long flag names (below); flags and env override it
  --agent SPEC          demo | openai (with --model) | agui:URL | a2a:URL | ./path/to/agent.js — repeatable, the first is the default
  --model NAME          the model of --agent openai (OPENAI_BASE_URL, OPENAI_API_KEY)
  --mcp URL             an MCP server whose tools --agent openai may call, repeatable; stdio:'COMMAND ARG…' starts one
                        (arguments split on spaces) and talks to it over stdin/stdout
  --integration NAME=URL  a HugAI integration: tool/integration with tool NAME runs the MCP server's tool named by
                        action, repeatable (URL or stdio:'COMMAND ARG…')
  --port N              listen port (env PORT; default 8000; 0 picks a free one)
  --host ADDR           listen address (default 127.0.0.1)
  --store KIND          sqlite (default) | memory | redis://HOST:PORT (a node of a cluster)
  --data DIR            directory of the SQLite file (default ./.parlance)
  --token TOKEN         require a bearer token (env PARLANCE_TOKEN)
  --no-auth             serve a non-loopback --host without auth (refused otherwise: something in front must authenticate)
  --no-inspector        serve no inspector page or API (404)
  --limit NAME=VALUE    change a limit, repeatable (README "Configuration"), e.g. --limit maxConcurrentRuns=5000
  --trust-proxy         behind a reverse proxy: rate limits key on X-Forwarded-For's first address
  --allow-origin ORIGIN browser pages of this origin may call the server, repeatable (env PARLANCE_ALLOW_ORIGIN,
                        comma-separated); * allows any page. default: loopback pages when --host is loopback
  --allow-host NAME     answer this Host name too, repeatable (env PARLANCE_ALLOW_HOST); on a loopback --host
                        other names are refused (DNS rebinding)
  --allow-webhook-host HOST  A2A push webhooks may reach this internal host (a name or an IP), repeatable
                        (env PARLANCE_ALLOW_WEBHOOK_HOST, comma-separated); other internal addresses are refused
  --on-busy POLICY      a message arriving during a run: interrupt (default) | enqueue | reject | rollback
  --expose-errors       clients get an agent's failure as thrown (development); by default they get its code and
                        "the agent failed (ref …)", and the log line "run failed" has the message and stack under that ref
  --drain-timeout SEC   on SIGTERM, how long active runs may finish before they are interrupted (default 30);
                        no new run starts meanwhile and /healthz answers 503 draining. SIGINT stops at once
  --node-id ID, --redis-prefix P, --lease-ms MS   cluster settings, with --store redis://…
  --help, --version

examples:
  parlance serve                                         the demo agent on http://127.0.0.1:8000
  parlance serve --agent ./dist/my-agent.js --port 9000  your agent (its default export)
  parlance serve --agent agui:http://127.0.0.1:9000/agui any AG-UI agent, over every dialect
  parlance serve --agent a2a:http://127.0.0.1:9000       any A2A agent (its card's base URL), over every dialect
  parlance serve --agent openai --model gpt-4o-mini --mcp http://127.0.0.1:9000/mcp   a model with an MCP server's tools
  parlance serve --store redis://127.0.0.1:6379          a node of a cluster sharing that Redis
  parlance serve --config parlance.json --port 9001     the file's settings, this port

config file: {"port": 9000, "host": "0.0.0.0", "token": "…", "agent": ["./dist/my-agent.js"],
             "limit": {"maxConcurrentRuns": 5000}, "trust-proxy": true}
             a value is a string or number, a repeatable flag an array, a switch true/false; unknown keys and wrong
             types are errors naming the key. Environment variables override the file, flags override both
             (--limit adds to the file's limits; other repeatable flags replace the file's list).

environment: PORT, LOG_LEVEL (pino level, default info), PARLANCE_TOKEN, PARLANCE_SECRET (key for signed exports),
             PARLANCE_NODE_ID, PARLANCE_REDIS_PREFIX`

const CHAT_USAGE = `usage: parlance chat [options]

Talks to a running server over HAI in the terminal: streams replies, asks for approvals and client tool results.
A dropped connection is re-opened with resume (8 tries over about 25 s), so a restart loses nothing said.

options:
  --url URL       the server (default http://127.0.0.1:$PORT, else :8000)
  --session ID    continue a session, printing the conversation so far (default: a new one)
  --token TOKEN   the server's bearer token (env PARLANCE_TOKEN)
  --help, --version

examples:
  parlance chat
  parlance chat --url http://127.0.0.1:9000 --session my-session`

const BACKUP_USAGE = `usage: parlance backup --data DIR --out FILE

Copies the SQLite store of a data directory to FILE while a server may be running on it: SQLite's online backup,
consistent to one commit (a plain file copy can miss what is still in the WAL, or not open at all). Progress goes
to stderr. It reads the file only: the running server keeps its lock and goes on writing.

options:
  --data DIR     the server's data directory (default ./.parlance)
  --out FILE     the copy to write (must not exist)
  --help

restore: a new data directory holding the copy as parlance.db (and the old directory's secret file, for signed
exports to stay valid), then parlance serve --data that directory. Redis stores are backed up by Redis itself
(docs/deploy.md).

examples:
  parlance backup --data /var/lib/parlance --out /backups/parlance-$(date +%F).db`

const USAGE = `usage: parlance <command> [options]

commands:
  serve   serve agents over every dialect (parlance serve --help)
  chat    talk to a running server in the terminal (parlance chat --help)
  backup  copy a data directory's SQLite store while it serves (parlance backup --help)

parlance --version prints the version.`

/** The command's version and its package, from package.json. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string }
  return `parlance ${pkg.version} (${pkg.name})`
}

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

/** A comma-separated list from the environment; undefined when unset or empty. */
function listEnv(name: string): string[] | undefined {
  const list = (process.env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return list.length ? list : undefined
}

/** `--allow-origin` (`*` alone: any page) and `--allow-host`, as serve options. */
function originFlags(origins: string[] | undefined, hosts: string[] | undefined): Pick<ServeOptions, 'origins' | 'allowedHosts'> {
  if (origins?.includes('*') && origins.length > 1) throw new Error('--allow-origin * allows every page already; give it alone, or list origins')
  return {
    ...(origins ? { origins: origins.includes('*') ? '*' : origins } : {}),
    ...(hosts ? { allowedHosts: hosts } : {}),
  }
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv
  if (command === '--version' || command === '-v' || rest.includes('--version')) {
    process.stdout.write(`${version()}\n`)
    return
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (command === 'serve') {
    if (rest.includes('--help') || rest.includes('-h')) {
      const { DIALECTS } = await import('../dialects/registry.js')
      return void process.stdout.write(`${serveUsage(DIALECTS.map((d) => d.name))}\n`)
    }
    const flags = {
      config: { type: 'string' },
      agent: { type: 'string', multiple: true },
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      store: { type: 'string' },
      token: { type: 'string' },
      model: { type: 'string' },
      mcp: { type: 'string', multiple: true },
      integration: { type: 'string', multiple: true },
      'node-id': { type: 'string' },
      'redis-prefix': { type: 'string' },
      'lease-ms': { type: 'string' },
      limit: { type: 'string', multiple: true },
      'trust-proxy': { type: 'boolean' },
      'allow-origin': { type: 'string', multiple: true },
      'allow-host': { type: 'string', multiple: true },
      'allow-webhook-host': { type: 'string', multiple: true },
      'on-busy': { type: 'string' },
      'expose-errors': { type: 'boolean' },
      'drain-timeout': { type: 'string' },
      'no-auth': { type: 'boolean' },
      'no-inspector': { type: 'boolean' },
    } as const
    // The config file beneath the environment beneath the flags (src/cli/config.ts).
    const values = withConfig(parseArgs({ args: rest, options: flags }).values, flags, process.env, Object.keys(DEFAULT_LIMITS))
    const port = Number(values.port ?? process.env.PORT ?? 8000)
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${values.port ?? process.env.PORT}`)
    if (values.model !== undefined && !(values.agent ?? []).includes('openai'))
      throw new Error('--model applies to --agent openai only; add --agent openai, or drop --model')
    if (values.mcp?.length && !(values.agent ?? []).includes('openai'))
      throw new Error(
        '--mcp gives its tools to --agent openai; add --agent openai --model NAME (your own agent takes mcpTools() from parlance-gateway/agents/mcp)',
      )
    const integrations = parseIntegrations(values.integration ?? [])
    if (values.data !== undefined && values.data.trim() === '') throw new Error('--data needs a directory, e.g. --data ./.parlance')
    const store = values.store ?? 'sqlite'
    if (store !== 'sqlite' && store !== 'memory' && !/^rediss?:\/\/./.test(store)) {
      throw new Error(`--store must be sqlite, memory or a Redis URL (redis://host:port), not ${store}`)
    }
    const leaseMs = values['lease-ms'] === undefined ? undefined : Number(values['lease-ms'])
    if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs >= 100))
      throw new Error(`--lease-ms must be an integer ≥ 100, not ${values['lease-ms']}`)
    const cluster = { nodeId: values['node-id'], prefix: values['redis-prefix'], leaseMs }
    const token = values.token ?? process.env.PARLANCE_TOKEN
    if (values['no-auth'] && token) throw new Error('--no-auth turns auth off, but a token is set (--token or PARLANCE_TOKEN): choose one')
    const drainTimeout = values['drain-timeout'] === undefined ? undefined : Number(values['drain-timeout'])
    if (drainTimeout !== undefined && !(Number.isFinite(drainTimeout) && drainTimeout >= 0))
      throw new Error(`--drain-timeout takes seconds (a number ≥ 0, e.g. --drain-timeout 30), not ${values['drain-timeout']}`)
    const onBusy = values['on-busy'] === undefined ? undefined : onBusyOf(values['on-busy'])
    if (values['on-busy'] !== undefined && !onBusy) throw new Error(`--on-busy must be one of ${ON_BUSY.join(', ')}, not ${values['on-busy']}`)
    const { serve } = await import('./serve.js')
    return serve({
      port,
      host: values.host ?? '127.0.0.1',
      dataDir: values.data ?? './.parlance',
      store: store as ServeOptions['store'],
      cluster,
      agents: values.agent ?? [],
      token,
      allowUnauthenticated: values['no-auth'] ?? false,
      inspector: !values['no-inspector'],
      model: values.model,
      limits: parseLimits(values.limit ?? []),
      trustProxy: values['trust-proxy'] ?? false,
      ...originFlags(values['allow-origin'] ?? listEnv('PARLANCE_ALLOW_ORIGIN'), values['allow-host'] ?? listEnv('PARLANCE_ALLOW_HOST')),
      ...(onBusy ? { onBusy } : {}),
      ...(values['expose-errors'] ? { exposeErrors: true } : {}),
      ...(drainTimeout !== undefined ? { drainTimeoutMs: Math.round(drainTimeout * 1000) } : {}),
      allowWebhookHosts: values['allow-webhook-host'] ?? listEnv('PARLANCE_ALLOW_WEBHOOK_HOST') ?? [],
      ...(values.mcp?.length ? { mcp: values.mcp } : {}),
      ...(Object.keys(integrations).length ? { integrations } : {}),
    })
  }
  if (command === 'backup') {
    if (rest.includes('--help') || rest.includes('-h')) return void process.stdout.write(`${BACKUP_USAGE}\n`)
    const { values } = parseArgs({ args: rest, options: { data: { type: 'string' }, out: { type: 'string' } } })
    if (!values.out) throw new Error('backup needs --out FILE, the copy to write (e.g. --out ./parlance-backup.db)')
    const { backup } = await import('./backup.js')
    return backup({ dataDir: values.data ?? './.parlance', out: values.out })
  }
  if (command === 'chat') {
    if (rest.includes('--help') || rest.includes('-h')) return void process.stdout.write(`${CHAT_USAGE}\n`)
    const { values } = parseArgs({ args: rest, options: { url: { type: 'string' }, session: { type: 'string' }, token: { type: 'string' } } })
    const { chat } = await import('./chat.js')
    return chat({
      url: values.url ?? `http://127.0.0.1:${process.env.PORT ?? 8000}`,
      sessionId: values.session,
      token: values.token ?? process.env.PARLANCE_TOKEN,
    })
  }
  throw new Error(`unknown command "${command}"\n${USAGE}`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err)
  const badOption = (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')
  const command = process.argv[2] === 'chat' || process.argv[2] === 'backup' ? process.argv[2] : 'serve'
  process.stderr.write(`parlance: ${message}${badOption ? `\nsee: parlance ${command} --help` : ''}\n`)
  process.exit(2)
})
