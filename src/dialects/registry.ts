import type { Dialect } from '../binding/index.js'
import { a2aDialect } from './a2a/binding.js'
import { aguiDialect } from './agui/binding.js'
import { aisdkDialect } from './aisdk/binding.js'
import { haiDialect } from './hai/binding.js'
import { hugaiDialect } from './hugai/binding.js'
import { langgraphDialect } from './langgraph/binding.js'
import { humaDialect } from './huma/binding.js'
import { mcpDialect } from './mcp/binding.js'
import { myagentDialect } from './myagent/binding.js'
import { openaiDialect } from './openai/binding.js'

/**
 * The dialects every server mounts, in the order requests are offered to them. Adding one is a folder under
 * src/dialects/ and one line here (docs/ADDING-A-DIALECT.md); `createServer({ dialects })` adds more.
 */
export const DIALECTS: readonly Dialect[] = [
  haiDialect,
  humaDialect,
  aguiDialect,
  myagentDialect,
  hugaiDialect,
  aisdkDialect,
  mcpDialect,
  a2aDialect,
  openaiDialect,
  langgraphDialect,
]

/** The built-in dialects plus `extra`: one with a built-in's name replaces it, the others are mounted after them. */
export function withDialects(extra: readonly Dialect[] = []): Dialect[] {
  const out = DIALECTS.map((d) => extra.find((x) => x.name === d.name) ?? d)
  for (const d of extra) if (!DIALECTS.some((b) => b.name === d.name)) out.push(d)
  const seen = new Set<string>()
  for (const d of out) {
    if (seen.has(d.name)) throw new TypeError(`two dialects are named "${d.name}"`)
    seen.add(d.name)
  }
  return out
}
