// Reference: the A2A SDK's own server pieces (DefaultRequestHandler + JsonRpcTransportHandler, as its samples
// mount them, here on node:http instead of Express) with an executor that streams `count N` as Parlance's A2A
// endpoint does: the task, `working`, N appended text artifact chunks, the last chunk, `completed`.
import { createServer } from 'node:http'
import { TaskState, type AgentCard, type Part } from '@a2a-js/sdk'
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  defaultServerCallContextBuilder,
  type AgentExecutor,
} from '@a2a-js/sdk/server'

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' })
const executor: AgentExecutor = {
  async execute(rc, bus) {
    const { taskId, contextId } = rc
    const n = Number(/count (\d+)/.exec(rc.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(''))?.[1] ?? 0)
    const status = (state: TaskState) =>
      AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined })
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [rc.userMessage],
        metadata: undefined,
      }),
    )
    bus.publish(status(TaskState.TASK_STATE_WORKING))
    const chunk = (value: string, append: boolean, lastChunk: boolean) =>
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: { artifactId: 'msg_1', name: 'response', description: '', parts: [text(value)], metadata: undefined, extensions: [] },
        append,
        lastChunk,
        metadata: undefined,
      })
    for (let i = 1; i <= n; i++) {
      bus.publish(chunk(`${i} `, i > 1, false))
      if ((i & 255) === 0) await new Promise((r) => setImmediate(r)) // an agent yields now and then, as Parlance's does
    }
    bus.publish(chunk('', true, true))
    bus.publish(status(TaskState.TASK_STATE_COMPLETED))
    bus.finished()
  },
  async cancelTask() {},
}

let handler: DefaultRequestHandler | null = null
const http = createServer((req, res) => {
  const base = `http://${req.headers.host}`
  const card: AgentCard = {
    name: 'demo',
    description: 'reference',
    supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  }
  handler ??= new DefaultRequestHandler(card, new InMemoryTaskStore(), executor)
  if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card))
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (d: string) => (body += d))
  req.on('end', () => {
    void (async () => {
      const context = defaultServerCallContextBuilder({ extensions: undefined, user: undefined, headers: req.headers, requestedVersion: '1.0' })
      const out = await new JsonRpcTransportHandler(handler!).handle(JSON.parse(body) as Record<string, unknown>, context)
      if (!(Symbol.asyncIterator in (out as object))) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out))
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      for await (const ev of out as AsyncGenerator<unknown>) res.write(`data: ${JSON.stringify(ev)}\n\n`)
      res.end()
    })()
  })
})
http.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => process.stdout.write(`listening ${(http.address() as { port: number }).port}\n`))
process.once('SIGTERM', () => process.exit(0))
