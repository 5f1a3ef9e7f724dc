import type { Capabilities } from '../../binding/index.js'

/** What AG-UI carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'HTTP + SSE',
  streaming: true,
  approvals: true,
  clientTools: true,
  state: true,
  resume: 'by seq: Last-Event-ID, or GET /agui/threads/:threadId/events?after=SEQ',
  cancel: true,
}
