// The HTTP dialects from a browser page, each through its official client: the AI SDK's DefaultChatTransport
// (`ai` 6, what useChat uses), @ag-ui/client's HttpAgent, the MCP SDK's StreamableHTTPClientTransport + Client
// and the @a2a-js/sdk client (built from the agent card). Cross-origin, every one of them needs CORS.
import { EventType, HttpAgent } from '@ag-ui/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk'
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import { connectA2a } from '../../src/dialects/a2a/client.js'
import { uid } from './util.js'

type ToolPart = UIMessage['parts'][number] & { toolCallId: string; state: string; approval?: { id: string } }

const user = (text: string): UIMessage => ({ id: uid(), role: 'user', parts: [{ type: 'text', text }] })
const textOf = (m: UIMessage | undefined) => (m?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')
const chat = (base: string) => new DefaultChatTransport({ api: `${base}/api/chat` })

/** Reads a UI message stream with the `ai` package's own reader; the last state of the assistant message. */
async function read(stream: ReadableStream<UIMessageChunk>, message?: UIMessage): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined
  for await (const m of readUIMessageStream({ stream, ...(message ? { message } : {}) })) last = m
  return last
}

/** AI SDK: one message in a new chat, the streamed reply. */
export async function aisdk(base: string, text: string): Promise<string> {
  const stream = await chat(base).sendMessages({
    chatId: `chat-${uid()}`,
    trigger: 'submit-message',
    messageId: undefined,
    messages: [user(text)],
    abortSignal: undefined,
  })
  return textOf(await read(stream))
}

/** AI SDK approval: "delete" asks (tool part `approval-requested`); the next request answers it approved. */
export async function aisdkApproval(base: string): Promise<{ asked: string; reply: string }> {
  const transport = chat(base)
  const chatId = `chat-${uid()}`
  const question = user('delete the notes')
  const first = await read(
    await transport.sendMessages({ chatId, trigger: 'submit-message', messageId: undefined, messages: [question], abortSignal: undefined }),
  )
  const asking = first?.parts.find((p) => (p as ToolPart).state === 'approval-requested') as ToolPart | undefined
  if (!first || !asking?.approval) throw new Error(`no approval request in ${JSON.stringify(first)}`)
  const answered: UIMessage = {
    ...first,
    parts: first.parts.map((p) =>
      p === asking ? ({ ...asking, state: 'approval-responded', approval: { id: asking.approval!.id, approved: true } } as never) : p,
    ),
  }
  const second = await read(
    await transport.sendMessages({ chatId, trigger: 'submit-message', messageId: undefined, messages: [question, answered], abortSignal: undefined }),
    answered,
  )
  return { asked: (asking as { toolName?: string }).toolName ?? '', reply: textOf(second) }
}

/**
 * AI SDK resume, first half (the page before its reload): what useChat({ resume: true }) does when a chat page
 * opens (`reconnectToStream` on a chat with no run: null, the server's 204), then a message whose answer counts.
 * Resolves once 3 numbers have arrived and goes on reading: the test reloads the page mid-stream.
 */
export async function aisdkResumeStart(base: string, chatId: string, text: string): Promise<{ before: 'none' | 'stream'; partial: string }> {
  const transport = chat(base)
  const before = (await transport.reconnectToStream({ chatId })) === null ? 'none' : 'stream'
  const stream = await transport.sendMessages({
    chatId,
    trigger: 'submit-message',
    messageId: undefined,
    messages: [user(text)],
    abortSignal: undefined,
  })
  return new Promise((resolve, reject) => {
    const reading = async () => {
      let partial = ''
      for await (const m of readUIMessageStream({ stream })) {
        partial = textOf(m)
        if (partial.trim().split(' ').length >= 3) resolve({ before, partial })
      }
      reject(new Error(`the stream ended before the page was reloaded: ${partial}`))
    }
    reading().catch(reject)
  })
}

/**
 * AI SDK resume, second half (the reloaded page): `reconnectToStream` re-attaches and reads to the end; then 204
 * again. Once the re-attached stream's answer has arrived (status 200, its headers read), `resumeAttached` names
 * the chat: the test waits for that before it lets the run go on.
 */
export async function aisdkResumeFinish(base: string, chatId: string): Promise<{ resumed: string; after: 'none' | 'stream' }> {
  const transport = chat(base)
  const stream = await transport.reconnectToStream({ chatId })
  if (!stream) throw new Error('nothing to resume')
  ;(globalThis as { resumeAttached?: string }).resumeAttached = chatId
  const resumed = textOf(await read(stream))
  return { resumed, after: (await transport.reconnectToStream({ chatId })) === null ? 'none' : 'stream' }
}

/** AG-UI: @ag-ui/client's HttpAgent, one run; the TEXT_MESSAGE_CONTENT deltas (collected, checked after the run). */
export async function agui(base: string, text: string): Promise<string> {
  const agent = new HttpAgent({ url: `${base}/agui`, threadId: `thread-${uid()}` })
  agent.addMessage({ id: uid(), role: 'user', content: text })
  const deltas: string[] = []
  let failed = ''
  await agent.runAgent(
    {},
    {
      onEvent({ event }) {
        if (event.type === EventType.TEXT_MESSAGE_CONTENT) deltas.push((event as unknown as { delta: string }).delta)
        if (event.type === EventType.RUN_ERROR) failed = JSON.stringify(event)
      },
    },
  )
  if (failed) throw new Error(`AG-UI RUN_ERROR ${failed}`)
  return deltas.join('')
}

/** MCP: the SDK's Client over StreamableHTTPClientTransport (reads `mcp-session-id`): list tools, call `ask_demo`, close. */
export async function mcp(base: string, text: string): Promise<{ tools: string[]; reply: string; sessionId: string }> {
  const client = new Client({ name: 'browser-origins', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', base))
  await client.connect(transport)
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name)
    const r = await client.callTool({ name: 'ask_demo', arguments: { message: text, sessionId: `mcp-${uid()}` } })
    const reply = (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('')
    return { tools, reply, sessionId: transport.sessionId ?? '' }
  } finally {
    await transport.terminateSession().catch(() => {})
    await client.close()
  }
}

/** A2A: the @a2a-js/sdk client built from the demo agent's card, one blocking SendMessage; the task's text. */
export async function a2a(base: string, text: string): Promise<{ state: string; reply: string }> {
  const client = await connectA2a({ url: base, agent: 'demo' })
  const message: Message = {
    messageId: uid(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  }
  const r = await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined })
  if (!r || typeof r !== 'object' || !('status' in r)) throw new Error(`A2A: not a task: ${JSON.stringify(r)}`)
  const task: Task = r
  const reply = task.artifacts
    .filter((a) => a.name === 'response')
    .flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')))
    .join('')
  return { state: TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED], reply }
}
