// Baseline: a bare socket.io server emitting the frames Parlance's HUMA endpoint emits for the demo's
// `count N` while a HUMA socket is attached (see docs/dialects/huma.md: `ctx.say` becomes a messaging burst
// of one): 'event' typing_start, then message_sent carrying the whole text "1 2 … N ", then — after the
// client's delivery confirmation (addon-tool-event) — typing_end. No store, no session, no codec.
import { createServer } from 'node:http'
import { randomUUID } from 'node:crypto'
import { Server } from 'socket.io'

const http = createServer()
const io = new Server(http, { serveClient: false, maxHttpBufferSize: 16 * 1024 * 1024 })
io.on('connection', (socket) => {
  let seq = 0
  socket.emit('session', { sessionId: String(socket.handshake.auth.sessionId ?? randomUUID()), lastSeq: 0 })
  socket.on('message', (m: { type: string; description?: string; toolCallId?: string }) => {
    if (m.type === 'addon-tool-event') {
      seq++ // message.delivery
      socket.emit('event', { type: 'messaging', event: 'typing_end', toolCallId: m.toolCallId, seq: ++seq })
      return
    }
    const n = Number(/count (\d+)/.exec(m.description ?? '')?.[1] ?? 0)
    const toolCallId = randomUUID()
    seq += 2 // context.update, run.started
    socket.emit('event', { type: 'messaging', event: 'typing_start', toolCallId, seq: ++seq })
    const parts: string[] = []
    for (let i = 1; i <= n; i++) parts.push(`${i} `)
    socket.emit('event', {
      type: 'messaging',
      event: 'message_sent',
      toolCallId,
      message: parts.join(''),
      messageIndex: 0,
      messageCount: 1,
      seq: ++seq,
    })
  })
})
http.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const a = http.address()
  process.stdout.write(`listening ${typeof a === 'object' && a ? a.port : String(a)}\n`)
})
