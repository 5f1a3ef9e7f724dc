// The v1 API of @copilotkit/react-core: the CopilotKit provider, useCopilotChatInternal (what the v1 chat
// components run on), useLangGraphInterrupt for the approval, useCopilotAction for the frontend tool, useCoAgent
// for the shared state.
import { useState } from 'react'
import { CopilotKit, useCoAgent, useCopilotAction, useCopilotChatInternal, useLangGraphInterrupt } from '@copilotkit/react-core'
import { ApprovalCard, ChatView } from './view.jsx'

function Chat() {
  const [toolRuns, setToolRuns] = useState(0)
  const { messages, sendMessage, interrupt, isLoading } = useCopilotChatInternal()
  const { state } = useCoAgent({ name: 'default' })
  useCopilotAction({
    name: 'get_client_info',
    description: 'Information about the client (runs in the browser)',
    parameters: [],
    handler: async () => {
      setToolRuns((n) => n + 1)
      return { app: 'copilotkit', ui: 'v1' }
    },
  })
  useLangGraphInterrupt({
    render: ({ event, resolve }) => (
      <ApprovalCard message={event.value?.message} approve={() => resolve({ approved: true })} reject={() => resolve({ approved: false })} />
    ),
  })
  const send = (text) => sendMessage({ id: crypto.randomUUID(), role: 'user', content: text })
  return <ChatView messages={messages} send={send} busy={isLoading} approval={interrupt} state={state} toolRuns={toolRuns} />
}

export function V1App() {
  return (
    <CopilotKit runtimeUrl="/api/copilotkit" agent="default" showDevConsole={false} enableInspector={false}>
      <Chat />
    </CopilotKit>
  )
}
