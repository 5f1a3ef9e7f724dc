// Any AG-UI agent, served over every Parlance dialect (HAI, HUMA, MyAgent, HugAI, AI SDK, and AG-UI again).
// Run: AGUI_URL=http://127.0.0.1:9000/agui npx tsx examples/agui-bridge.ts   (same as: parlance serve --agent agui:URL)
import { createServer } from 'parlance-gateway'
import { aguiBridgeAgent } from 'parlance-gateway/agents/agui'

const remote = aguiBridgeAgent({
  url: process.env.AGUI_URL ?? 'http://127.0.0.1:9000/agui',
  // e.g. headers: { authorization: `Bearer ${process.env.AGUI_TOKEN}` },
})

const server = await createServer({ agents: [remote] })
const url = await server.listen(Number(process.env.PORT ?? 8000))
console.log(`inspector: ${url}/ (open it in a browser)  HAI: ${url.replace('http', 'ws')}/ws`)
