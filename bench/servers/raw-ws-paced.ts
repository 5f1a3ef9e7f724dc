// Baseline of the `paced` benchmark: a bare `ws` server (no store, no session, no encoder) that answers a HAI
// `user_message` "paced T MS" with the frames Parlance's HAI endpoint sends for bench/agents/paced.ts: T
// `assistant_message_chunk` frames ("1 ", "2 ", …, same fields and field order), frame i on a timer due at
// receipt + i·MS ms (the agent's absolute schedule, see bench/agents/paced.ts), then the final chunk and `status: completed`. One send per frame.
// Usage: raw-ws-paced.ts (listens on 127.0.0.1, port 0, path ignored)
import { randomUUID } from 'node:crypto'
import { WebSocketServer } from 'ws'
import { parsePaced } from '../agents/paced.js'

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', backlog: 4096, perMessageDeflate: false })
wss.on('listening', () => {
  const addr = wss.address()
  process.stdout.write(`listening ${addr && typeof addr === 'object' ? addr.port : String(addr)}\n`)
})

wss.on('connection', (ws) => {
  ws.on('error', () => {})
  ws.on('message', (data) => {
    const msg = JSON.parse((data as Buffer).toString('utf8')) as { content: string; session_id: string }
    const [t, ms] = parsePaced(msg.content)
    // Parlance: seq 1 user message, 2 run started, 3 message started; the chunks follow.
    const head = `{"type":"assistant_message_chunk","content":`
    const tail = `,"message_id":"msg_${randomUUID().replaceAll('-', '')}","session_id":${JSON.stringify(msg.session_id)},"agent_id":"paced"`
    let seq = 3
    let i = 0
    const start = performance.now()
    const tick = () => {
      if (ws.readyState !== ws.OPEN) return
      ws.send(`${head}${JSON.stringify(`${++i} `)}${tail},"is_final":false,"seq":${++seq}}`)
      if (i < t) return void setTimeout(tick, Math.max(0, start + (i + 1) * ms - performance.now()))
      ws.send(`${head}""${tail},"is_final":true,"seq":${++seq}}`)
      ws.send(`{"type":"status","status":"completed","session_id":${JSON.stringify(msg.session_id)},"agent_id":"paced","seq":${++seq}}`)
    }
    if (t > 0) setTimeout(tick, ms)
  })
})
