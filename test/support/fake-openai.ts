import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

type Msg = {
  role: string
  content?: string | null
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>
  tool_call_id?: string
}

/**
 * A local OpenAI-compatible chat completions server for tests (127.0.0.1, streaming). What it answers
 * depends on the last message: after a tool result it states that result; user text containing "weather"
 * or "client" asks for the get_weather / get_client_info tool (arguments split across chunks); "boom" is an
 * HTTP 500; "unauthorized" an HTTP 401; "loop" always asks for a tool; "slow" streams a chunk every 100 ms; anything else is echoed.
 * `call:NAME{json}` in the user text asks for tool NAME with those arguments (after some text with "preface"); "ponder" streams reasoning
 * (`reasoning_content`) before the answer. With `stream_options.include_usage` the stream ends with a usage
 * chunk: prompt_tokens 10 per message (2 of them cached), completion_tokens 7 (3 of them reasoning after "ponder").
 */
export async function fakeOpenAI(): Promise<{
  url: string
  requests: Array<{ messages: Msg[]; tools?: unknown[] }>
  aborted: () => number
  close(): Promise<void>
}> {
  const requests: Array<{ messages: Msg[]; tools?: unknown[] }> = []
  let aborted = 0
  const server: Server = createServer(
    (req: IncomingMessage, res) =>
      void (async () => {
        let body = ''
        for await (const c of req) body += c
        const input = JSON.parse(body) as { messages: Msg[]; tools?: unknown[]; stream_options?: { include_usage?: boolean } }
        requests.push(input)
        const last = input.messages[input.messages.length - 1]!
        const text = String(last.content ?? '')
        if (last.role === 'user' && text.includes('boom')) {
          res.writeHead(500, { 'content-type': 'application/json' })
          return void res.end(JSON.stringify({ error: { message: 'model overloaded', type: 'server_error' } }))
        }
        if (last.role === 'user' && text.includes('unauthorized')) {
          res.writeHead(401, { 'content-type': 'application/json' })
          return void res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }))
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        let closed = false
        res.on('close', () => {
          if (!res.writableEnded) {
            closed = true
            aborted++
          }
        })
        const send = (delta: Record<string, unknown>, finish: string | null = null) =>
          res.write(
            `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
          )
        const toolCall = (name: string, args: string) => {
          send({ role: 'assistant', tool_calls: [{ index: 0, id: `call_${requests.length}`, type: 'function', function: { name, arguments: '' } }] })
          send({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 5) } }] })
          send({ tool_calls: [{ index: 0, function: { arguments: args.slice(5) } }] })
          send({}, 'tool_calls')
        }
        const lastUser = String([...input.messages].reverse().find((m) => m.role === 'user')?.content ?? '')
        const asked = /call:(\w+)(\{.*\})/.exec(text)
        const ponder = lastUser.includes('ponder')
        if (ponder && last.role !== 'tool') for (const part of ['Let me ', 'think.']) send({ reasoning_content: part })
        if (asked && last.role !== 'tool') {
          if (text.includes('preface')) for (const part of ['Sure, ', 'calling it.']) send({ content: part })
          toolCall(asked[1]!, asked[2]!)
        } else if (last.role === 'tool') {
          if (lastUser.includes('loop')) toolCall('get_weather', '{"city":"Loop"}')
          else for (const part of ['The tool said: ', String(last.content)]) send({ content: part })
        } else if (text.includes('weather') || text.includes('loop')) toolCall('get_weather', '{"city":"Paris"}')
        else if (text.includes('client')) toolCall('get_client_info', '{}')
        else if (text.includes('slow')) {
          for (let i = 1; i <= 50 && !closed; i++) {
            send({ content: `${i} ` })
            // eslint-disable-next-line no-restricted-syntax -- a slow model server is the behaviour simulated (not a wait)
            await new Promise((r) => setTimeout(r, 100))
          }
        } else for (const part of ['You ', 'said: ', text]) send({ content: part })
        if (!closed) {
          if (!asked || last.role === 'tool') send({}, 'stop')
          if (input.stream_options?.include_usage) {
            const usage = {
              prompt_tokens: 10 * input.messages.length,
              completion_tokens: 7,
              prompt_tokens_details: { cached_tokens: 2 },
              completion_tokens_details: { reasoning_tokens: ponder ? 3 : 0 },
            }
            res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [], usage })}\n\n`)
          }
          res.end('data: [DONE]\n\n')
        }
      })(),
  )
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    aborted: () => aborted,
    close: () => new Promise((r) => server.close(() => r())),
  }
}
