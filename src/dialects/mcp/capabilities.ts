import type { Capabilities } from '../../binding/index.js'

/** What MCP (streamable HTTP, each agent a tool) carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'MCP streamable HTTP (JSON-RPC over HTTP + SSE)',
  streaming: true,
  approvals: true,
  clientTools: false,
  state: true,
  resume: 'Last-Event-ID on the MCP session (the SDK client resumes a dropped stream by itself)',
  cancel: true,
}
