// Load generator for the replay benchmark.
//   replay.ts seed URL SESSION N   → streams `count N` live in SESSION: {eventsPerSecond, lastSeq, frames}
//   replay.ts replay URL SESSION LASTSEQ → attaches with ?session_id=SESSION&after=0 and times until the
//                                          frame carrying LASTSEQ: {eventsPerSecond, frames}
import WebSocket from 'ws'

const [mode, url = '', session = '', nRaw = '0'] = process.argv.slice(2)
const n = Number(nRaw)
const seqOf = (s: string) => Number(/"seq":(\d+)\}$/.exec(s)?.[1] ?? 0)

if (mode === 'seed') {
  const ws = new WebSocket(`${url}/ws`, { perMessageDeflate: false })
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  let frames = 0
  const started = performance.now()
  const lastSeq = await new Promise<number>((resolve) => {
    ws.on('message', (d: Buffer) => {
      frames++
      const s = d.toString()
      if (s.startsWith('{"type":"status","status":"completed"')) resolve(seqOf(s))
    })
    ws.send(JSON.stringify({ type: 'user_message', content: `count ${n}`, session_id: session }))
  })
  const seconds = (performance.now() - started) / 1000
  ws.close()
  process.stdout.write(`${JSON.stringify({ eventsPerSecond: n / seconds, lastSeq, frames })}\n`)
} else {
  let frames = 0
  const started = performance.now()
  const ws = new WebSocket(`${url}/ws?session_id=${encodeURIComponent(session)}&after=0`, { perMessageDeflate: false })
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject)
    ws.on('message', (d: Buffer) => {
      frames++
      // Only the last frames can carry the last seq; look at the end of each frame.
      if (seqOf(d.subarray(-40).toString()) >= n) resolve()
    })
  })
  const seconds = (performance.now() - started) / 1000
  ws.close()
  process.stdout.write(`${JSON.stringify({ eventsPerSecond: n / seconds, frames })}\n`)
}
