import type { Capabilities } from '../../binding/index.js'

/** What A2A (JSON-RPC over HTTP, SSE streams) carries (README feature table, inspector). */
export const capabilities: Capabilities = {
  transport: 'A2A 1.0 JSON-RPC over HTTP (+ SSE)',
  streaming: true,
  approvals: true,
  clientTools: false,
  state: true,
  resume: false,
  cancel: true,
}
