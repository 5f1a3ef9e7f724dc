// Baseline: a bare `ws` server that answers a HAI user_message "count N" with the same
// N+2 frames Parlance sends (chunks, final chunk, status completed), with no store and no session.
import { WebSocketServer } from 'ws'

const port = Number(process.argv[2] ?? 0)
const wss = new WebSocketServer({ port, host: '127.0.0.1', perMessageDeflate: false })
wss.on('listening', () => {
  const addr = wss.address()
  process.stdout.write(`listening ${addr && typeof addr === "object" ? addr.port : String(addr)}\n`)
})
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString()) as { content: string; session_id: string }
    const n = Number(/count (\d+)/.exec(msg.content)?.[1] ?? 0)
    const ids = `"session_id":${JSON.stringify(msg.session_id)},"agent_id":"demo"`
    let seq = 0
    let i = 1
    const pump = () => {
      const sock = (ws as unknown as { _socket: { cork(): void; uncork(): void } })._socket
      sock.cork()
      const end = Math.min(n, i + 2047)
      for (; i <= end; i++) {
        ws.send(`{"type":"assistant_message_chunk","content":"${i} ","message_id":"msg_1",${ids},"is_final":false,"seq":${++seq}}`)
      }
      sock.uncork()
      if (i <= n) {
        if (ws.bufferedAmount > 1024 * 1024) setTimeout(pump, 1)
        else setImmediate(pump)
        return
      }
      ws.send(`{"type":"assistant_message_chunk","content":"","message_id":"msg_1",${ids},"is_final":true,"seq":${++seq}}`)
      ws.send(`{"type":"status","status":"completed",${ids},"seq":${++seq}}`)
    }
    pump()
  })
})
