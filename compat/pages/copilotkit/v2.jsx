// The v2 API of @copilotkit/react-core: CopilotKitProvider, useAgent and useCopilotKit to send, useInterrupt
// (rendered in place) for the approval, useFrontendTool for the frontend tool; the state is the agent's.
import { useState } from 'react'
import { CopilotKitProvider, useAgent, useCopilotKit, useFrontendTool, useInterrupt } from '@copilotkit/react-core/v2'
import { z } from 'zod'
import { ApprovalCard, ChatView } from './view.jsx'

function Chat() {
  const [toolRuns, setToolRuns] = useState(0)
  const { agent } = useAgent({ agentId: 'default' })
  const { copilotkit } = useCopilotKit()
  useFrontendTool({
    name: 'get_client_info',
    description: 'Information about the client (runs in the browser)',
    parameters: z.object({}),
    handler: async () => {
      setToolRuns((n) => n + 1)
      return { app: 'copilotkit', ui: 'v2' }
    },
  })
  const approval = useInterrupt({
    renderInChat: false,
    render: ({ interrupt, resolve, cancel }) => (
      <ApprovalCard message={interrupt?.message} approve={() => resolve({ approved: true })} reject={() => cancel()} />
    ),
  })
  const send = (text) => {
    agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text })
    copilotkit.runAgent({ agent }).catch((err) => console.error('runAgent failed', err))
  }
  return <ChatView messages={agent.messages} send={send} busy={agent.isRunning} approval={approval} state={agent.state} toolRuns={toolRuns} />
}

export function V2App() {
  return (
    <CopilotKitProvider runtimeUrl="/api/copilotkit" showDevConsole={false} enableInspector={false}>
      <Chat />
    </CopilotKitProvider>
  )
}
