import { connectAgui } from './agui.js'
import { connectAiSdk } from './aisdk.js'
import { connectHai } from './hai.js'
import { connectHugai } from './hugai.js'
import { connectHuma } from './huma.js'
import { connectMyAgent } from './myagent.js'
import type { ConnectOptions, DialectAdapter, DialectId } from './types.js'

export * from './types.js'

/** Opens a new conversation with the server over `dialect`. */
export function connect(dialect: DialectId, o: ConnectOptions): Promise<DialectAdapter> {
  switch (dialect) {
    case 'hai':
      return connectHai(o)
    case 'agui':
      return connectAgui(o)
    case 'huma':
      return connectHuma(o)
    case 'myagent':
      return connectMyAgent(o)
    case 'hugai':
      return connectHugai(o)
    case 'aisdk':
      return connectAiSdk(o)
  }
}
