import { a2aDialect } from './a2a.js'
import { aguiDialect } from './agui.js'
import { aisdkDialect } from './aisdk.js'
import { haiDialect } from './hai.js'
import { hugaiDialect } from './hugai.js'
import { humaDialect } from './huma.js'
import { langgraphDialect } from './langgraph.js'
import { mcpDialect } from './mcp.js'
import { myagentDialect } from './myagent.js'
import { openaiDialect } from './openai.js'
import type { ConnectOptions, DialectAdapter, DialectId, InspectorDialect } from './types.js'

export * from './types.js'

/** The dialects the page offers, in the switcher's order: adding one is its module and one line here. */
export const DIALECTS: readonly InspectorDialect[] = [
  haiDialect,
  aguiDialect,
  humaDialect,
  myagentDialect,
  hugaiDialect,
  aisdkDialect,
  mcpDialect,
  a2aDialect,
  openaiDialect,
  langgraphDialect,
]

/** The dialect with this id (the first when unknown). */
export function dialectOf(id: DialectId): InspectorDialect {
  return DIALECTS.find((d) => d.id === id) ?? DIALECTS[0]!
}

/** Opens a new conversation with the server over `dialect`. */
export function connect(dialect: DialectId, o: ConnectOptions): Promise<DialectAdapter> {
  return dialectOf(dialect).connect(o)
}
