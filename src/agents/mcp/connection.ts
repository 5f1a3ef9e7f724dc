import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError, type CallToolResult, type Progress, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { ParlanceError } from '../../core/index.js'

/** An MCP server reached over HTTP: streamable HTTP, or the older HTTP+SSE transport when the server only speaks that. */
export interface McpHttpServer {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:9000/mcp`. */
  url: string
  /** Headers sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string>
}

/** An MCP server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServer {
  command: string
  args?: string[]
  /** Added to the SDK's default environment (PATH, HOME…); the rest of this process's environment is not passed. */
  env?: Record<string, string>
  cwd?: string
}

export type McpServerSpec = McpHttpServer | McpStdioServer

/** Connection attempts per (re)connect, and the pause before each retry (ms). */
const RETRY_DELAYS_MS = [0, 250, 1_000]

/**
 * One MCP client connection that comes back when it drops: a call after the transport closed (a stdio server that
 * exited, an HTTP server that forgot the session because it restarted) opens a new connection first, with a few
 * bounded attempts. A call is sent again on the new connection only when the old one could not have delivered it
 * (refused connection, unknown session); a connection that dies during a call fails that call.
 */
export class McpConnection {
  private client: Client | null = null
  private opening: Promise<Client> | null = null
  private closed = false
  /** How messages name this server: its URL, or its command. */
  readonly label: string

  constructor(
    private readonly spec: McpServerSpec,
    private readonly clientInfo: { name: string; version: string },
  ) {
    this.label = 'url' in spec ? spec.url : [spec.command, ...(spec.args ?? [])].join(' ')
  }

  /** Every tool the server lists (all pages). */
  async listTools(): Promise<Tool[]> {
    const client = await this.open()
    const tools: Tool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined)
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor)
    return tools
  }

  /** `tools/call`; `signal` cancels it (the SDK tells the server with notifications/cancelled). */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: { signal?: AbortSignal; onprogress?: (p: Progress) => void; timeoutMs?: number },
  ): Promise<CallToolResult> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.open()
      try {
        const result = await client.callTool({ name, arguments: args }, undefined, {
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...(opts.onprogress ? { onprogress: opts.onprogress, resetTimeoutOnProgress: true } : {}),
          ...(opts.timeoutMs !== undefined ? { timeout: opts.timeoutMs } : {}),
        })
        return result as CallToolResult
      } catch (err) {
        if (opts.signal?.aborted) throw err
        if (notDelivered(err)) {
          this.drop(client)
          if (attempt < 2) continue
        } else if (err instanceof McpError && err.code === (ErrorCode.ConnectionClosed as number)) {
          this.drop(client)
          throw new ParlanceError(
            'unavailable',
            `the connection to the MCP server ${this.label} dropped during the call`,
            { server: this.label },
            { cause: err },
          )
        }
        throw err
      }
    }
  }

  /** Closes the connection (a stdio server is stopped); later calls fail. */
  async close(): Promise<void> {
    this.closed = true
    const client = this.client ?? (await this.opening?.catch(() => null)) ?? null
    this.client = null
    await client?.close().catch(() => {})
  }

  private open(): Promise<Client> {
    if (this.closed) return Promise.reject(new ParlanceError('unavailable', `the MCP tools of ${this.label} were closed`, { server: this.label }))
    if (this.client) return Promise.resolve(this.client)
    this.opening ??= this.connect().finally(() => (this.opening = null))
    return this.opening
  }

  private async connect(): Promise<Client> {
    let last: unknown
    for (const pause of RETRY_DELAYS_MS) {
      if (pause > 0) await new Promise((r) => setTimeout(r, pause))
      if (this.closed) break
      try {
        const client = await this.connectOnce()
        if (this.closed) {
          await client.close().catch(() => {})
          break
        }
        client.onclose = () => {
          if (this.client === client) this.client = null
        }
        this.client = client
        return client
      } catch (err) {
        last = err
      }
    }
    if (this.closed) throw new ParlanceError('unavailable', `the MCP tools of ${this.label} were closed`, { server: this.label })
    throw new ParlanceError(
      'unavailable',
      `cannot connect to the MCP server ${this.label}: ${causeOf(last)}`,
      { server: this.label },
      { cause: last },
    )
  }

  private async connectOnce(): Promise<Client> {
    const spec = this.spec
    if (!('url' in spec)) {
      const client = this.newClient()
      const env = { ...getDefaultEnvironment(), ...spec.env }
      await client.connect(
        new StdioClientTransport({ command: spec.command, args: spec.args ?? [], env, ...(spec.cwd ? { cwd: spec.cwd } : {}), stderr: 'inherit' }),
      )
      return client
    }
    const url = new URL(spec.url)
    const requestInit = { headers: { ...spec.headers } }
    const client = this.newClient()
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit }))
      return client
    } catch (err) {
      await client.close().catch(() => {})
      // A server of the older HTTP+SSE transport answers the streamable HTTP POST with 404 or 405.
      if (!(err instanceof StreamableHTTPError && (err.code === 404 || err.code === 405))) throw err
    }
    const legacy = this.newClient()
    await legacy.connect(new SSEClientTransport(url, { requestInit }))
    return legacy
  }

  private newClient(): Client {
    return new Client(this.clientInfo, { capabilities: {} })
  }

  private drop(client: Client): void {
    if (this.client === client) this.client = null
    void client.close().catch(() => {})
  }
}

const UNSENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])

/** Failures that mean the server never received the call: safe to send it again on a new connection. */
function notDelivered(err: unknown): boolean {
  // The server does not know the session: it restarted, or dropped the session.
  if (err instanceof StreamableHTTPError && err.code === 404) return true
  if (err instanceof Error && err.message === 'Not connected') return true
  // No HTTP response at all (fetch failed): a refused connection, or a kept-alive socket the old server closed.
  // The call is sent once more; had the server died while running it, it may run twice (documented).
  if (err instanceof TypeError && err.message === 'fetch failed') return true
  const code = innermost(err)?.code
  return typeof code === 'string' && UNSENT.has(code)
}

function innermost(err: unknown): { code?: unknown; message?: unknown } | undefined {
  let e: unknown = err
  for (let i = 0; i < 5 && e instanceof Error && e.cause !== undefined; i++) e = e.cause
  return e as { code?: unknown; message?: unknown } | undefined
}

/** The innermost cause's code (ECONNREFUSED…) and message, for a connection error. */
export function causeOf(err: unknown): string {
  const e = innermost(err)
  const message = e instanceof Error ? e.message : err instanceof Error ? err.message : String(err)
  return typeof e?.code === 'string' ? `${e.code} (${message.replace(/^connect /, '')})` : message
}
