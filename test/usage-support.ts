// The server of the usage tests: aiSdkAgent ('ai') and openaiAgent ('oa') against a local fake OpenAI-compatible
// server that reports usage.
import type { TestContext } from 'node:test'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { tool } from 'ai'
import { z } from 'zod'
import { aiSdkAgent } from '../src/agents/ai-sdk/index.js'
import { openaiAgent } from '../src/agents/openai/index.js'
import { startServer } from './harness.js'
import { fakeOpenAI } from './support/fake-openai.js'

/** Starts the fake model server and a Parlance server with both agents (serving the inspector from `inspectorDir`). */
export async function setup(t: TestContext, inspectorDir?: string) {
  const llm = await fakeOpenAI()
  const provider = createOpenAICompatible({ name: 'fakeai', baseURL: llm.url, apiKey: 'test', includeUsage: true })
  const get_weather = tool({ description: 'Weather', inputSchema: z.object({ city: z.string() }), execute: ({ city }) => ({ city }) })
  const ai = aiSdkAgent({ name: 'ai', model: provider.chatModel('fake-1'), system: 'Be brief.', tools: { get_weather } })
  const oa = openaiAgent({ name: 'oa', model: 'fake-2', baseURL: llm.url, apiKey: 'test', system: 'Be brief.' })
  const s = await startServer({ agents: [ai, oa], ...(inspectorDir ? { inspectorDir } : {}) })
  t.after(async () => {
    await s.close()
    await llm.close()
  })
  return { llm, s }
}
