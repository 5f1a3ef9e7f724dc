// The raw HTTP examples of docs/dialects/*.md, run as written against a server: each `curl` command of a ```sh
// block is parsed (URL, quoted -H headers, the -d body) and sent with fetch, and the output block that follows it
// in the doc is compared with the real answer once ids and timestamps are masked — in full when the doc shows it
// whole, as an ordered subsequence when the doc trims it with "…". So the docs cannot drift from the server.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { startServer } from './harness.js'

const DOC_BASE = 'http://127.0.0.1:8000'

interface Curl {
  url: string
  headers: Record<string, string>
  body: string | undefined
}
interface Example {
  curl: Curl[]
  /** The output block that follows the command in the doc, if any. */
  output: string | undefined
}

/** Every ```sh block holding `curl` commands, with the block right after it (the output shown). */
function examples(doc: string): Example[] {
  const md = readFileSync(new URL(`../docs/dialects/${doc}`, import.meta.url), 'utf8')
  const blocks = [...md.matchAll(/^```(\w*)\n([\s\S]*?)^```\n/gm)].map((m) => ({
    lang: m[1]!,
    text: m[2]!,
    start: m.index,
    end: m.index + m[0].length,
  }))
  const out: Example[] = []
  blocks.forEach((b, i) => {
    if (b.lang !== 'sh' || !b.text.includes('curl ')) return
    const next = blocks[i + 1]
    const adjacent = next && next.lang !== 'sh' && md.slice(b.end, next.start).trim() === ''
    out.push({
      curl: b.text
        .split(/^(?=curl )/m)
        .filter((c) => c.startsWith('curl '))
        .map(parseCurl),
      output: adjacent ? next.text : undefined,
    })
  })
  return out
}

function parseCurl(command: string): Curl {
  const url = /http:\/\/127\.0\.0\.1:8000[^\s']*/.exec(command)?.[0]
  assert.ok(url, `a URL in ${command}`)
  const headers: Record<string, string> = {}
  for (const [, h] of command.matchAll(/-H '([^']*)'/g)) {
    const i = h!.indexOf(':')
    headers[h!.slice(0, i).trim().toLowerCase()] = h!.slice(i + 1).trim()
  }
  const body = /-d '([^']*)'/.exec(command)?.[1]
  return { url, headers, body }
}

/** Ids and timestamps differ per run: masked before comparing. */
const ID =
  /^(msg_|appr_|run_|res_|task_|mcp_|sess_|replay_)[\w-]*$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$|^\d{4}-\d\d-\d\dT[\d:.]+Z$/
function mask(v: unknown): unknown {
  if (typeof v === 'string') return ID.test(v) ? '<id>' : v
  if (Array.isArray(v)) return v.map(mask)
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mask(x)]))
  return v
}

/** The JSON messages of an SSE or JSON text: `data:` lines, or lines that are a JSON object. */
function messages(text: string): unknown[] {
  const out: unknown[] = []
  for (const line of text.split('\n')) {
    const json = line.startsWith('data: ') ? line.slice(6) : line.startsWith('{') ? line : undefined
    if (json === undefined || json === '[DONE]') continue
    try {
      out.push(mask(JSON.parse(json)))
    } catch {
      // a trimmed line ("…") of the doc: not compared
    }
  }
  return out
}

/** The doc's output matches the real one: equal when shown whole, an ordered subsequence when trimmed. */
function matches(documented: string, actual: string, what: string): void {
  const doc = messages(documented)
  const real = messages(actual)
  assert.ok(doc.length > 0, `${what}: the doc shows at least one message`)
  if (!documented.includes('…')) return assert.deepEqual(real, doc, what)
  let at = 0
  for (const m of doc) {
    const found = real.findIndex((r, i) => i >= at && JSON.stringify(r) === JSON.stringify(m))
    assert.ok(found >= 0, `${what}: ${JSON.stringify(m)} appears, in order, in ${JSON.stringify(real)}`)
    at = found + 1
  }
}

async function send(base: string, c: Curl, extra: Record<string, string> = {}, replace: [string, string][] = []): Promise<Response> {
  let body = c.body
  for (const [from, to] of replace) body = body?.split(from).join(to)
  return fetch(c.url.replace(DOC_BASE, base), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...c.headers, ...extra },
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(10_000),
  })
}

const idIn = (text: string, pattern: RegExp): string => {
  const id = pattern.exec(text)?.[1]
  assert.ok(id, `${pattern} in ${text.slice(0, 300)}`)
  return id
}

test('docs/dialects/aisdk.md: the turn, the approval and its exact answer, the client tool answer', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const [turn, ask, answer, toolAnswer] = examples('aisdk.md')
  matches(turn!.output!, await (await send(s.url, turn!.curl[0]!)).text(), 'AI SDK turn')
  const asked = await (await send(s.url, ask!.curl[0]!)).text()
  matches(ask!.output!, asked, 'AI SDK approval request')
  const docId = idIn(ask!.output!, /"approvalId":"(appr_\w+)"/)
  const realId = idIn(asked, /"approvalId":"(appr_\w+)"/)
  matches(answer!.output!, await (await send(s.url, answer!.curl[0]!, {}, [[docId, realId]])).text(), 'AI SDK approval answer')
  // The client tool: the doc shows the call's stream without its command; the answer's command is run as written.
  const docCall = idIn(toolAnswer!.curl[0]!.body!, /"toolCallId": "([\w-]+)"/)
  const called = await (
    await send(s.url, {
      ...toolAnswer!.curl[0]!,
      body: JSON.stringify({ id: 'chat-4', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'client' }] }] }),
    })
  ).text()
  const realCall = idIn(called, /"toolCallId":"([\w-]+)"/)
  matches(toolAnswer!.output!, await (await send(s.url, toolAnswer!.curl[0]!, {}, [[docCall, realCall]])).text(), 'AI SDK client tool answer')
})

test('docs/dialects/agui.md: the turn, the approval and its resume answer', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const [turn, ask, answer] = examples('agui.md')
  matches(turn!.output!, await (await send(s.url, turn!.curl[0]!)).text(), 'AG-UI turn')
  const asked = await (await send(s.url, ask!.curl[0]!)).text()
  matches(ask!.output!, asked, 'AG-UI approval request')
  const docId = idIn(ask!.output!, /"approvalId":"(appr_\w+)"/)
  const realId = idIn(asked, /"approvalId":"(appr_\w+)"/)
  matches(answer!.output!, await (await send(s.url, answer!.curl[0]!, {}, [[docId, realId]])).text(), 'AG-UI approval answer')
})

test('docs/dialects/mcp.md: initialize, tools/list, tools/call with progress', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const [init, listAndCall, call] = examples('mcp.md')
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const res = await send(s.url, init!.curl[0]!, headers)
  const session = res.headers.get('mcp-session-id')
  assert.ok(session, 'initialize answers an Mcp-Session-Id')
  matches(init!.output!, await res.text(), 'MCP initialize')
  const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }
  const [initialized, list] = listAndCall!.curl
  assert.equal((await send(s.url, initialized!, withSession)).status, 202)
  const tools = messages(await (await send(s.url, list!, withSession)).text())[0] as { result: { tools: { name: string }[] } }
  assert.deepEqual(
    tools.result.tools.map((x) => x.name),
    ['ask_demo'],
  )
  matches(call!.output!, await (await send(s.url, call!.curl[0]!, withSession)).text(), 'MCP tools/call')
})

test('docs/dialects/a2a.md: the cards of both versions, message/send (0.3) and SendMessage (1.0)', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const card03 = (await (await fetch(`${s.url}/.well-known/agent-card.json`)).json()) as { protocolVersion: string }
  assert.equal(card03.protocolVersion, '0.3.0', 'without A2A-Version: the 0.3 card')
  const card10 = (await (await fetch(`${s.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as {
    supportedInterfaces: { protocolVersion: string }[]
  }
  assert.deepEqual(
    card10.supportedInterfaces.map((i) => i.protocolVersion),
    ['1.0', '0.3'],
    'with A2A-Version 1.0: both versions listed',
  )
  const [send03, send10] = examples('a2a.md')
  matches(send03!.output!, await (await send(s.url, send03!.curl[0]!)).text(), 'A2A message/send')
  const r10 = messages(await (await send(s.url, send10!.curl[0]!)).text())[0] as {
    result: { task: { status: { state: string }; artifacts: unknown[] } }
  }
  const doc10 = /"status":\{"state":"(\w+)"/.exec(send10!.output!)?.[1]
  assert.equal(r10.result.task.status.state, doc10)
  assert.deepEqual(r10.result.task.artifacts, mask(JSON.parse(/"artifacts":(\[.*?\]\}\])/.exec(send10!.output!)![1]!)))
})
