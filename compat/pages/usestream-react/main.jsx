// useStream of @langchain/react 1.x (the agent streaming protocol: POST …/commands, POST …/stream/events) against
// Parlance's LangGraph dialect (`?server=…/langgraph`, another origin), as its docs write it: `submit` a message,
// `stream.interrupt` shown and answered with `respond`, `stop`. `?thread=` is the thread (kept in the URL, so a
// reload opens it again). The test reads #messages > li[data-role] (text in .text), #interrupt, #status, #thread and
// clicks #send, #approve, #reject, #stop.
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { useStream } from '@langchain/react'

const params = new URLSearchParams(location.search)
const apiUrl = params.get('server')
const assistantId = params.get('assistant') ?? 'demo'

const textOf = (content) =>
  typeof content === 'string' ? content : (content ?? []).map((b) => (typeof b === 'string' ? b : b.type === 'text' ? b.text : '')).join('')
const roleOf = (m) => m.type ?? m._getType?.()

function App() {
  const [text, setText] = useState('')
  const [threadId, setThreadId] = useState(params.get('thread'))
  const stream = useStream({
    apiUrl,
    assistantId,
    threadId,
    onThreadId: (id) => {
      setThreadId(id)
      const url = new URL(location.href)
      url.searchParams.set('thread', id)
      history.replaceState(null, '', url)
    },
  })
  const send = () => {
    void stream.submit({ messages: [{ type: 'human', content: text }] })
    setText('')
  }
  const decide = (decision) => void stream.respond({ decisions: [decision] })
  const value = stream.interrupt?.value
  const request = value?.action_requests?.[0]
  const allowed = value?.review_configs?.[0]?.allowed_decisions ?? []
  return (
    <main>
      <p id="thread">{threadId ?? ''}</p>
      <ul id="messages">
        {stream.messages.map((m, i) => (
          <li key={m.id ?? i} data-role={roleOf(m)}>
            <span className="text">{textOf(m.content)}</span>
          </li>
        ))}
      </ul>
      {request && (
        <div id="interrupt" data-action={request.name} data-allowed={allowed.join(' ')}>
          <p>{request.description}</p>
          <button id="approve" onClick={() => decide({ type: 'approve' })}>
            Approve
          </button>
          <button id="reject" onClick={() => decide({ type: 'reject', message: 'not today' })}>
            Reject
          </button>
        </div>
      )}
      <p id="status">{stream.isLoading ? 'loading' : 'ready'}</p>
      {stream.error ? <p id="error">{String(stream.error.message ?? stream.error)}</p> : null}
      <input id="input" value={text} onChange={(e) => setText(e.target.value)} />
      <button id="send" onClick={send}>
        Send
      </button>
      <button id="stop" onClick={() => void stream.stop()}>
        Stop
      </button>
    </main>
  )
}

createRoot(document.getElementById('root')).render(<App />)
