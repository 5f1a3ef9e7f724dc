// The fixture MCP server over stdio: `node --import tsx test/fixtures-mcp/stdio.ts`.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { buildMcpServer } from './server.js'

await buildMcpServer().connect(new StdioServerTransport())
