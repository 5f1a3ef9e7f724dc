import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js'
import type { RunContext } from '../../agent-api/index.js'
import type { Json } from '../../core/index.js'

/** A tool result the server marked `isError`: the tool failed, saying why in its text. */
export class McpToolError extends Error {
  override readonly name = 'McpToolError'
  constructor(
    message: string,
    /** The result's content blocks, as the server sent them. */
    readonly content: Json,
  ) {
    super(message)
  }
}

const texts = (r: CallToolResult): string[] => r.content.flatMap((c) => (c.type === 'text' ? [c.text] : []))

/**
 * An MCP tool result as a Parlance tool result:
 * - `isError` → throws `McpToolError` with the result's text (the run reports a tool error);
 * - structured content → that object, unless the text says something else (Parlance's own `ask_<agent>` answers
 *   in text and puts ids in structured content): then `{ text, structuredContent }`;
 * - only text → the text (blocks joined by newlines), as the server wrote it;
 * - anything else (images, audio, resources) → the content blocks themselves.
 */
export function toolResult(result: CallToolResult, tool: string): Json {
  const text = texts(result)
  if (result.isError) throw new McpToolError(text.join('\n') || `the MCP tool ${tool} reported an error`, result.content as Json)
  const structured = result.structuredContent as Json | undefined
  if (structured !== undefined) {
    if (text.length === 0 || text.every(isJson)) return structured
    return { text: text.join('\n'), structuredContent: structured }
  }
  if (text.length === result.content.length) return text.join('\n')
  return result.content as Json
}

function isJson(s: string): boolean {
  try {
    JSON.parse(s)
    return true
  } catch {
    return false
  }
}

/**
 * MCP progress notifications of one call as `ctx.progress`, in order: a percentage when the server gives a total,
 * else 0 with the server's message (MCP progress without a total is a counter, not a percentage). `settled`
 * resolves once every report made so far was emitted, so they all come before the tool's result.
 */
export function progressReporter(ctx: RunContext, tool: string): { onprogress: (p: Progress) => void; settled(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve()
  return {
    onprogress(p) {
      const percent = typeof p.total === 'number' && p.total > 0 ? Math.round((p.progress / p.total) * 100) : 0
      const message = p.message ?? (typeof p.total === 'number' ? `${tool}: ${p.progress}/${p.total}` : `${tool}: ${p.progress}`)
      chain = chain.then(() => ctx.progress(percent, { message })).catch(() => {})
    },
    settled: () => chain,
  }
}
