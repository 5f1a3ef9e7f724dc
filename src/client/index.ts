export { HaiClient, textOf } from './hai.js'
export type { HaiClientOptions, HaiServerMessage } from './hai.js'
export { HumaClient } from './huma.js'
export type { HumaClientOptions, HumaErrorEvent, HumaServerEvent } from './huma.js'
