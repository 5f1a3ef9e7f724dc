import type { Capabilities } from '../../binding/index.js'

/** What the LangGraph Agent Server API carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'HTTP + SSE',
  streaming: true,
  approvals: true,
  clientTools: true,
  state: false,
  resume: 'GET /langgraph/threads/:thread/runs/:run/stream with Last-Event-ID (a log seq; -1 replays the run)',
  cancel: true,
}
