// The plain chat UI both apps render; the test reads and clicks it by id.
import { useState } from 'react'

/** The text of an AG-UI / CopilotKit message's content (a string, or parts). */
const textOf = (content) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => p.text ?? '').join('') : '')

export function ChatView({ messages, send, busy, approval, state, toolRuns }) {
  const [text, setText] = useState('')
  return (
    <main>
      <ul id="messages">
        {messages
          .filter((m) => (m.role === 'user' || m.role === 'assistant') && textOf(m.content))
          .map((m) => (
            <li key={m.id} data-role={m.role}>
              {textOf(m.content)}
            </li>
          ))}
      </ul>
      {approval}
      <pre id="state">{JSON.stringify(state ?? null)}</pre>
      <p id="tool-runs">{toolRuns}</p>
      <p id="busy">{busy ? 'running' : 'idle'}</p>
      <input id="input" value={text} onChange={(e) => setText(e.target.value)} />
      <button
        id="send"
        onClick={() => {
          send(text)
          setText('')
        }}
      >
        Send
      </button>
    </main>
  )
}

/** The approval card: the interrupt's message, and the two answers. */
export function ApprovalCard({ message, approve, reject }) {
  return (
    <section id="approval">
      <p id="approval-message">{message}</p>
      <button id="approve" onClick={approve}>
        Approve
      </button>
      <button id="reject" onClick={reject}>
        Reject
      </button>
    </section>
  )
}
