export { createServer } from './create-server.js'
export type { ClusterOptions, ParlanceServer, RedisUrl, ServerOptions } from './create-server.js'
export type { Metrics } from '../binding/metrics.js'
