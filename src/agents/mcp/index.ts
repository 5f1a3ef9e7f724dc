import type { RunContext, ToolDefinition } from '../../agent-api/index.js'
import type { Json } from '../../core/index.js'
import { McpConnection, type McpHttpServer, type McpServerSpec, type McpStdioServer } from './connection.js'
import { McpToolError, progressReporter, toolResult } from './result.js'

export { McpToolError }
export type { McpHttpServer, McpStdioServer }

/** Options of `mcpTools` besides where the server is. */
export interface McpToolsCommon {
  /**
   * Prefix of every tool name as the agent sees it (`prefix: 'ci_'` makes `run-tests` the tool `ci_run-tests`),
   * for several servers that have tools of one name. The server is called with its own names.
   */
  prefix?: string
  /** Longest wait for a call's result (ms); every progress notification restarts it. @default 60000 */
  timeoutMs?: number
}

/** Where the MCP server is: `{ url, headers? }` (HTTP) or `{ command, args?, env?, cwd? }` (a child process over stdio). */
export type McpToolsOptions = (McpHttpServer | McpStdioServer) & McpToolsCommon

/**
 * An MCP server's tools as Parlance tools (give them to `defineAgent`, `openaiAgent`, any agent taking `tools`), plus
 * `close()`, which ends the connection (and stops a stdio server). `close` is not enumerable, so spreading the
 * record or listing its entries yields only the tools.
 */
export type McpTools = Record<string, ToolDefinition> & McpToolsClose

/**
 * `close()` typed as a class method: TypeScript's object spread drops class methods, as the runtime drops the
 * non-enumerable property, so `{ ...aiTools, ...mcp }` is a record of tools alone (assignable to `aiSdkAgent`'s
 * `tools`) while `mcp.close()` stays typed. Only a type: nothing constructs it.
 */
declare abstract class McpToolsClose {
  close(): Promise<void>
}

const CLIENT_INFO = { name: 'parlance-gateway', version: '0.1.0' }

/**
 * Connects to an MCP server (the MCP SDK's client) and returns its tools as a Parlance tools record: each tool's
 * description and input schema, and an `execute` that sends `tools/call`. During a call, the server's progress
 * notifications become `ctx.progress`; a result marked `isError` throws (a tool error, which the run reports and
 * an LLM agent passes back to its model); cancelling the run cancels the call (`notifications/cancelled`). The
 * connection comes back when it drops: the next call reconnects (a few bounded attempts). Call `close()` when the
 * server stops (after `server.close()`); `createServer` closes the HugAI `integrations` it was given itself.
 * @example
 * const tools = await mcpTools({ url: 'http://127.0.0.1:9000/mcp' })
 * const agent = openaiAgent({ model: 'gpt-4o-mini', tools })
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpTools> {
  const spec = checkSpec(options)
  const conn = new McpConnection(spec, CLIENT_INFO)
  let listed
  try {
    listed = await conn.listTools()
  } catch (err) {
    await conn.close()
    throw err
  }
  const prefix = options.prefix ?? ''
  const record: Record<string, ToolDefinition> = {}
  for (const tool of listed) {
    const description = tool.description ?? tool.title ?? tool.annotations?.title
    record[`${prefix}${tool.name}`] = Object.freeze({
      ...(description ? { description } : {}),
      parameters: tool.inputSchema as Json,
      async execute(args: Record<string, unknown>, ctx: RunContext): Promise<Json> {
        const progress = progressReporter(ctx, tool.name)
        const signal = signalOf(ctx)
        const result = await conn.callTool(tool.name, args, {
          ...(signal ? { signal } : {}),
          onprogress: progress.onprogress,
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        })
        await progress.settled()
        return toolResult(result, tool.name)
      },
    })
  }
  const close = () => conn.close()
  Object.defineProperty(record, 'close', { value: close, enumerable: false })
  const dispose = (Symbol as { asyncDispose?: symbol }).asyncDispose
  if (dispose) Object.defineProperty(record, dispose, { value: close, enumerable: false })
  return record as McpTools
}

/** The run's signal, if the context has one (a context of a HugAI integration call may throw on anything else). */
function signalOf(ctx: RunContext): AbortSignal | undefined {
  try {
    return ctx.signal
  } catch {
    return undefined
  }
}

/** The options, checked: exactly one of url and command, a usable URL. */
function checkSpec(o: McpToolsOptions): McpServerSpec {
  const hasUrl = 'url' in o && o.url !== undefined
  const hasCommand = 'command' in o && o.command !== undefined
  if (hasUrl === hasCommand) throw new TypeError('mcpTools needs either { url } (an HTTP MCP server) or { command } (a stdio MCP server)')
  if (hasCommand) {
    const s = o as McpStdioServer
    if (typeof s.command !== 'string' || s.command.trim() === '') throw new TypeError('mcpTools: command must be a non-empty string')
    return { command: s.command, ...(s.args ? { args: [...s.args] } : {}), ...(s.env ? { env: { ...s.env } } : {}), ...(s.cwd ? { cwd: s.cwd } : {}) }
  }
  const h = o as McpHttpServer
  let u: URL
  try {
    u = new URL(h.url)
  } catch {
    throw new TypeError(`mcpTools: "${h.url}" is not a valid URL (expected e.g. http://127.0.0.1:9000/mcp)`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TypeError(`mcpTools: the URL "${h.url}" must be http: or https:, not ${u.protocol}`)
  return { url: u.toString(), ...(h.headers ? { headers: { ...h.headers } } : {}) }
}
