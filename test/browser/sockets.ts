// The socket dialects from a browser page: HAI, MyAgent and HugAI over the browser's own WebSocket (message
// shapes as in src/dialects/*/wire.ts), HUMA through socket.io-client with its default transports (polling
// first, then the upgrade). Each sends one message to the demo agent and resolves with the reply's text.
import { io } from 'socket.io-client'
import { openSocket, uid, within, wsUrl } from './util.js'

/** HAI (`/ws`): a user message; the streamed chunks until `status: completed`. */
export async function hai(base: string, text: string): Promise<string> {
  const ws = await openSocket(wsUrl(base, '/ws'))
  try {
    ws.send({ type: 'user_message', content: text, session_id: `hai-${uid()}` })
    let reply = ''
    await ws.until((m) => {
      if (m.type === 'error') throw new Error(`HAI error: ${JSON.stringify(m)}`)
      if (m.type === 'assistant_message_chunk') reply += String(m.content)
      return m.type === 'status' && m.status === 'completed'
    })
    return reply
  } finally {
    ws.close()
  }
}

/** MyAgent (`/myagent`): system.connected, a session, a message; the partial answers until the final answer. */
export async function myagent(base: string, text: string): Promise<string> {
  const ws = await openSocket(wsUrl(base, '/myagent'))
  try {
    await ws.until((e) => e.event === 'system.connected')
    ws.send({ event: 'user.create_session', content: { project_name: 'browser-origins' } })
    let sessionId = ''
    await ws.until((e) => {
      if (e.event === 'agent.session_created') sessionId = String(e.session_id)
      return sessionId !== ''
    })
    ws.send({ event: 'user.message', session_id: sessionId, content: text, timestamp: new Date().toISOString() })
    let reply = ''
    await ws.until((e) => {
      if (String(e.event).startsWith('error.')) throw new Error(`MyAgent error: ${JSON.stringify(e)}`)
      if (e.event === 'agent.partial_answer') reply += String(e.content)
      return e.event === 'agent.final_answer'
    })
    return reply
  } finally {
    ws.close()
  }
}

/** HugAI (`/rpc`): JSON-RPC `initialize`, then `agent/request` to the demo agent; the task's output. */
export async function hugai(base: string, text: string): Promise<string> {
  const ws = await openSocket(wsUrl(base, '/rpc'))
  const me = `browser-${uid()}`
  const call = async (id: number, method: string, params: unknown): Promise<Record<string, unknown>> => {
    ws.send({ jsonrpc: '2.0', id, method, params })
    let result: Record<string, unknown> | undefined
    await ws.until((m) => {
      if (m.id !== id) return false
      if (m.error) throw new Error(`HugAI ${method}: ${JSON.stringify(m.error)}`)
      result = m.result as Record<string, unknown>
      return true
    })
    return result!
  }
  try {
    await call(1, 'initialize', {
      processId: 1,
      agentId: me,
      capabilities: {},
      governanceLevel: 'supervised',
      clientInfo: { name: 'browser-origins' },
    })
    return String((await call(2, 'agent/request', { sourceAgent: me, targetAgent: 'demo', task: text })).output)
  } finally {
    ws.close()
  }
}

/**
 * HUMA (Socket.IO at `/socket.io/`) with socket.io-client's default transports: the handshake goes over HTTP
 * long-polling (cross-origin XHR), then upgrades to a WebSocket. Resolves with the delivered message and the
 * transports seen; reconnection is off so a refused handshake fails instead of retrying forever.
 */
export async function huma(base: string, text: string): Promise<{ reply: string; firstTransport: string; upgradedTo: string }> {
  const socket = io(base, { auth: { sessionId: `huma-${uid()}` }, reconnection: false, forceNew: true })
  try {
    let firstTransport = ''
    let upgradedTo = ''
    const upgraded = new Promise<void>((resolve) => {
      socket.io.on('open', () => {
        firstTransport = socket.io.engine.transport.name
        socket.io.engine.once('upgrade', (t: { name: string }) => {
          upgradedTo = t.name
          resolve()
        })
      })
    })
    await within(
      new Promise<void>((resolve, reject) => {
        socket.once('connect_error', (err) => reject(new Error(`socket.io connect_error: ${err.message}`)))
        socket.once('session', () => resolve())
      }),
      30_000,
      'HUMA session',
    )
    const reply = await within(
      new Promise<string>((resolve, reject) => {
        socket.on('error', (e: unknown) => reject(new Error(`HUMA error: ${JSON.stringify(e)}`)))
        socket.on('event', (e: { type: string; event?: string; message?: string; toolCallId?: string; messageIndex?: number }) => {
          if (e.type !== 'messaging' || e.event !== 'message_sent') return
          // Confirm the delivery, as a HUMA client does; then the agent's run ends.
          socket.emit('message', { type: 'addon-tool-event', toolCallId: e.toolCallId, data: { messageIndex: e.messageIndex, success: true } })
          resolve(e.message ?? '')
        })
        socket.emit('message', { type: 'context-update', triggering: true, name: 'new-message', context: {}, description: text })
      }),
      30_000,
      'HUMA reply',
    )
    await within(upgraded, 30_000, 'transport upgrade')
    return { reply, firstTransport, upgradedTo }
  } finally {
    socket.disconnect()
  }
}
