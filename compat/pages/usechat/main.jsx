// useChat against Parlance's /api/chat on another origin, as a user writes it: `?v=3` is @ai-sdk/react 3 with
// ai 6, `?v=4` is @ai-sdk/react 4 with ai 7; `?server=` names Parlance's origin and `?chat=` the chat id (kept
// across a reload, which resumes the stream: `resume: true`). The test reads #messages li[data-role], tool parts
// (li[data-tool] with data-state), #status, and clicks #send, #stop, #approve.
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { useChat as useChat3 } from 'ai-react3'
import { useChat as useChat4 } from 'ai-react4'
import { DefaultChatTransport as Transport6, lastAssistantMessageIsCompleteWithApprovalResponses as auto6 } from 'ai'
import { DefaultChatTransport as Transport7, lastAssistantMessageIsCompleteWithApprovalResponses as auto7 } from 'ai7'

const params = new URLSearchParams(location.search)
const v4 = params.get('v') === '4'
const useChat = v4 ? useChat4 : useChat3
const Transport = v4 ? Transport7 : Transport6
const transport = new Transport({ api: `${params.get('server')}/api/chat` })

function App() {
  const [text, setText] = useState('')
  const { messages, sendMessage, status, stop, addToolApprovalResponse } = useChat({
    id: params.get('chat'),
    transport,
    resume: true,
    sendAutomaticallyWhen: v4 ? auto7 : auto6,
  })
  return (
    <main>
      <ul id="messages">
        {messages.map((m) => (
          <li key={m.id} data-role={m.role}>
            <span className="text">{m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}</span>
            <ul>
              {m.parts
                .filter((p) => p.type.startsWith('tool-') || p.type === 'dynamic-tool')
                .map((p) => (
                  <li key={p.toolCallId} data-tool={p.toolName ?? p.type.slice(5)} data-state={p.state}>
                    {p.state === 'approval-requested' && (
                      <>
                        <button id="approve" onClick={() => addToolApprovalResponse({ id: p.approval.id, approved: true })}>
                          Approve
                        </button>
                        <button id="deny" onClick={() => addToolApprovalResponse({ id: p.approval.id, approved: false })}>
                          Deny
                        </button>
                      </>
                    )}
                  </li>
                ))}
            </ul>
          </li>
        ))}
      </ul>
      <p id="status">{status}</p>
      <input id="input" value={text} onChange={(e) => setText(e.target.value)} />
      <button
        id="send"
        onClick={() => {
          sendMessage({ text })
          setText('')
        }}
      >
        Send
      </button>
      <button id="stop" onClick={() => stop()}>
        Stop
      </button>
    </main>
  )
}

createRoot(document.getElementById('root')).render(<App />)
