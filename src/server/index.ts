export { createServer } from './create-server.js'
export type { ParlanceServer, ServerOptions } from './create-server.js'
export type { Metrics } from './metrics.js'
