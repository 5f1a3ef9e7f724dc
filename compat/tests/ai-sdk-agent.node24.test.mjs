// aiSdkAgent on `ai` 7 with @ai-sdk/openai-compatible 3, which need Node 22 or later: lib/run.mjs runs this file
// under Node 24. Parlance's compiled agent imports `ai`; the redirect makes that `ai7` (the npm alias of ai@7).
import { CLIENTS } from '../lib/clients.mjs'
import { load, redirect } from '../lib/parlance.mjs'
import { aiSdkCases } from '../lib/ai-sdk-cases.mjs'

redirect({ ai: 'ai7' })
const ai = await import('ai7')
const provider = await import('openai-compatible3')
const { aiSdkAgent } = await load('src/agents/ai-sdk/index.ts')
aiSdkCases(CLIENTS.aiSdk7.title, { ai, provider, aiSdkAgent })
