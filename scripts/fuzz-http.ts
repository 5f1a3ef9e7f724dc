// The HTTP dialects' half of the live fuzzer (`npm run fuzz`, scripts/fuzz.ts) and of its short version in
// `npm test` (test/fuzz.test.ts): request bodies mutated from each dialect's valid requests — truncations, wrong
// types and deep nesting anywhere in the body, invalid UTF-8, forbidden keys (real keys: written into the JSON
// text), missing fields, oversized strings (some past the frame limit), odd JSON-RPC ids, noise — POSTed to
// 127.0.0.1. The server must never answer 5xx. A dialect added later is one more entry in HTTP_TARGETS.

/** An HTTP dialect to fuzz: where its requests go and the valid requests the mutations start from. */
export interface HttpTarget {
  dialect: string
  path: string
  valid: readonly unknown[]
  /** Headers of every request, besides `content-type: application/json`. */
  headers?: Record<string, string>
  /** Runs once before the bodies (e.g. an MCP initialize) and returns headers every body then carries. */
  prepare?(base: string): Promise<Record<string, string>>
  /** The valid request for body `i`, before it is mutated (e.g. fresh JSON-RPC ids, so concurrent calls never share one). */
  number?(valid: unknown, i: number): unknown
}

const userText = (text: string) => ({ kind: 'message', messageId: 'fz-m', role: 'user', parts: [{ kind: 'text', text }] })

export const HTTP_TARGETS: readonly HttpTarget[] = [
  {
    dialect: 'agui',
    path: '/agui',
    valid: [
      {
        threadId: 'fz-agui',
        runId: 'r',
        messages: [{ id: 'u', role: 'user', content: 'hello' }],
        tools: [{ name: 't', description: 'd', parameters: { type: 'object', properties: {} } }],
        context: [{ description: 'c', value: 'v' }],
        state: { a: 1 },
        forwardedProps: { onBusy: 'interrupt' },
      },
    ],
  },
  {
    dialect: 'aisdk',
    path: '/api/chat',
    valid: [
      { id: 'fz-chat', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] },
      {
        id: 'fz-chat',
        trigger: 'regenerate-message',
        messageId: 'a1',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      },
    ],
    // A chat id per 100 bodies: a body that changes the stored user message is an edit-and-resend, which forks the
    // session (a copy of its log). One chat taking every body made each fork copy a log grown by every body before
    // it, and 100,000 bodies ran the memory-store server out of its 4 GB heap: the fuzzer's own quadratic load.
    number: (valid, i) => ({ ...(valid as object), id: `fz-chat-${Math.floor(i / 100)}` }),
  },
  {
    dialect: 'mcp',
    path: '/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    valid: [
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask_demo', arguments: { message: 'hello', sessionId: 'fz-mcp' } } },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'r' } },
    ],
    // One MCP session carries every body, each request its own id. A cancellation names a call of an earlier batch
    // (already answered): one naming a call in flight leaves that call unanswered, as MCP says, which would read as
    // a hang here (test/fuzz.test.ts races cancellations against their calls on purpose).
    number: (valid, i) => {
      const v = valid as { id?: number; params?: { requestId?: number } }
      if (v.id !== undefined) return { ...v, id: i }
      return v.params?.requestId !== undefined ? { ...v, params: { ...v.params, requestId: i - 64 } } : v
    },
    async prepare(base) {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      const init = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
        }),
      })
      await init.arrayBuffer()
      const session = init.headers.get('mcp-session-id')
      if (!session) throw new Error(`MCP initialize answered ${init.status} without a session id`)
      const s = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }
      await (
        await fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, ...s }, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })
      ).arrayBuffer()
      return s
    },
  },
  {
    dialect: 'a2a',
    path: '/a2a',
    valid: [
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userText('hello'), configuration: { blocking: true } } },
      { jsonrpc: '2.0', id: 'two', method: 'message/stream', params: { message: userText('hello') } },
      { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 'fz-task', historyLength: 2 } },
      { jsonrpc: '2.0', id: 4, method: 'tasks/cancel', params: { id: 'fz-task' } },
    ],
  },
  {
    dialect: 'openai-chat',
    path: '/v1/chat/completions',
    valid: [
      {
        model: 'demo',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hello' },
        ],
        metadata: { parlance_session: 'fz-oa' },
      },
      { model: 'demo', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
      {
        model: 'demo',
        messages: [
          { role: 'user', content: 'client' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_Zno.tc', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_Zno.tc', content: '{"x":1}' },
        ],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      },
    ],
  },
  {
    dialect: 'openai-responses',
    path: '/v1/responses',
    valid: [
      { model: 'demo', input: 'hello', instructions: 'be brief', store: false },
      {
        model: 'demo',
        stream: true,
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
        tools: [{ type: 'function', name: 'f' }],
      },
      {
        model: 'demo',
        previous_response_id: 'resp_WyJ4IiwieSIsMCwwXQ',
        input: [{ type: 'mcp_approval_response', approval_request_id: 'a', approve: true }],
      },
    ],
  },
  {
    dialect: 'langgraph-runs',
    path: '/langgraph/runs/stream',
    valid: [
      { assistant_id: 'demo', input: { messages: [{ type: 'human', content: 'hello' }] }, stream_mode: ['values', 'messages-tuple'] },
      {
        assistant_id: 'demo',
        input: { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }], id: 'fz-m' }] },
        stream_mode: 'updates',
        multitask_strategy: 'reject',
        on_disconnect: 'cancel',
        metadata: { a: 1 },
      },
      { assistant_id: 'demo', command: { resume: { decisions: [{ type: 'approve' }] } }, stream_mode: ['values'] },
    ],
  },
  {
    dialect: 'langgraph-threads',
    path: '/langgraph/threads/search',
    valid: [
      { metadata: { graph_id: 'demo' }, limit: 10, offset: 0, sort_by: 'updated_at', sort_order: 'desc' },
      { ids: ['a', 'b'], status: 'idle' },
    ],
  },
]

// ---- mutations

/** A seeded generator (the same seed gives the same bodies: a failure can be replayed). */
export function random(seed: number): () => number {
  let s = seed
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
}

const WEIRD: unknown[] = [null, true, -1, 0, 1.5, 1e308, -1e308, 2 ** 53 + 1, '', 'x'.repeat(5000), [], {}, [[[[[]]]]], '\u0000', '😀', '\ud800']
const ODD_IDS: unknown[] = [null, {}, { a: 1 }, [], [1], true, 1.5, -0, 1e308, 'x'.repeat(10_000), '']

/** `valid` as JSON with arrays nested `n` deep at `path`, built as text (JSON.stringify overflows its stack first). */
function deepAt(valid: unknown, path: ReadonlyArray<string | number>, n: number): string {
  const mark = '\u0001deep\u0001'
  return JSON.stringify(setAt(valid, path, mark)).replace(JSON.stringify(mark), `${'['.repeat(n)}1${']'.repeat(n)}`)
}

/** Every path into `v` (objects and arrays), the root included. */
function paths(v: unknown, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at)
  if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, Array.isArray(v) ? Number(k) : k], out)
  return out
}

/** A copy of `v` with the value at `path` replaced (`undefined`: removed). */
function setAt(v: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown {
  if (path.length === 0) return value
  const copy = (Array.isArray(v) ? [...(v as unknown[])] : { ...(v as Record<string, unknown>) }) as Record<string | number, unknown>
  const [head, ...rest] = path
  if (rest.length === 0 && value === undefined) delete copy[head!]
  else copy[head!] = setAt(copy[head!], rest, value)
  return copy
}

/** One mutated body (a string, or a Buffer holding invalid UTF-8) from a valid request. */
export function mutateBody(valid: unknown, rnd: () => number): string | Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const text = JSON.stringify(valid)
  const all = paths(valid)
  const inner = all.length > 1 ? all.slice(1) : all
  switch (Math.floor(rnd() * 11)) {
    case 0:
      return text.slice(0, Math.floor(rnd() * text.length)) // truncated
    case 1:
      return JSON.stringify(setAt(valid, pick(all), pick(WEIRD))) // wrong type, anywhere (the root too)
    case 2: {
      // Deep nesting anywhere: mostly past the depth limit (64), sometimes thousands deep (a recursive walk's stack).
      const n = rnd() < 0.8 ? 50 + Math.floor(rnd() * 200) : 2000 + Math.floor(rnd() * 8000)
      return deepAt(valid, pick(inner), n)
    }
    case 3: {
      const at = Math.floor(rnd() * text.length)
      return Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(text.slice(at))]) // invalid UTF-8
    }
    case 4: {
      // A forbidden key written into the text at a random object, so JSON.parse makes it a real key.
      const opens = [...text.matchAll(/\{/g)].map((m) => m.index)
      const at = pick(opens)
      const key = pick(['__proto__', 'constructor', 'prototype'])
      const filler = text[at + 1] === '}' ? '' : ','
      return `${text.slice(0, at + 1)}"${key}":{"polluted":true}${filler}${text.slice(at + 1)}`
    }
    case 5:
      return JSON.stringify(setAt(valid, pick(inner), undefined)) // missing field
    case 6: {
      // Oversized strings: mostly under the 1 MiB frame limit (the decoders' own limits), one in ten past it (413).
      const size = rnd() < 0.9 ? 10_000 + Math.floor(rnd() * 70_000) : 1024 * 1024 + Math.floor(rnd() * 65_536)
      return JSON.stringify(setAt(valid, pick(inner), 'y'.repeat(size)))
    }
    case 7: {
      // Odd JSON-RPC ids (or, elsewhere, a huge number: JSON's 1e400 parses to Infinity).
      if (valid && typeof valid === 'object' && 'jsonrpc' in valid) {
        if (rnd() < 0.3) return deepAt(valid, ['id'], rnd() < 0.5 ? 100 : 5000)
        return JSON.stringify(setAt(valid, ['id'], pick(ODD_IDS)))
      }
      return text.replace(/:(\d+|"[^"]*")/, ':1e400')
    }
    case 8:
      return pick(['', 'null', '[]', '{}', '"x"', '1', '[{}]', `[${text},${text}]`, '\u0000', '{"a":'])
    default:
      return text // valid: the server does real work between the bad bodies
  }
}

// ---- the run

/** What one dialect's fuzz found. */
export interface HttpReport {
  dialect: string
  sent: number
  /** Responses per HTTP status. */
  statuses: Record<string, number>
  /** 5xx answers: each one a bug. */
  serverErrors: number
  /** Requests that got no HTTP answer (reset, timeout). */
  noAnswer: number
  /** The first few 5xx or unanswered requests: the status, the start of the body sent and of the answer. */
  failures: Array<{ status: number | string; request: string; response: string }>
  healthy: boolean
  seconds: number
}

/** POSTs `n` mutated bodies to `target` on `base` (127.0.0.1), `concurrency` at a time, then checks /healthz. */
export async function fuzzHttp(
  base: string,
  target: HttpTarget,
  n: number,
  opts: { seed?: number; concurrency?: number; timeoutMs?: number } = {},
): Promise<HttpReport> {
  const t0 = Date.now()
  const rnd = random(opts.seed ?? 42)
  const extra = target.prepare ? await target.prepare(base) : {}
  const headers = { 'content-type': 'application/json', ...target.headers, ...extra }
  const report: HttpReport = {
    dialect: target.dialect,
    sent: 0,
    statuses: {},
    serverErrors: 0,
    noAnswer: 0,
    failures: [],
    healthy: false,
    seconds: 0,
  }
  const note = (status: number | string, body: string | Buffer, response: string) => {
    if (report.failures.length < 10)
      report.failures.push({
        status,
        request: (typeof body === 'string' ? body : body.toString('latin1')).slice(0, 200),
        response: response.slice(0, 200),
      })
  }
  const one = async (body: string | Buffer) => {
    try {
      const res = await fetch(`${base}${target.path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000) })
      const answer = await res.text()
      report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1
      if (res.status >= 500) {
        report.serverErrors++
        note(res.status, body, answer)
      }
    } catch (err) {
      report.noAnswer++
      note((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message, body, '')
    }
  }
  const concurrency = opts.concurrency ?? 16
  while (report.sent < n) {
    const batch: Array<Promise<void>> = []
    for (let i = 0; i < concurrency && report.sent < n; i++, report.sent++) {
      const valid = target.valid[Math.floor(rnd() * target.valid.length)]
      batch.push(one(mutateBody(target.number ? target.number(valid, report.sent + 1) : valid, rnd)))
    }
    await Promise.all(batch)
  }
  report.healthy = await fetch(`${base}/healthz`).then(
    (r) => r.ok,
    () => false,
  )
  report.seconds = (Date.now() - t0) / 1000
  return report
}
