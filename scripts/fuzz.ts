// npm run fuzz [-- --frames N] [--bodies N] [--dialects hai,agui,…]: a live fuzzer. Starts scripts/fuzz-server.ts in
// its own process and sends N mutated frames per socket dialect (default 100,000): truncations, wrong types, huge
// numbers, deep nesting, invalid UTF-8, forbidden keys, oversized strings — built from each dialect's valid messages;
// and N mutated request bodies per HTTP dialect (--bodies, default 100,000; scripts/fuzz-http.ts: AG-UI, /api/chat,
// MCP, A2A, and any dialect added to HTTP_TARGETS), where any 5xx is a failure. Counts frames sent, errors answered
// and connections the server closed, HTTP statuses, checks /healthz after each dialect and reads the server's RSS
// before and after each. Writes FUZZING.md (keeping what follows its hand-written marker) and bench/results/fuzz.json.
// Exit code 1 on a crash or a 5xx.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { io } from 'socket.io-client'
import { WebSocket } from 'ws'
import { fuzzHttp, HTTP_TARGETS, type HttpReport } from './fuzz-http.js'

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : undefined
}
const N = Number(arg('--frames') ?? 100_000)
const BODIES = Number(arg('--bodies') ?? 100_000)
const ONLY = arg('--dialects')?.split(',')
const chosen = (d: string) => !ONLY || ONLY.includes(d)

// ---- mutations
let seed = 42
const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
const WEIRD: unknown[] = [null, true, -1, 0, 1e308, -1e308, 2 ** 53 + 1, '', 'x'.repeat(5000), [], {}, [[[[[]]]]], '\u0000', '😀', { __proto__x: 1 }]
function deep(n: number): unknown {
  let v: unknown = 1
  for (let i = 0; i < n; i++) v = [v]
  return v
}
/** One mutated frame (a string, or a Buffer holding invalid UTF-8). */
function mutate(valid: Record<string, unknown>): string | Buffer {
  const text = JSON.stringify(valid)
  const k = pick(Object.keys(valid))
  switch (Math.floor(rnd() * 9)) {
    case 0:
      return text.slice(0, Math.floor(rnd() * text.length)) // truncated
    case 1:
      return JSON.stringify({ ...valid, [k]: pick(WEIRD) }) // wrong type
    case 2:
      return JSON.stringify({ ...valid, [k]: 10 ** (300 + Math.floor(rnd() * 10)) }) // huge number (Infinity → null)
    case 3:
      return JSON.stringify({ ...valid, [k]: deep(50 + Math.floor(rnd() * 200)) }) // deep nesting
    case 4:
      return Buffer.concat([Buffer.from(text.slice(0, 10)), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(text.slice(10))]) // invalid UTF-8
    case 5:
      return text.replace('{', `{"${pick(['__proto__', 'constructor', 'prototype'])}":{"polluted":true},`) // forbidden key
    case 6: {
      const copy: Record<string, unknown> = { ...valid }
      delete copy[k]
      return JSON.stringify(copy) // missing field
    }
    case 7:
      return JSON.stringify({ ...valid, [k]: 'y'.repeat(20_000 + Math.floor(rnd() * 50_000)) }) // oversized string
    default:
      return text // valid: keeps the server doing real work between the bad frames
  }
}

// ---- valid messages per dialect
const HAI = [
  { type: 'user_message', content: 'hello', session_id: 'fz-hai' },
  { type: 'tool_approval_response', approval_id: 'appr_x', approved: true },
  { type: 'tool_result', tool_call_id: 'call_x', result: { ok: 1 }, session_id: 'fz-hai' },
  { type: 'cancel', session_id: 'fz-hai' },
]
const MYAGENT = [
  { event: 'user.message', session_id: 'fz-my', content: 'hello' },
  { event: 'user.response', session_id: 'fz-my', step_id: 's1', content: { approved: true } },
  { event: 'user.ack', session_id: 'fz-my', content: { last_seq: 1 } },
  { event: 'user.reconnect', content: { session_id: 'fz-my', last_seq: 0 } },
  { event: 'user.cancel', session_id: 'fz-my' },
]
const HUGAI = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: 1, agentId: 'fz', capabilities: {}, governanceLevel: 'autonomous' } },
  { jsonrpc: '2.0', id: 2, method: 'agent/list' },
  { jsonrpc: '2.0', method: 'audit/log', params: { action: 'a', actor: 'b', timestamp: '2024-06-01T12:34:56Z' } },
  { jsonrpc: '2.0', id: 3, method: 'tool/integration', params: { tool: 'get_weather', action: 'x', data: { city: 'Oslo' } } },
]
const HUMA = [
  { type: 'context-update', triggering: false, name: 'n', context: { a: 1 }, description: 'hello' },
  { type: 'tool-result', triggering: false, toolCallId: 'c', toolName: 't', outcome: 'success', result: 'r' },
  { type: 'addon-tool-event', toolCallId: 'c', data: { messageIndex: 0, success: true } },
]

interface Report {
  dialect: string
  sent: number
  /** Invalid-UTF-8 frames beyond the 500 probed per dialect. */
  skipped?: number
  answered: number
  closedByServer: number
  healthy: boolean
  seconds: number
}

async function wsDialect(base: string, path: string, dialect: string, valid: Array<Record<string, unknown>>): Promise<Report> {
  const t0 = Date.now()
  let answered = 0
  let closed = 0
  let sent = 0
  let skipped = 0
  const open = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${base.replace('http', 'ws')}${path}`)
      ws.on('message', () => answered++)
      ws.once('open', () => resolve(ws))
      ws.once('error', reject)
    })
  let ws = await open()
  let probes = 0
  while (sent < N) {
    if (ws.readyState !== WebSocket.OPEN) {
      closed++
      ws = await open()
    }
    const f = mutate(pick(valid))
    if (typeof f !== 'string') {
      // Invalid UTF-8 in a text frame: RFC 6455 says close (1007). Probed on a throwaway connection so the main
      // one keeps its frames; the first 500 per dialect are sent, the rest counted as skipped.
      if (probes++ < 500) {
        sent++
        const p = await open()
        await new Promise<void>((resolve) => {
          p.once('close', (code) => {
            if (code === 1007) closed++
            resolve()
          })
          p.send(f, { binary: false })
        })
      } else skipped++
      continue
    }
    ws.send(f)
    sent++
    if (sent % 100 === 0) await new Promise<void>((r) => (ws.bufferedAmount > 0 ? setTimeout(r, 1) : setImmediate(r)))
  }
  await new Promise((r) => setTimeout(r, 500))
  ws.close()
  return { dialect, sent, skipped, answered, closedByServer: closed, healthy: await healthy(base), seconds: (Date.now() - t0) / 1000 }
}

async function humaDialect(base: string): Promise<Report> {
  const t0 = Date.now()
  let answered = 0
  let sent = 0
  let closed = 0
  const open = () =>
    new Promise<ReturnType<typeof io>>((resolve, reject) => {
      const s = io(base, { transports: ['websocket'], reconnection: false, forceNew: true })
      s.onAny(() => answered++)
      s.once('connect', () => resolve(s))
      s.once('connect_error', reject)
    })
  let s = await open()
  while (sent < N) {
    if (!s.connected) {
      closed++
      s = await open()
    }
    const f = mutate(pick(HUMA))
    let payload: unknown = typeof f === 'string' ? f : f.toString('latin1')
    try {
      payload = JSON.parse(payload as string)
    } catch {
      // sent as a string
    }
    try {
      s.emit('message', payload)
    } catch {
      s.emit('message', String(f))
    }
    sent++
    if (sent % 500 === 0) await new Promise((r) => setTimeout(r, 1))
  }
  await new Promise((r) => setTimeout(r, 500))
  s.close()
  return { dialect: 'huma', sent, answered, closedByServer: closed, healthy: await healthy(base), seconds: (Date.now() - t0) / 1000 }
}

async function healthy(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/healthz`)).ok
  } catch {
    return false
  }
}
async function rss(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  return Number(/^parlance_process_resident_memory_bytes (\d+)/m.exec(text)?.[1] ?? 0)
}

const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/fuzz-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] })
let crashed = false
child.once('exit', (code) => {
  if (code !== 0 && code !== null) crashed = true
})
const port = await new Promise<number>((resolve, reject) => {
  child.stdout.on('data', (d: Buffer) => {
    const m = /listening on (\d+)/.exec(d.toString())
    if (m) resolve(Number(m[1]))
  })
  child.once('exit', (code) => reject(new Error(`fuzz server exited ${code}`)))
})
const base = `http://127.0.0.1:${port}`
const rssBefore = await rss(base)
const reports: Array<Report & { rssBeforeBytes: number; rssAfterBytes: number }> = []
for (const [dialect, run] of [
  ['hai', () => wsDialect(base, '/ws', 'hai', HAI)],
  ['myagent', () => wsDialect(base, '/myagent', 'myagent', MYAGENT)],
  ['hugai', () => wsDialect(base, '/rpc', 'hugai', HUGAI)],
  ['huma', () => humaDialect(base)],
] as const) {
  if (!chosen(dialect)) continue
  const rssBeforeBytes = await rss(base)
  const r = { ...(await run()), rssBeforeBytes, rssAfterBytes: await rss(base) }
  reports.push(r)
  process.stderr.write(
    `  ${r.dialect}: ${r.sent} frames in ${r.seconds.toFixed(1)} s, ${r.answered} answers, ${r.closedByServer} connections closed by the server, healthy: ${r.healthy}\n`,
  )
}
const httpReports: Array<HttpReport & { rssBeforeBytes: number; rssAfterBytes: number }> = []
for (const target of HTTP_TARGETS) {
  if (!chosen(target.dialect)) continue
  const rssBeforeBytes = await rss(base)
  const r = { ...(await fuzzHttp(base, target, BODIES, { seed: 42 })), rssBeforeBytes, rssAfterBytes: await rss(base) }
  httpReports.push(r)
  process.stderr.write(
    `  ${r.dialect}: ${r.sent} bodies in ${r.seconds.toFixed(1)} s, statuses ${JSON.stringify(r.statuses)}, 5xx: ${r.serverErrors}, unanswered: ${r.noAnswer}, healthy: ${r.healthy}\n`,
  )
  for (const f of r.failures) process.stderr.write(`    ${f.status}: ${f.request} → ${f.response}\n`)
}
const rssAfter = await rss(base)
child.kill('SIGTERM')
await new Promise((r) => child.once('exit', r))
const crashes = crashed || reports.some((r) => !r.healthy) || httpReports.some((r) => !r.healthy) ? 1 : 0
const serverErrors = httpReports.reduce((n, r) => n + r.serverErrors, 0)
const result = {
  date: new Date().toISOString(),
  framesPerDialect: N,
  bodiesPerDialect: BODIES,
  reports,
  httpReports,
  rssBeforeBytes: rssBefore,
  rssAfterBytes: rssAfter,
  crashes,
  serverErrors,
}
mkdirSync('bench/results', { recursive: true })
writeFileSync('bench/results/fuzz.json', `${JSON.stringify(result, null, 2)}\n`)
const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`
const rssOf = (r: { rssBeforeBytes: number; rssAfterBytes: number }) => `${mb(r.rssBeforeBytes)} → ${mb(r.rssAfterBytes)}`
/** What follows this line in FUZZING.md is written by hand and kept when the file is generated again. */
const KEEP = '<!-- Written by hand below this line; scripts/fuzz.ts keeps it. -->'
const kept = existsSync('FUZZING.md') ? readFileSync('FUZZING.md', 'utf8').split(KEEP)[1] : undefined
const n = (x: number) => x.toLocaleString('en-US')
const command = process.argv.length > 2 ? `npm run fuzz -- ${process.argv.slice(2).join(' ')}` : 'npm run fuzz'
writeFileSync(
  'FUZZING.md',
  `# Live fuzzing\n\nGenerated by \`${command}\` (${result.date}). Server RSS: ${mb(rssBefore)} before, ${mb(rssAfter)} after. ` +
    `Crashes: **${crashes}**. 5xx answers: **${serverErrors}**. (The fuzz server uses the memory store, which keeps every event of the runs ` +
    `the valid frames and bodies started: most growth is that data.)\n\n` +
    (reports.length
      ? `## Socket dialects\n\n${n(N)} frames per dialect. Mutations of each dialect's valid messages: truncation, wrong types, huge numbers, ` +
        `deep nesting (50–250), invalid UTF-8, forbidden keys, missing fields, oversized strings (20–70 KB), and valid frames in between.\n\n` +
        `| dialect | frames sent | invalid-UTF-8 frames generated but not sent (over 500) | answers received | connections closed by the server | healthy after | server RSS before → after | seconds |\n|---|---|---|---|---|---|---|---|\n` +
        reports
          .map(
            (r) =>
              `| ${r.dialect} | ${n(r.sent)} | ${n(r.skipped ?? 0)} | ${n(r.answered)} | ${r.closedByServer} | ${r.healthy ? 'yes' : '**no**'} | ${rssOf(r)} | ${r.seconds.toFixed(1)} |`,
          )
          .join('\n') +
        `\n\nConnections closed by the server are the WebSocket library refusing invalid UTF-8 in a text frame (close 1007, as RFC 6455 requires); ` +
        `every other bad frame is answered with the dialect's error and the connection stays open. "Answers" counts every frame the server sent ` +
        `(errors, and the events of the runs the valid frames started).\n\n`
      : '') +
    (httpReports.length
      ? `## HTTP dialects\n\n${n(BODIES)} request bodies per dialect (scripts/fuzz-http.ts), 16 at a time, each mutated from a valid request: truncation, ` +
        `wrong types and deep nesting (50–250, and 2,000–10,000) anywhere in the body, invalid UTF-8, forbidden keys (real keys after parsing), missing fields, ` +
        `oversized strings (10–80 KB; one in ten past the 1 MiB frame limit), odd JSON-RPC ids (nested arrays 100 and 5,000 deep, objects, floats, ` +
        `booleans, 10 KB strings), noise and batches, and valid requests in between. A 5xx is a failure.\n\n` +
        `| dialect | bodies sent | answers by HTTP status | 5xx | unanswered | healthy after | server RSS before → after | seconds |\n|---|---|---|---|---|---|---|---|\n` +
        httpReports
          .map(
            (r) =>
              `| ${r.dialect} | ${n(r.sent)} | ${Object.entries(r.statuses)
                .map(([k, v]) => `${k}: ${n(v)}`)
                .join(', ')} | ${r.serverErrors} | ${r.noAnswer} | ${r.healthy ? 'yes' : '**no**'} | ${rssOf(r)} | ${r.seconds.toFixed(1)} |`,
          )
          .join('\n') +
        `\n\nJSON-RPC dialects answer most errors with 200 and a JSON-RPC error (A2A always; MCP with the transport's 4xx). ` +
        `"Unanswered" counts requests that got no HTTP answer within 10 s.\n\n`
      : '') +
    `A short version runs in \`npm test\` (test/fuzz.test.ts: 300 frames or bodies per dialect; src/dialects/*property*).\n\n${KEEP}` +
    (kept ?? '\n'),
)
process.exit(crashes || serverErrors ? 1 : 0)
