import type { Capabilities } from '../../binding/index.js'

/** What the AI SDK UI message stream carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'HTTP + SSE',
  streaming: true,
  approvals: true,
  clientTools: true,
  state: true,
  resume: 'GET /api/chat/:id/stream re-attaches to the active run (useChat resume: true)',
  cancel: false,
}
