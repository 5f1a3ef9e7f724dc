export { openaiDialect, RESPONSE_SCOPE, SESSION_HEADER } from './binding.js'
export { APPROVAL_TOOL, CHAT_SSE, chatCompletion, chatStep, chatView } from './chat-format.js'
export type { ChatView } from './chat-format.js'
export { capabilities as openaiCapabilities } from './capabilities.js'
export { decodeChatCompletion, decodeResponseRequest } from './decode.js'
export { errorBody, OPENAI_ERRORS } from './errors.js'
export { chatToolCallId, parseChatToolCallId, parseResponseId, responseId } from './ids.js'
export type { ResponseRef } from './ids.js'
export { approvalOf, reconcileChat, reconcileResponse } from './reconcile.js'
export { RESPONSES_SSE, responseObject, responsesStep, responsesView } from './responses-format.js'
export type { ResponseHead, ResponsesView } from './responses-format.js'
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
