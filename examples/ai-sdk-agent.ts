// An AI SDK agent: `streamText` with its tools, on any AI SDK provider, served over every dialect. Tool calls,
// approvals (`needsApproval`), reasoning and token usage reach every client; cancelling a run aborts the model request.
// Here the provider is any OpenAI-compatible server (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL); use
// openai('gpt-4o-mini') from @ai-sdk/openai, anthropic(…) from @ai-sdk/anthropic… the same way.
// Run: OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=llama3.2 npx tsx examples/ai-sdk-agent.ts
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { tool } from 'ai'
import { z } from 'zod'
import { createServer } from 'parlance-gateway'
import { aiSdkAgent } from 'parlance-gateway/agents/ai-sdk'

const provider = createOpenAICompatible({
  name: 'local',
  baseURL: process.env.OPENAI_BASE_URL ?? 'http://127.0.0.1:11434/v1',
  apiKey: process.env.OPENAI_API_KEY,
  includeUsage: true, // token usage in the stream: recorded per run, summed per session, in /metrics
})

const assistant = aiSdkAgent({
  name: 'assistant',
  model: provider.chatModel(process.env.OPENAI_MODEL ?? 'llama3.2'),
  system: 'You are a concise assistant. Use the tools when they help.',
  tools: {
    // Runs here: every client sees the call and its result.
    get_weather: tool({
      description: 'Current weather for a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, temperature_c: 21, conditions: 'sunny' }),
    }),
    // Asks a human first (ctx.approve, in whatever dialect they use); a refusal is reported to the model.
    delete_file: tool({
      description: 'Deletes a file permanently',
      inputSchema: z.object({ name: z.string() }),
      needsApproval: true,
      execute: async ({ name }) => `deleted ${name}`,
    }),
    // No execute: the client runs it and its result goes back to the model.
    get_location: tool({ description: "The user's city, as the client knows it", inputSchema: z.object({}) }),
  },
  approval: { risk: 'high' },
})

const server = await createServer({ agents: [assistant] })
const url = await server.listen(Number(process.env.PORT ?? 8000))
console.log(`inspector: ${url}/ (open it in a browser)  HAI: ${url.replace('http', 'ws')}/ws`)
