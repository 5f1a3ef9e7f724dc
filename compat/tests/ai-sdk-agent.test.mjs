// aiSdkAgent on `ai` 6 with @ai-sdk/openai-compatible 2: Parlance's compiled agent imports the suite's `ai` 6 (not
// the repo's copy), so the version the doc names is the one that ran.
import { CLIENTS } from '../lib/clients.mjs'
import { load, redirect } from '../lib/parlance.mjs'
import { aiSdkCases } from '../lib/ai-sdk-cases.mjs'

redirect({ ai: 'ai' })
const ai = await import('ai')
const provider = await import('@ai-sdk/openai-compatible')
const { aiSdkAgent } = await load('src/agents/ai-sdk/index.ts')
aiSdkCases(CLIENTS.aiSdk6.title, { ai, provider, aiSdkAgent })
