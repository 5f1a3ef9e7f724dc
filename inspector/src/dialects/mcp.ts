import type { InspectorDialect } from './types.js'

/**
 * MCP in the inspector. Its adapter (mcp-adapter.ts) brings the official SDK's client, so it is loaded only
 * when the page switches to MCP: the page's main chunk stays small.
 */
export const mcpDialect: InspectorDialect = {
  id: 'mcp',
  label: 'MCP',
  endpoint: 'POST /mcp (streamable HTTP)',
  carries: { state: false, serverTools: false, plan: false },
  connect: async (o) => (await import('./mcp-adapter.js')).connectMcpDialect(o),
}
