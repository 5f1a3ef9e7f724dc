export { openaiDialect, RESPONSE_SCOPE, SESSION_HEADER } from './binding.js'
export { openai } from './codec.js'
export { OpenAiResponsesClient } from './client.js'
export type { OpenAiClientOptions, ResponseEvent } from './client.js'
export { APPROVAL_TOOL, CHAT_SSE, chatCompletion, chatStep, chatView } from './encode-chat.js'
export type { ChatView } from './encode-chat.js'
export { capabilities as openaiCapabilities } from './capabilities.js'
export { decodeChatCompletion, decodeResponseRequest } from './decode.js'
export { errorBody, OPENAI_ERRORS } from './errors.js'
export { chatToolCallId, parseChatToolCallId, parseResponseId, responseId } from './codec-ids.js'
export type { ResponseRef } from './codec-ids.js'
export { approvalOf, reconcileChat, reconcileResponse } from './reconcile.js'
export { RESPONSES_SSE, responseObject, responsesStep, responsesView } from './encode-responses.js'
export type { ResponseHead, ResponsesView } from './encode-responses.js'
export type {
  ChatCompletion,
  ChatCompletionRequest,
  ChatMessage,
  InputItem,
  OpenAiError,
  OutputItem,
  ResponseObject,
  ResponseRequest,
} from './wire.js'
