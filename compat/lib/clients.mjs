// The clients of the compatibility suite: each test file's top-level describe is one of these titles, and
// lib/write-doc.mjs lists, for each, the versions actually installed of its packages (read from
// compat/node_modules/<package>/package.json, or the copy `from` another package resolves; an npm alias is read
// under its alias and shown under its real name).
export const CLIENTS = {
  copilotV1: {
    title: 'CopilotKit, v1 hooks',
    about:
      '`@copilotkit/react-core` v1 API (`CopilotKit`, `useCopilotChatInternal` (what the v1 chat components run on), `useCopilotAction`, `useCoAgent`, `useLangGraphInterrupt`) in Chromium, through the CopilotKit runtime (v2 API, in Node) to Parlance as its AG-UI agent',
    packages: [{ name: '@copilotkit/react-core' }, { name: '@copilotkit/runtime' }, { name: '@ag-ui/client', from: '@copilotkit/runtime' }],
  },
  copilotV2: {
    title: 'CopilotKit, v2 hooks',
    about:
      '`@copilotkit/react-core/v2` (`CopilotKitProvider`, `useAgent`, `useFrontendTool`, `useInterrupt`) in Chromium, through the CopilotKit runtime (v2 API, in Node) to Parlance as its AG-UI agent',
    packages: [{ name: '@copilotkit/react-core' }, { name: '@copilotkit/runtime' }, { name: '@ag-ui/client', from: '@copilotkit/runtime' }],
  },
  useChat3: {
    title: 'useChat, @ai-sdk/react 3 (ai 6)',
    about: '`useChat` in Chromium, the page on another origin than the server, `/api/chat`',
    packages: [{ name: 'ai-react3' }, { name: 'ai', from: 'ai-react3' }],
  },
  useChat4: {
    title: 'useChat, @ai-sdk/react 4 (ai 7)',
    about: '`useChat` in Chromium, the page on another origin than the server, `/api/chat`',
    packages: [{ name: 'ai-react4' }, { name: 'ai', from: 'ai-react4' }],
  },
  agui0059: {
    title: '@ag-ui/client 0.0.59 HttpAgent',
    about: 'in Node, `POST /agui`',
    packages: [{ name: 'ag-ui-client-0059' }],
  },
  agui1: {
    title: '@ag-ui/client 1.0 HttpAgent',
    about: 'in Node, `POST /agui`',
    packages: [{ name: '@ag-ui/client' }],
  },
  mcpSdk1: {
    title: 'MCP TypeScript SDK 1.x client',
    about: 'in Node, `Client` over `StreamableHTTPClientTransport`, `POST /mcp`',
    packages: [{ name: '@modelcontextprotocol/sdk' }],
  },
  mcpClient2: {
    title: 'MCP TypeScript SDK 2.x client',
    about: 'in Node, `Client` over `StreamableHTTPClientTransport`, `POST /mcp`',
    packages: [{ name: '@modelcontextprotocol/client' }],
  },
  a2a: {
    title: 'A2A JS SDK client',
    about: 'in Node, the client built from the agent card, `POST /a2a`',
    packages: [{ name: '@a2a-js/sdk' }],
  },
  useStream: {
    title: 'useStream, @langchain/langgraph-sdk/react',
    about:
      '`useStream` (the hook Agent Chat UI is built on) in Chromium, the page on another origin than the server, `/langgraph`: chat, approvals, reload and rejoin (`reconnectOnMount`), threads',
    packages: [{ name: '@langchain/langgraph-sdk' }],
  },
  useStreamReact: {
    title: 'useStream, @langchain/react',
    about:
      "`useStream` of `@langchain/react` (LangGraph's agent streaming protocol: `POST …/commands`, `POST …/stream/events`) in Chromium, the page on another origin than the server, `/langgraph`: chat, approvals (`respond`), reload and rejoin, stop",
    packages: [{ name: '@langchain/react' }, { name: '@langchain/langgraph-sdk', from: '@langchain/react' }],
  },
  agentChatUi: {
    title: 'Agent Chat UI (its useStream configuration)',
    about:
      "`useStream` from `@langchain/langgraph-sdk/react` in Chromium configured and called as Agent Chat UI's providers and thread components do (`fetchStateHistory`, `streamMode: ['values']`, resume with `submit({}, {command})`, threads searched by `graph_id`); its calls replayed with the SDK `Client` in Node",
    packages: [{ name: '@langchain/langgraph-sdk' }],
  },
  aiSdk6: {
    title: 'aiSdkAgent on ai 6',
    about: "Parlance's `aiSdkAgent` with `ai` 6 and `@ai-sdk/openai-compatible` 2 against a fake OpenAI-compatible server on loopback",
    packages: [{ name: 'ai' }, { name: '@ai-sdk/openai-compatible' }],
  },
  aiSdk7: {
    title: 'aiSdkAgent on ai 7',
    about:
      "Parlance's `aiSdkAgent` with `ai` 7 and `@ai-sdk/openai-compatible` 3 (Node 22 and later: run under Node 24) against a fake OpenAI-compatible server on loopback",
    packages: [{ name: 'ai7' }, { name: 'openai-compatible3' }],
  },
}
