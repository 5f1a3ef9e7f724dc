export { defineAgent, isAgent, isParlanceTool, tool } from './define-agent.js'
export type { AgentOptions, ToolsOf } from './define-agent.js'
export { isStandardSchema, parseToolInput, toJsonResult, toolJsonSchema, ToolInputError } from './schema.js'
export type { StandardSchemaV1 } from './schema.js'
export type {
  AgentDefinition,
  ApprovalRequest,
  ApprovalResult,
  Plan,
  RunContext,
  RunInput,
  SendResult,
  TextSource,
  ToolArgs,
  ToolDefinition,
  ToolInput,
  ToolOutput,
  ToolSet,
} from './types.js'
