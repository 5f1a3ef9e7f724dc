import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'
import { checkJsonShape, ParlanceError, rpcEnvelopeError, rpcError as rpcErrorOf, type OnBusy, type Principal } from '../../core/index.js'
import { BodyError, readBody, sendJson, type Dialect, type Endpoint, type EndpointDeps } from '../../binding/index.js'
import { ask } from './ask.js'
import { askToolName } from './mapping.js'
import { ResumeBuffer } from './events.js'
import { capabilities } from './capabilities.js'
import { MCP_ERRORS, MCP_RPC, mcpRpcError } from './errors.js'

interface McpSession {
  transport: StreamableHTTPServerTransport
  server: McpServer
  principal: Principal
  /** Requests (and SSE streams) of this MCP session still open, and when the last one ended or began. */
  inFlight: number
  lastSeen: number
}

/**
 * The Model Context Protocol over streamable HTTP at `/mcp` (the official SDK's server and transport): each
 * agent is a tool, `ask_<agent>`, whose call runs the agent as a turn of a Parlance session (see ask.ts). MCP
 * sessions (`Mcp-Session-Id`) belong to the principal that initialized them.
 */
export const mcpDialect: Dialect = { name: 'mcp', capabilities, mount: (deps) => mcpEndpoint(deps) }

function mcpEndpoint(deps: EndpointDeps): Endpoint {
  const open = new Map<string, McpSession>()
  // Clients that never send DELETE would otherwise keep their MCP session (and its resume window) for good.
  const idleMs = deps.limits.mcpSessionIdleMs
  const sweep = setInterval(
    () => {
      const now = Date.now()
      for (const [id, s] of open) {
        if (s.inFlight > 0 || now - s.lastSeen < idleMs) continue
        open.delete(id)
        void s.server.close().catch(() => {})
      }
    },
    Math.max(50, Math.min(60_000, Math.floor(idleMs / 2))),
  )
  sweep.unref()
  return {
    dialect: 'mcp',
    paths: { mcp: '/mcp' },
    request(req, res, url) {
      if (url.pathname !== '/mcp' && url.pathname !== '/mcp/') return false
      void serve(deps, open, req, res).catch((err: unknown) => {
        deps.log.error({ err }, 'MCP request failed')
        if (!res.headersSent) rpcError(res, new ParlanceError('internal', 'Internal error'))
      })
      return true
    },
    async close() {
      clearInterval(sweep)
      const all = [...open.values()]
      open.clear()
      for (const s of all) await s.server.close().catch(() => {})
    },
  }
}

async function serve(deps: EndpointDeps, open: Map<string, McpSession>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const principal = deps.principal(req)
  const id = req.headers['mcp-session-id']
  if (typeof id === 'string') {
    const s = open.get(id)
    if (!s)
      return rpcError(res, new ParlanceError('not_found', `MCP session not found: ${id} (it ended, or this server restarted): initialize a new one`))
    if (s.principal !== principal) return rpcError(res, new ParlanceError('forbidden', 'this MCP session belongs to someone else'))
    if (req.method !== 'POST') return track(s, res, () => s.transport.handleRequest(req, res))
    if (refused(deps, req, res, principal)) return
    const body = await checkedBody(deps, req, res)
    if (body === undefined) return
    return track(s, res, () => s.transport.handleRequest(req, res, body))
  }
  if (req.method !== 'POST') return rpcError(res, new ParlanceError('invalid_message', 'no Mcp-Session-Id header: POST an initialize request first'))
  if (refused(deps, req, res, principal)) return
  const body = await checkedBody(deps, req, res)
  if (body === undefined) return
  const s = create(deps, open, principal)
  // The transport answers a first request that is not `initialize` with its own 400; the session then never starts.
  await s.server.connect(s.transport)
  await track(s, res, () => s.transport.handleRequest(req, res, body))
}

/**
 * A POST body read here (the frame limit, 413 past it; 415 for a non-JSON type), parsed, and checked before the
 * SDK's transport gets it parsed: the JSON-RPC dialects' shared envelope rule (an odd id — MCP allows only strings
 * and integers — or a body nested too deep is -32600 Invalid Request with HTTP 400, as the Streamable HTTP
 * transport answers a message it cannot accept), then the guard every dialect runs (forbidden keys). Undefined:
 * refused and answered.
 */
async function checkedBody(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  let text: string
  try {
    text = await readBody(req, deps.limits.maxFrameBytes, { json: true })
  } catch (err) {
    const status = err instanceof BodyError ? err.status : 400
    const e = new ParlanceError(status === 413 ? 'frame_too_large' : 'invalid_message', (err as Error).message)
    sendJson(res, status, { jsonrpc: '2.0', error: mcpRpcError(e), id: null })
    return undefined
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (err) {
    sendJson(res, 400, rpcErrorOf(null, { code: MCP_RPC.parseError, message: `Parse error: ${(err as Error).message}` }))
    return undefined
  }
  const odd = rpcEnvelopeError(body, { maxDepth: deps.limits.maxJsonDepth, nullId: false })
  if (odd) {
    sendJson(res, 400, rpcErrorOf(odd.id, odd.error))
    return undefined
  }
  const shape = checkJsonShape(body, deps.limits.maxJsonDepth)
  if (shape) {
    rpcError(res, shape)
    return undefined
  }
  return body
}

/** Counts a request (or SSE stream) of `s` as open until its response closes. */
function track(s: McpSession, res: ServerResponse, handle: () => Promise<void>): Promise<void> {
  s.inFlight++
  s.lastSeen = Date.now()
  res.once('close', () => {
    s.inFlight--
    s.lastSeen = Date.now()
  })
  return handle()
}

/** The rate limit of the principal (or, with auth off, of the address), as the other dialects apply it. */
function refused(deps: EndpointDeps, req: IncomingMessage, res: ServerResponse, principal: Principal): boolean {
  const err = deps.admission(principal, deps.clientAddress(req))()
  if (!err) return false
  rpcError(res, err)
  return true
}

function create(deps: EndpointDeps, open: Map<string, McpSession>, principal: Principal): McpSession {
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore: new ResumeBuffer(),
    // The same body limit as every other dialect (the SDK's own default is 4 MiB): 413 past it.
    maxRequestBodySize: deps.limits.maxFrameBytes,
    onsessioninitialized: (sid) => void open.set(sid, s),
    onsessionclosed: (sid) => void open.delete(sid),
  })
  const server = new McpServer({ name: 'parlance', version: '0.1.0' }, { capabilities: { tools: {} } })
  const s: McpSession = { transport, server, principal, inFlight: 0, lastSeen: Date.now() }
  transport.onclose = () => {
    if (transport.sessionId) open.delete(transport.sessionId)
  }
  for (const name of deps.sessions.agentNames()) {
    const agent = deps.sessions.agent(name)
    server.registerTool(
      askToolName(name),
      {
        title: `Ask ${name}`,
        description: `${(agent?.description ?? `The ${name} agent`).replace(/[.\s]+$/, '')}. Sends a message to the agent and returns its answer; pass sessionId to continue a conversation (the result's structuredContent.sessionId).`,
        inputSchema: {
          message: z.string().min(1).max(deps.limits.maxUserMessageChars).describe('What to tell the agent'),
          sessionId: z.string().min(1).max(256).optional().describe('A Parlance session to continue'),
          onBusy: z
            .enum(['interrupt', 'enqueue', 'reject', 'rollback'] satisfies OnBusy[])
            .optional()
            .describe(
              'If a run of the session is active: interrupt it, enqueue this message after it, reject this message (busy), or roll it back (interrupt and drop its turn)',
            ),
        },
      },
      (args, extra) => {
        const token = extra._meta?.progressToken
        let n = 0
        return ask(deps.sessions, principal, name, args, {
          signal: extra.signal,
          progress: (message) => {
            if (token === undefined) return
            void extra
              .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++n, message } })
              .catch(() => {})
          },
          elicit: server.server.getClientCapabilities()?.elicitation
            ? (message, requestedSchema, _meta) => server.server.elicitInput({ message, requestedSchema, _meta }, { signal: extra.signal })
            : null,
        })
      },
    )
  }
  return s
}

/** Answers `e` before the SDK's transport does: the HTTP status and JSON-RPC error of MCP's error table. */
function rpcError(res: ServerResponse, e: ParlanceError): void {
  sendJson(res, MCP_ERRORS[e.code].status, { jsonrpc: '2.0', error: mcpRpcError(e), id: null })
}
