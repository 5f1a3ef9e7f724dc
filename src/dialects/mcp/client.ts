import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'

/** Options of `connectMcp`. */
export interface McpConnectOptions {
  /** The server's base URL (`http://127.0.0.1:8000`); `/mcp` is appended. */
  url: string
  /** Bearer token, when the server has auth on. */
  token?: string
  /** The client's name in `initialize`. @default 'parlance-client' */
  name?: string
  /**
   * Answers elicitation requests (an agent's approvals: the form `{approve, feedback?}`, and the approval itself
   * under `params._meta["parlance/approval"]`); declares the `elicitation` capability. Without it, approvals stay
   * pending for another client of the session.
   */
  onElicit?: (request: ElicitRequest['params']) => Promise<ElicitResult> | ElicitResult
}

/**
 * The official MCP SDK client connected to a Parlance server's `/mcp` (Parlance has no MCP client of its own:
 * the SDK's is the reference). Each agent is the tool `ask_<agent>`; see docs/dialects/mcp.md.
 */
export async function connectMcp(options: McpConnectOptions): Promise<Client> {
  const client = new Client(
    { name: options.name ?? 'parlance-client', version: '1.0.0' },
    { capabilities: options.onElicit ? { elicitation: {} } : {} },
  )
  const onElicit = options.onElicit
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, (req) => onElicit(req.params))
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {}
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', options.url), { requestInit: { headers } }))
  return client
}
