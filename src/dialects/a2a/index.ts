export { a2aDialect } from './binding.js'
export { capabilities as a2aCapabilities } from './capabilities.js'
export { connectA2a, type A2aConnectOptions } from './client.js'
export type { ApprovalAnswer, TaskLink } from './wire.js'
