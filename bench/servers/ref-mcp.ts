// Reference: the MCP SDK's own McpServer and StreamableHTTPServerTransport (stateful, as its examples mount
// them) with a tool `ask_demo` that answers `count N` as Parlance's MCP endpoint does: one progress
// notification per chunk ("i "), then the text as the result.
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

const transports = new Map<string, StreamableHTTPServerTransport>()
function session(): StreamableHTTPServerTransport {
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void transports.set(id, transport),
  })
  const server = new McpServer({ name: 'reference', version: '1' }, { capabilities: { tools: {} } })
  server.registerTool(
    'ask_demo',
    { description: 'count N', inputSchema: { message: z.string(), sessionId: z.string().optional() } },
    async (args, extra) => {
      const n = Number(/count (\d+)/.exec(args.message)?.[1] ?? 0)
      const token = extra._meta?.progressToken
      let text = ''
      for (let i = 1; i <= n; i++) {
        text += `${i} `
        if (token !== undefined)
          void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, message: `${i} ` } })
        if ((i & 255) === 0) await new Promise((r) => setImmediate(r))
      }
      return { content: [{ type: 'text', text: text.trim() }] }
    },
  )
  void server.connect(transport)
  return transport
}

const http = createServer((req, res) => {
  const id = req.headers['mcp-session-id']
  const transport = typeof id === 'string' ? transports.get(id) : session()
  if (!transport) return void res.writeHead(404).end()
  void transport.handleRequest(req, res)
})
http.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => process.stdout.write(`listening ${(http.address() as { port: number }).port}\n`))
process.once('SIGTERM', () => process.exit(0))
