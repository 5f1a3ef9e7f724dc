import type { Capabilities } from '../../binding/index.js'

/** What MyAgent carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'WebSocket',
  streaming: true,
  approvals: true,
  clientTools: false,
  state: true,
  resume: 'user.reconnect with last_seq (from memory within 60 s, else from the log); signed state export',
  cancel: true,
}
