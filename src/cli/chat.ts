import { createInterface } from 'node:readline/promises'
import { HaiClient, type HaiServerMessage } from '../client/index.js'

/** Options of `parlance chat`. */
export interface ChatOptions {
  url: string
  sessionId?: string
  /** Bearer token for a server started with --token. */
  token?: string
}

const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s)

/** An interactive HAI client in the terminal: streams replies, asks for approvals and client tool results. */
export async function chat(options: ChatOptions): Promise<void> {
  // A refused token would otherwise show as "connected", then a close: ask first (GET / needs the same credentials).
  const probe = await fetch(`${options.url}/`, { headers: { accept: 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) } }).catch((err: unknown) => {
    throw new Error(`cannot reach ${options.url}: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`)
  })
  await probe.body?.cancel()
  if (probe.status === 401) throw new Error(`${options.url} refused ${options.token ? 'the token' : 'the connection: it needs a token (--token or PARLANCE_TOKEN)'}`)
  const client = await HaiClient.connect({ url: options.url, sessionId: options.sessionId, resumeAfter: options.sessionId ? -1 : undefined, token: options.token })
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  process.stdout.write(dim(`connected to ${options.url} — session ${client.sessionId} (Ctrl-D to quit)\n`))
  let ended = false
  void client.closed.then(({ code, reason }) => {
    ended = true
    process.stdout.write(dim(`\nconnection closed (${code}${reason ? ` ${reason}` : ''})\n`))
    rl.close()
  })
  rl.on('close', () => {
    if (!ended) client.close()
  })
  try {
    for (;;) {
      const line = (await rl.question('you> ')).trim()
      if (!line) continue
      client.say(line)
      await turn(client, rl)
    }
  } catch {
    // readline closed (Ctrl-D) or the socket went away
  }
}

async function turn(client: HaiClient, rl: ReturnType<typeof createInterface>): Promise<void> {
  let streaming = false
  for (;;) {
    const m: HaiServerMessage = await client.next(() => true, 24 * 3600_000)
    switch (m.type) {
      case 'assistant_message_chunk':
        if (!streaming) process.stdout.write('agent> ')
        streaming = !m.is_final
        process.stdout.write(m.is_final ? `${m.content}\n` : m.content)
        break
      case 'assistant_message':
        process.stdout.write(`agent> ${m.content}\n`)
        break
      case 'status':
        if (m.status === 'completed') return
        process.stdout.write(dim(`[${m.status}${m.message ? `: ${m.message}` : ''}]\n`))
        break
      case 'tool_call_start':
        process.stdout.write(dim(`[tool ${m.tool_name} ${JSON.stringify(m.parameters)}]\n`))
        if (m.metadata?.target === 'client') {
          const answer = (await rl.question(`result of client tool ${m.tool_name} as JSON (empty: {"client":"parlance chat"}): `)).trim()
          let result: unknown = { client: 'parlance chat', platform: process.platform, node: process.version }
          if (answer) {
            try {
              result = JSON.parse(answer)
            } catch {
              result = answer
            }
          }
          client.toolResult(m.tool_call_id, { result })
        }
        break
      case 'tool_call_end':
        process.stdout.write(dim(`[tool ${m.tool_name} → ${m.result}]\n`))
        break
      case 'tool_call_error':
        process.stdout.write(dim(`[tool ${m.tool_name} failed: ${m.error}]\n`))
        break
      case 'tool_approval_request': {
        process.stdout.write(`approval needed (${m.risk_level} risk): ${m.tool_name} ${JSON.stringify(m.parameters)}\n  ${m.reasoning}\n`)
        const yes = /^y(es)?$/i.test((await rl.question('approve? [y/N] ')).trim())
        client.approve(m.approval_id, yes)
        break
      }
      case 'error':
        process.stdout.write(`error ${m.error_code}: ${m.message}\n`)
        break
    }
  }
}
