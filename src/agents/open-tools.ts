import type { ToolDefinition } from '../agent-api/index.js'

const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,256}$/

/**
 * Tools as `RunContext.callTool` looks them up, for a bridge to a remote agent: the declared ones, and any other
 * (valid) name as a client tool — the remote agent decides which tools it asks the client to run, and the
 * bridge forwards each to the Parlance client. Enumerating it lists only the declared tools.
 */
export function openTools(declared: Record<string, ToolDefinition>, description: string): Readonly<Record<string, ToolDefinition>> {
  const forwarded: ToolDefinition = Object.freeze({ description })
  return new Proxy(Object.freeze({ ...declared }), {
    get(target, key) {
      if (typeof key !== 'string') return undefined
      if (Object.hasOwn(target, key)) return target[key]
      return TOOL_NAME.test(key) && !(key in Object.prototype) && key !== 'then' && key !== 'toJSON' ? forwarded : undefined
    },
  })
}
