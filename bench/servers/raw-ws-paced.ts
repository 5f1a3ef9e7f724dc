// Baseline of the `paced` benchmark: a bare `ws` server (no store, no session, no encoder) that answers a HAI
// `user_message` "paced T MS" with the frames Parlance's HAI endpoint sends for bench/agents/paced.ts: T
// `assistant_message_chunk` frames ("1 ", "2 ", …, same fields and field order), frame i on a timer due at
// receipt + i·MS ms (the agent's absolute schedule, see bench/agents/paced.ts), then the final chunk and `status: completed`. One send per frame.
//
// With --data FILE it is the benchmark's durable floor: the least a server can do to keep every frame durable
// before it is sent. The frames of one event-loop tick wait in a list; at the end of the tick (setImmediate)
// their texts, joined by newlines, are appended as ONE row to a SQLite table keyed by rowid (one statement, one
// implicit transaction; WAL, synchronous NORMAL), then they are sent. It is the floor of write-before-send, not a
// usable store: nothing to read a session back by (a reader would scan every row), no session records, no
// serialization of its own (the frame text is stored), SQLite's own WAL checkpoints (inline, every 1,000 pages).
// Usage: raw-ws-paced.ts [--data FILE] (listens on 127.0.0.1, port 0, path ignored)
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { openSqlite } from '../../src/store/sqlite-driver.js'
import { WebSocket, WebSocketServer } from 'ws'
import { parsePaced } from '../agents/paced.js'

/** Sends a frame now, or (durable) once this tick's frames are in SQLite. */
function sender(file: string | undefined): (ws: WebSocket, text: string) => void {
  if (!file) return (ws, text) => ws.send(text)
  mkdirSync(dirname(file), { recursive: true })
  const db = openSqlite(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.exec('CREATE TABLE IF NOT EXISTS ticks (body TEXT NOT NULL)')
  const insert = db.prepare('INSERT INTO ticks (body) VALUES (?)')
  let texts: string[] = []
  let sockets: WebSocket[] = []
  const flush = () => {
    const t = texts
    const s = sockets
    texts = []
    sockets = []
    insert.run(t.join('\n'))
    for (let k = 0; k < t.length; k++) if (s[k]!.readyState === WebSocket.OPEN) s[k]!.send(t[k]!)
  }
  return (ws, text) => {
    if (texts.length === 0) setImmediate(flush)
    texts.push(text)
    sockets.push(ws)
  }
}

const at = process.argv.indexOf('--data')
const send = sender(at >= 0 ? process.argv[at + 1] : undefined)

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
      send(ws, `${head}${JSON.stringify(`${++i} `)}${tail},"is_final":false,"seq":${++seq}}`)
      if (i < t) return void setTimeout(tick, Math.max(0, start + (i + 1) * ms - performance.now()))
      send(ws, `${head}""${tail},"is_final":true,"seq":${++seq}}`)
      send(ws, `{"type":"status","status":"completed","session_id":${JSON.stringify(msg.session_id)},"agent_id":"paced","seq":${++seq}}`)
    }
    if (t > 0) setTimeout(tick, ms)
  })
})
