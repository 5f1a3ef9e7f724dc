// useStream (@langchain/langgraph-sdk/react, the hook Agent Chat UI is built on) against Parlance's LangGraph
// dialect (`?server=…/langgraph`, another origin), as a user writes it. `?ui=agent-chat-ui` configures the hook and
// makes its calls exactly as Agent Chat UI does (src/providers/Stream.tsx, Thread.tsx, components/thread/…):
// `fetchStateHistory`, `onCustomEvent`, content blocks with a message id, `streamMode: ['values']`,
// `streamSubgraphs`, `streamResumable`, optimistic values, resume with `submit({}, {command})`, threads listed by
// `threads.search({metadata: {graph_id}})`. Without it the hook rejoins a run after a reload (`reconnectOnMount`).
// `?thread=` is the thread (kept in the URL, so a reload opens it again). The test reads #messages > li[data-role]
// (text in .text, data-branches), #interrupt, #status, #threads > li, and clicks #send, #approve, #reject, #stop, and
// with Agent Chat UI's configuration a message's .edit, .regenerate and .previous-branch (its BranchSwitcher).
import { useCallback, useEffect, useMemo, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { Client } from '@langchain/langgraph-sdk'
import { useStream } from '@langchain/langgraph-sdk/react'

const params = new URLSearchParams(location.search)
const apiUrl = params.get('server')
const assistantId = params.get('assistant') ?? 'demo'
const agentChatUi = params.get('ui') === 'agent-chat-ui'

const textOf = (content) =>
  typeof content === 'string' ? content : (content ?? []).map((b) => (typeof b === 'string' ? b : b.type === 'text' ? b.text : '')).join('')

/** Agent Chat UI's ensureToolCallsHaveResponses: a tool message for each tool call nothing answered. */
function toolResponses(messages) {
  return messages.flatMap((m, i) =>
    m.type !== 'ai' || !m.tool_calls?.length || messages[i + 1]?.type === 'tool'
      ? []
      : m.tool_calls.map((tc) => ({
          type: 'tool',
          tool_call_id: tc.id ?? '',
          id: `do-not-render-${crypto.randomUUID()}`,
          name: tc.name,
          content: 'Successfully handled tool call.',
        })),
  )
}

function App() {
  const [text, setText] = useState('')
  const [threadId, setThreadId] = useState(params.get('thread'))
  const [threads, setThreads] = useState([])
  const client = useMemo(() => new Client({ apiUrl }), [])
  const listThreads = useCallback(
    () =>
      client.threads
        .search({ metadata: { graph_id: assistantId }, limit: 100 })
        .then(setThreads)
        .catch((e) => console.error(e)),
    [client],
  )
  useEffect(() => void listThreads(), [listThreads])
  const stream = useStream({
    apiUrl,
    assistantId,
    threadId,
    ...(agentChatUi ? { fetchStateHistory: true, onCustomEvent: () => {} } : { reconnectOnMount: true }),
    onThreadId: (id) => {
      setThreadId(id)
      const url = new URL(location.href)
      url.searchParams.set('thread', id)
      history.replaceState(null, '', url)
    },
    onFinish: () => void listThreads(),
  })

  const send = () => {
    if (agentChatUi) {
      const human = { id: crypto.randomUUID(), type: 'human', content: [{ type: 'text', text }] }
      const tools = toolResponses(stream.messages)
      stream.submit(
        { messages: [...tools, human], context: undefined },
        {
          streamMode: ['values'],
          streamSubgraphs: true,
          streamResumable: true,
          optimisticValues: (prev) => ({ ...prev, context: undefined, messages: [...(prev.messages ?? []), ...tools, human] }),
        },
      )
    } else stream.submit({ messages: [{ type: 'human', content: text }] }, { streamResumable: true, onDisconnect: 'continue' })
    setText('')
  }
  // messages/human.tsx handleSubmitEdit and thread/index.tsx handleRegenerate: from the checkpoint before the message.
  const fromCheckpoint = { streamMode: ['values'], streamSubgraphs: true, streamResumable: true }
  const edit = (m) => {
    const meta = stream.getMessagesMetadata(m)
    const edited = { type: 'human', content: text }
    stream.submit(
      { messages: [edited] },
      {
        ...fromCheckpoint,
        checkpoint: meta?.firstSeenState?.parent_checkpoint,
        optimisticValues: (prev) => {
          const values = meta?.firstSeenState?.values
          return values ? { ...values, messages: [...(values.messages ?? []), edited] } : prev
        },
      },
    )
    setText('')
  }
  const regenerate = (m) =>
    stream.submit(undefined, { ...fromCheckpoint, checkpoint: stream.getMessagesMetadata(m)?.firstSeenState?.parent_checkpoint })
  const decide = (decision) => stream.submit(agentChatUi ? {} : undefined, { command: { resume: { decisions: [decision] } } })
  const request = stream.interrupt?.value?.action_requests?.[0]
  const allowed = stream.interrupt?.value?.review_configs?.[0]?.allowed_decisions ?? []

  return (
    <main>
      <ul id="threads">
        {threads.map((t) => (
          <li key={t.thread_id} data-thread={t.thread_id} data-status={t.status}>
            <button onClick={() => setThreadId(t.thread_id)}>{textOf(t.values?.messages?.[0]?.content) || t.thread_id}</button>
          </li>
        ))}
      </ul>
      <p id="thread">{threadId ?? ''}</p>
      <ul id="messages">
        {stream.messages
          .filter((m) => !m.id?.startsWith('do-not-render-'))
          .map((m, i) => {
            const meta = agentChatUi ? stream.getMessagesMetadata(m, i) : undefined
            const options = meta?.branchOptions ?? []
            const at = options.indexOf(meta?.branch)
            return (
              <li key={m.id ?? i} data-role={m.type} data-tools={(m.tool_calls ?? []).map((c) => c.name).join(' ')} data-branches={options.length}>
                <span className="text">{textOf(m.content)}</span>
                {agentChatUi && m.type === 'human' && (
                  <button className="edit" onClick={() => edit(m)}>
                    Edit
                  </button>
                )}
                {agentChatUi && m.type === 'ai' && (
                  <button className="regenerate" onClick={() => regenerate(m)}>
                    Regenerate
                  </button>
                )}
                {at > 0 && (
                  <button className="previous-branch" onClick={() => stream.setBranch(options[at - 1])}>
                    {at + 1} / {options.length}
                  </button>
                )}
              </li>
            )
          })}
      </ul>
      {request && !stream.isLoading && (
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
      <p id="error">{stream.error ? String(stream.error.message ?? stream.error) : ''}</p>
      <input id="input" value={text} onChange={(e) => setText(e.target.value)} />
      <button id="send" onClick={send}>
        Send
      </button>
      <button id="stop" onClick={() => stream.stop()}>
        Stop
      </button>
    </main>
  )
}

createRoot(document.getElementById('root')).render(<App />)
