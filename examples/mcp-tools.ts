// An LLM agent whose tools come from an MCP server, served over every Parlance dialect.
// Run: MCP_URL=http://127.0.0.1:9000/mcp OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=llama3.2 npx tsx examples/mcp-tools.ts
// (same as: parlance serve --agent openai --model MODEL --mcp MCP_URL)
import { createServer } from 'parlance-gateway'
import { mcpTools } from 'parlance-gateway/agents/mcp'
import { openaiAgent } from 'parlance-gateway/agents/openai'

// Streamable HTTP (or SSE); a local server over stdio: mcpTools({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] })
const tools = await mcpTools({ url: process.env.MCP_URL ?? 'http://127.0.0.1:9000/mcp' })

const server = await createServer({
  agents: [openaiAgent({ model: process.env.MODEL ?? 'gpt-4o-mini', tools })],
  // The same tools for HugAI clients: tool/integration { tool: 'mcp', action: '<tool name>', data: { …arguments } }
  integrations: { mcp: tools },
})
const url = await server.listen(Number(process.env.PORT ?? 8000))
console.log(`inspector: ${url}/ (open it in a browser)  HAI: ${url.replace('http', 'ws')}/ws  tools: ${Object.keys(tools).join(', ')}`)

process.once('SIGINT', () => void server.close().then(() => process.exit(0))) // closes the integrations, so the MCP connection too
