// An MCP server built with the MCP SDK, for the tests of `mcpTools` and HugAI integrations: over streamable HTTP on
// 127.0.0.1 (stateful sessions, so a restarted server does not know the old session), or over stdio (stdio.ts).
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import * as z from 'zod'

/** What the fixture's tools saw: calls by name, and cancellations of `wait`. */
export interface McpLog {
  calls: string[]
  cancelled: number
}

/**
 * A server with: `run-tests` (reports progress 1/3…3/3, answers structured content), `echo` (text), `fail`
 * (a result with isError), `wait` (never answers until cancelled).
 */
export function buildMcpServer(log: McpLog = { calls: [], cancelled: 0 }): McpServer {
  const server = new McpServer({ name: 'fixture-ci', version: '1.0.0' })
  server.registerTool(
    'run-tests',
    { description: 'Runs the test suite of a branch', inputSchema: { branch: z.string() } },
    async ({ branch }, extra) => {
      log.calls.push('run-tests')
      const token = extra._meta?.progressToken
      for (let i = 1; i <= 3; i++) {
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: 3, message: `suite ${i} of 3` },
          })
      }
      const outcome = { branch, passed: 12, failed: 0 }
      return { content: [{ type: 'text', text: JSON.stringify(outcome) }], structuredContent: outcome }
    },
  )
  server.registerTool('echo', { description: 'Says the text back', inputSchema: { text: z.string() } }, ({ text }) => {
    log.calls.push('echo')
    return { content: [{ type: 'text', text: `echo: ${text}` }] }
  })
  server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, () => {
    log.calls.push('fail')
    return { content: [{ type: 'text', text: 'the build is broken' }], isError: true }
  })
  server.registerTool('wait', { description: 'Waits until cancelled', inputSchema: {} }, (_args, extra) => {
    log.calls.push('wait')
    return new Promise((_resolve, reject) => {
      extra.signal.addEventListener('abort', () => {
        log.cancelled++
        reject(new Error('cancelled'))
      })
    })
  })
  return server
}

/** A running HTTP MCP server: `url` is its endpoint; `stop` closes it (the port is then free to listen on again). */
export interface McpHttpFixture {
  url: string
  port: number
  log: McpLog
  stop(): Promise<void>
}

/** Starts the fixture server over streamable HTTP at `http://127.0.0.1:<port>/mcp` (port 0: a free one). */
export async function startMcpHttp(port = 0, log: McpLog = { calls: [], cancelled: 0 }): Promise<McpHttpFixture> {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http: Server = createServer((req, res) => {
    void (async () => {
      if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end()
      const sid = req.headers['mcp-session-id']
      if (typeof sid === 'string') {
        const known = sessions.get(sid)
        if (!known) {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }))
          return
        }
        return known.handleRequest(req, res)
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
      })
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId)
      }
      await buildMcpServer(log).connect(transport)
      await transport.handleRequest(req, res)
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(port, '127.0.0.1', () => resolve())
  })
  const actual = (http.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${actual}/mcp`,
    port: actual,
    log,
    async stop() {
      for (const t of sessions.values()) await t.close().catch(() => {})
      sessions.clear()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}
