// What the page's dialect adapters use of `parlance-gateway/client` (the vite alias points here): the socket and
// HTTP clients, each from its own module, so the MCP and A2A SDK clients that the package's index also exports
// stay out of the main chunk (their adapters load them on demand).
export { HaiClient, textOf } from '../../src/dialects/hai/client.js'
export type { HaiServerMessage } from '../../src/dialects/hai/client.js'
export { HumaClient } from '../../src/dialects/huma/client.js'
export type { HumaServerEvent } from '../../src/dialects/huma/client.js'
export { AguiClient } from '../../src/dialects/agui/client.js'
export type { AguiReceived } from '../../src/dialects/agui/client.js'
export { MyAgentClient } from '../../src/dialects/myagent/client.js'
export type { MyAgentServerEvent } from '../../src/dialects/myagent/client.js'
export { HugaiClient, RpcError } from '../../src/dialects/hugai/client.js'
export type { RpcNotification } from '../../src/dialects/hugai/client.js'
export { AiSdkClient } from '../../src/dialects/aisdk/client.js'
export type { AiSdkChunk, AiSdkToolCall } from '../../src/dialects/aisdk/client.js'
export { OpenAiResponsesClient } from '../../src/dialects/openai/client.js'
export type { ResponseEvent } from '../../src/dialects/openai/client.js'
export { LangGraphClient } from '../../src/dialects/langgraph/client.js'
export type { LangGraphPart } from '../../src/dialects/langgraph/client.js'
