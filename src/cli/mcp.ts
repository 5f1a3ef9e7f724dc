import type { ToolDefinition } from '../agent-api/index.js'
import type { McpTools } from '../agents/mcp/index.js'

/** What `--integration` names must look like (HugAI `tool/integration`'s `tool`). */
const INTEGRATION_NAME = /^[A-Za-z0-9_.:-]{1,64}$/

/**
 * Connects to the MCP server a `--mcp` / `--integration` value names: an http(s) URL, or `stdio:COMMAND ARG…`
 * (split on spaces; no quoting). Failures start with `label` (the flag as given).
 */
export async function openMcp(label: string, spec: string): Promise<McpTools> {
  try {
    // Loaded when used: the MCP client is not part of a plain `parlance serve` start.
    const { mcpTools } = await import('../agents/mcp/index.js')
    if (spec.startsWith('stdio:')) {
      const [command, ...args] = spec.slice('stdio:'.length).trim().split(/\s+/)
      if (!command) throw new Error('stdio: needs a command, e.g. stdio:npx -y @modelcontextprotocol/server-everything')
      return await mcpTools({ command, args })
    }
    return await mcpTools({ url: spec })
  } catch (err) {
    throw new Error(`${label}: ${(err as Error).message}`, { cause: err })
  }
}

/** The tools of every `--mcp` server as one record (a tool name two servers share is an error), and how to close them. */
export async function mcpToolsOf(specs: readonly string[]): Promise<{ tools: Record<string, ToolDefinition>; close(): Promise<void> }> {
  const opened: McpTools[] = []
  const close = async () => {
    for (const t of opened) await t.close()
  }
  const tools: Record<string, ToolDefinition> = {}
  try {
    for (const spec of specs) {
      const set = await openMcp(`--mcp ${spec}`, spec)
      opened.push(set)
      for (const [name, tool] of Object.entries(set as Record<string, ToolDefinition>)) {
        if (Object.hasOwn(tools, name))
          throw new Error(`--mcp ${spec}: a tool named ${name} comes from two MCP servers; serve them with an agent module and mcpTools({ prefix })`)
        tools[name] = tool
      }
    }
  } catch (err) {
    await close()
    throw err
  }
  return { tools, close }
}

/** `--integration NAME=URL` values, parsed: NAME → URL (or `stdio:…`). */
export function parseIntegrations(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const v of values) {
    const eq = v.indexOf('=')
    const name = eq > 0 ? v.slice(0, eq) : ''
    const target = eq > 0 ? v.slice(eq + 1) : ''
    if (!INTEGRATION_NAME.test(name) || target === '')
      throw new Error(`--integration must be NAME=URL (an MCP server), e.g. --integration ci-pipeline=http://127.0.0.1:9000/mcp; got ${v}`)
    if (Object.hasOwn(out, name)) throw new Error(`--integration ${name} is given twice`)
    out[name] = target
  }
  return out
}

/** Connects every integration's MCP server: NAME → its tools (each closed with the server). */
export async function openIntegrations(specs: Readonly<Record<string, string>>): Promise<Record<string, McpTools>> {
  const out: Record<string, McpTools> = {}
  try {
    for (const [name, spec] of Object.entries(specs)) out[name] = await openMcp(`--integration ${name}=${spec}`, spec)
  } catch (err) {
    for (const t of Object.values(out)) await t.close()
    throw err
  }
  return out
}
