import type { Capabilities } from '../../binding/index.js'

/** What HugAI v2 carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'JSON-RPC 2.0 over WebSocket and HTTP POST',
  streaming: false,
  approvals: true,
  clientTools: true,
  state: true,
  resume: false,
  cancel: true,
}
