// Baseline of the `paced` benchmark over AG-UI: a bare node:http Server-Sent Events server answering
// POST /agui (RunAgentInput whose last message is "paced T MS") with the events Parlance's AG-UI endpoint
// sends for bench/agents/paced.ts: RUN_STARTED, TEXT_MESSAGE_START, T × TEXT_MESSAGE_CONTENT ("1 ", "2 ", …),
// event i on a timer due at receipt + i·MS ms (the agent's absolute schedule, see bench/agents/paced.ts), TEXT_MESSAGE_END, RUN_FINISHED, with
// `id:` = seq as Parlance numbers them. One write per event.
// Usage: raw-sse-paced.ts (listens on 127.0.0.1, port 0)
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { parsePaced } from '../agents/paced.js'

const http = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (d: string) => (body += d))
  req.on('end', () => {
    const input = JSON.parse(body) as { threadId: string; runId: string; messages: Array<{ content?: string }> }
    const [t, ms] = parsePaced(input.messages.at(-1)?.content ?? '')
    const ids = `"threadId":${JSON.stringify(input.threadId)},"runId":${JSON.stringify(input.runId)}`
    const mid = `"messageId":"msg_${randomUUID().replaceAll('-', '')}"`
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
    let seq = 2
    res.write(`data: {"type":"RUN_STARTED",${ids}}\n\n`)
    res.write(`id: ${++seq}\ndata: {"type":"TEXT_MESSAGE_START",${mid},"role":"assistant"}\n\n`)
    let i = 0
    const start = performance.now()
    let closed = false
    res.once('close', () => (closed = true))
    const tick = () => {
      if (closed) return
      res.write(`id: ${++seq}\ndata: {"type":"TEXT_MESSAGE_CONTENT",${mid},"delta":${JSON.stringify(`${++i} `)}}\n\n`)
      if (i < t) return void setTimeout(tick, Math.max(0, start + (i + 1) * ms - performance.now()))
      res.write(`id: ${++seq}\ndata: {"type":"TEXT_MESSAGE_END",${mid}}\n\n`)
      res.end(`id: ${++seq}\ndata: {"type":"RUN_FINISHED",${ids},"outcome":{"type":"success"}}\n\n`)
    }
    setTimeout(tick, ms)
  })
})
http.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const a = http.address()
  process.stdout.write(`listening ${typeof a === 'object' && a ? a.port : String(a)}\n`)
})
