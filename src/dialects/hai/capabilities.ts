import type { Capabilities } from '../../binding/index.js'

/** What HAI carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'WebSocket',
  streaming: true,
  approvals: true,
  clientTools: true,
  state: false,
  resume: 'by seq: /ws?session_id=…&after=SEQ',
  cancel: true,
}
