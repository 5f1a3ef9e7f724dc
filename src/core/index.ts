export { ANONYMOUS, newId } from './ids.js'
export type { Principal, RunId, SessionId } from './ids.js'
export { bridgedErrorCode, BRIDGED_ERROR_CODES, ERROR_CODES, PARLANCE_RPC_CODES, ParlanceError, toParlanceError } from './errors.js'
export type { ErrorCode, RpcWireError } from './errors.js'
export { HTTP_STATUS } from './http-status.js'
export { SSE_HEADERS } from './sse.js'
export { DEFAULT_LIMITS } from './limits.js'
export type { Limits } from './limits.js'
export { checkJsonShape, checkMessageLength, parseJson, stringOf } from './guard.js'
export { addUsage, isRunEnd, TOKEN_KINDS, toolResultOf, toolResultText, usageValue } from './events.js'
export type {
  EventBody,
  EventMeta,
  EventOf,
  EventType,
  HistoryMessage,
  HistoryToolCall,
  Json,
  PatchOp,
  PlanTask,
  QueuedContext,
  QueuedMessage,
  RiskLevel,
  RunFailure,
  RunStatus,
  StoredEvent,
  TokenUsage,
  ToolTarget,
} from './events.js'
export { ON_BUSY, onBusyOf } from './commands.js'
export type { ClientToolSpec, Command, CommandType, OnBusy } from './commands.js'
export { ConversationModel, applyPatch, catchUpState, foldState } from './reduce.js'
export type { StateSince } from './reduce.js'
export { jsonBytes, patchInPlace } from './json-patch.js'
export type { Patched } from './json-patch.js'
export type { BatchEncoder, Codec, DecodeLimits, Decoded, Encoded, RequestCodec, SseRunFormat } from './codec.js'
export type { CloseReason, Connection } from './connection.js'
export {
  classifyRpc,
  JSONRPC_ERRORS,
  MAX_RPC_ID_CHARS,
  parseRpc,
  rpcEnvelopeError,
  rpcError,
  rpcInvalid,
  rpcNotification,
  rpcRequest,
  rpcResult,
} from './jsonrpc.js'
export type { MethodCheck, RpcEnvelopeOptions, RpcErrorObject, RpcId, RpcInbound, RpcParsed, RpcParseOptions } from './jsonrpc.js'
