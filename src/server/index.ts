export { createServer, DRAIN_TIMEOUT_MS } from './create-server.js'
export type { ClusterOptions, ParlanceServer, RedisUrl, ServerOptions } from './create-server.js'
export type { Metrics } from '../binding/metrics.js'
