// A front end on its own origin talking to Parlance over HAI: the browser's WebSocket to `/ws`, one JSON message
// per frame (the HAI section of Parlance's README lists every message). No build step and no dependency: serve it
// with `node examples/web/serve.mjs`.
//
// Query parameters: `server` (Parlance's URL, default http://127.0.0.1:8000), `token` (when Parlance has auth on:
// browsers cannot set headers on a WebSocket, so it goes as the `parlance.bearer` subprotocol, never in the URL).
const params = new URLSearchParams(location.search)
const server = new URL(params.get('server') ?? 'http://127.0.0.1:8000')
const wsUrl = new URL('/ws', server)
wsUrl.protocol = server.protocol === 'https:' ? 'wss:' : 'ws:'
/** The subprotocols that carry a token from a browser: Parlance answers `parlance.bearer` and reads the other. */
function bearerProtocols(token) {
  const b64url = btoa(String.fromCharCode(...new TextEncoder().encode(token)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
  return ['parlance.bearer', `parlance.bearer.${b64url}`]
}

const sessionId = `web-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
const transcript = document.getElementById('transcript')
const status = document.getElementById('status')
const input = document.getElementById('message')
document.getElementById('server').textContent = `Parlance: ${server.origin} (this page: ${location.origin})`

/** Appends a transcript entry; returns it (an assistant message grows as its chunks arrive). */
function entry(kind, text) {
  const li = document.createElement('li')
  li.className = kind
  li.textContent = text
  transcript.append(li)
  return li
}

const socket = params.get('token') ? new WebSocket(wsUrl, bearerProtocols(params.get('token'))) : new WebSocket(wsUrl)
/** The assistant message being streamed, by message_id. */
const streaming = new Map()

socket.addEventListener('open', () => (status.textContent = 'connected'))
socket.addEventListener(
  'close',
  (ev) => (status.textContent = `disconnected (${ev.code})${ev.code === 1006 ? ': is Parlance running, and does it allow this origin?' : ''}`),
)
socket.addEventListener('message', (ev) => {
  const m = JSON.parse(ev.data)
  switch (m.type) {
    case 'assistant_message_chunk': {
      let li = streaming.get(m.message_id)
      if (!li) streaming.set(m.message_id, (li = entry('assistant', '')))
      li.textContent += m.content
      if (m.is_final) {
        li.dataset.done = 'true'
        streaming.delete(m.message_id)
      }
      break
    }
    case 'assistant_message':
      entry('assistant', m.content).dataset.done = 'true'
      break
    case 'tool_approval_request':
      ask(m)
      break
    case 'status':
      status.textContent = m.message ? `${m.status}: ${m.message}` : m.status
      break
    case 'error':
      entry('error', `${m.error_code}: ${m.message}`)
      break
  }
})

/** An approval request: the agent waits until one of the two buttons answers it. */
function ask(m) {
  const li = entry('approval', `The agent wants to run ${m.tool_name} (${m.risk_level} risk): ${m.reasoning} `)
  for (const [label, approved] of [
    ['Approve', true],
    ['Reject', false],
  ]) {
    const button = document.createElement('button')
    button.type = 'button'
    button.textContent = label
    button.addEventListener('click', () => {
      socket.send(JSON.stringify({ type: 'tool_approval_response', approval_id: m.approval_id, approved }))
      li.querySelectorAll('button').forEach((b) => b.remove())
      li.append(approved ? '(approved)' : '(rejected)')
    })
    li.append(button)
  }
}

document.getElementById('composer').addEventListener('submit', (ev) => {
  ev.preventDefault()
  const content = input.value.trim()
  if (!content || socket.readyState !== WebSocket.OPEN) return
  entry('user', content)
  socket.send(JSON.stringify({ type: 'user_message', content, session_id: sessionId }))
  input.value = ''
})
