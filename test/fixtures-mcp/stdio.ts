// The fixture MCP server over stdio: `node --import tsx test/fixtures-mcp/stdio.ts`. Besides the shared tools it has
// `crash`, which exits the process in the middle of the call (a connection that drops).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { buildMcpServer } from './server.js'

const server = buildMcpServer()
server.registerTool('crash', { description: 'Exits the server process during the call', inputSchema: {} }, () => process.exit(3))
await server.connect(new StdioServerTransport())
