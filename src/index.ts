/**
 * Parlance's public API. Adding a name here is an API decision: the list is
 * pinned by test/public-api.test.ts.
 */
export { defineAgent, tool } from './agent-api/index.js'
export type {
  AgentDefinition,
  AgentOptions,
  ApprovalRequest,
  ApprovalResult,
  Plan,
  RunContext,
  RunInput,
  StandardSchemaV1,
  TextSource,
  ToolDefinition,
  ToolSet,
} from './agent-api/index.js'
export { ParlanceError, ERROR_CODES, DEFAULT_LIMITS } from './core/index.js'
export type { Command, ErrorCode, EventBody, HistoryMessage, Json, Limits, OnBusy, PatchOp, QueuedMessage, StoredEvent } from './core/index.js'
export { createServer } from './server/index.js'
export type { ParlanceServer, ServerOptions } from './server/index.js'
export { createMemoryStore } from './store/index.js'
export type { StoreBackend, SessionRecord, CommitUnit, ForkOrigin } from './store/index.js'
export { demoAgent } from './agents/demo/index.js'
