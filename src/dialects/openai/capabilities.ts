import type { Capabilities } from '../../binding/index.js'

/** What OpenAI's API carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'HTTP + SSE',
  streaming: true,
  approvals: true,
  clientTools: true,
  state: false,
  resume: 'GET /v1/responses/:id?stream=true&starting_after=N replays a response from the log',
  cancel: true,
}
