import type { InspectorDialect } from './types.js'

/**
 * A2A in the inspector. Its adapter (a2a-adapter.ts) brings the official SDK's client, so it is loaded only
 * when the page switches to A2A: the page's main chunk stays small.
 */
export const a2aDialect: InspectorDialect = {
  id: 'a2a',
  label: 'A2A',
  endpoint: 'POST /a2a/<agent> (JSON-RPC, SSE)',
  carries: { state: true, serverTools: true, plan: false },
  connect: async (o) => (await import('./a2a-adapter.js')).connectA2aDialect(o),
}
