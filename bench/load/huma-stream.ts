// Load generator: one Socket.IO client per repetition (websocket transport) binds a new session, emits a
// triggering context-update "count N", confirms the message_sent delivery, and times until typing_end.
// Prints {seconds: [...], messageChars: n}. Usage: huma-stream.ts URL N REPS
import { io } from 'socket.io-client'

const [url = '', nRaw = '200000', repsRaw = '3'] = process.argv.slice(2)
const n = Number(nRaw)
const seconds: number[] = []
let chars = 0
for (let r = 0; r < Number(repsRaw); r++) {
  const socket = io(url, { transports: ['websocket'], auth: { sessionId: `bench-${process.pid}-${r}` }, reconnection: false })
  await new Promise<void>((resolve, reject) => {
    socket.once('session', () => resolve())
    socket.once('connect_error', reject)
  })
  const started = performance.now()
  await new Promise<void>((resolve, reject) => {
    socket.on('error', (e: unknown) => reject(new Error(JSON.stringify(e))))
    socket.on('event', (e: { event?: string; toolCallId?: string; messageIndex?: number; message?: string }) => {
      if (e.event === 'message_sent') {
        chars = e.message?.length ?? 0
        socket.emit('message', { type: 'addon-tool-event', toolCallId: e.toolCallId, data: { messageIndex: e.messageIndex, success: true } })
      } else if (e.event === 'typing_end') resolve()
    })
    socket.emit('message', { type: 'context-update', triggering: true, name: 'bench', context: {}, description: `count ${n}` })
  })
  seconds.push((performance.now() - started) / 1000)
  socket.close()
}
process.stdout.write(`${JSON.stringify({ seconds, messageChars: chars })}\n`)
