export { defineAgent, isAgent } from './define-agent.js'
export type { AgentOptions } from './define-agent.js'
export type {
  AgentDefinition,
  ApprovalRequest,
  ApprovalResult,
  Plan,
  RunContext,
  RunInput,
  SendResult,
  TextSource,
  ToolDefinition,
} from './types.js'
