// An LLM agent: any OpenAI-compatible server (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL), with a server
// tool the model may call. Text streams as the model writes it; cancelling a run aborts the model request.
// Run: OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=llama3.2 npx tsx examples/llm-agent.ts
// Without OPENAI_BASE_URL it calls api.openai.com, which needs OPENAI_API_KEY. A model server that cannot be
// reached or refuses the key ends the run with an error naming its URL and the cause.
import { createServer } from 'parlance-gateway'
import { openaiAgent } from 'parlance-gateway/agents/openai'

const assistant = openaiAgent({
  name: 'assistant',
  model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
  system: 'You are a concise assistant. Use get_weather for weather questions.',
  tools: {
    get_weather: {
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: ({ city }) => ({ city: String(city), temperature_c: 21, conditions: 'sunny' }),
    },
  },
  maxSteps: 4,
})

if (!process.env.OPENAI_BASE_URL && !process.env.OPENAI_API_KEY) {
  console.warn('neither OPENAI_BASE_URL nor OPENAI_API_KEY is set: runs will fail until one model server is reachable (see the header)')
}
const server = await createServer({ agents: [assistant] })
const url = await server.listen(Number(process.env.PORT ?? 8000))
console.log(`inspector: ${url}/ (open it in a browser)  HAI: ${url.replace('http', 'ws')}/ws`)
