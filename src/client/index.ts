export { HaiClient, textOf } from './hai.js'
export type { HaiClientOptions, HaiServerMessage } from './hai.js'
