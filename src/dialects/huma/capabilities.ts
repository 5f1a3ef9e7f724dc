import type { Capabilities } from '../../binding/index.js'

/** What HUMA carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'Socket.IO',
  streaming: false,
  approvals: true,
  clientTools: true,
  state: false,
  resume: 'by seq: handshake auth { sessionId, afterSeq }',
  cancel: false,
}
