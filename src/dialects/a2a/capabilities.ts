import type { Capabilities } from '../../binding/index.js'

/** What A2A (JSON-RPC over HTTP, SSE streams) carries (listed by `GET /` and the inspector API, shown by the inspector). */
export const capabilities: Capabilities = {
  transport: 'A2A 1.0 (and 0.3) JSON-RPC over HTTP (+ SSE)',
  streaming: true,
  approvals: true,
  clientTools: true,
  state: true,
  resume: 'SubscribeToTask while the task runs (the task so far, then live)',
  cancel: true,
}
