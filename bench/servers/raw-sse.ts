// Baseline: a bare node:http Server-Sent Events server answering POST /agui with the frames Parlance's
// AG-UI endpoint sends for the demo's `count N` (RUN_STARTED, TEXT_MESSAGE_START, N × TEXT_MESSAGE_CONTENT,
// TEXT_MESSAGE_END, RUN_FINISHED, with `id:` = seq), written corked in batches of 2,048 with back-pressure.
import { createServer } from 'node:http'

const http = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (d: string) => (body += d))
  req.on('end', () => {
    const input = JSON.parse(body) as { threadId: string; runId: string; messages: Array<{ content?: string }> }
    const n = Number(/count (\d+)/.exec(input.messages.at(-1)?.content ?? '')?.[1] ?? 0)
    const ids = `"threadId":${JSON.stringify(input.threadId)},"runId":${JSON.stringify(input.runId)}`
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
    let seq = 2
    res.write(`data: {"type":"RUN_STARTED",${ids}}\n\n`)
    res.write(`id: ${++seq}\ndata: {"type":"TEXT_MESSAGE_START","messageId":"msg_1","role":"assistant"}\n\n`)
    let i = 1
    const pump = () => {
      res.cork()
      const end = Math.min(n, i + 2047)
      let ok = true
      for (; i <= end; i++) ok = res.write(`id: ${++seq}\ndata: {"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_1","delta":"${i} "}\n\n`)
      process.nextTick(() => res.uncork())
      if (i <= n) {
        if (ok) setImmediate(pump)
        else res.once('drain', pump)
        return
      }
      res.write(`id: ${++seq}\ndata: {"type":"TEXT_MESSAGE_END","messageId":"msg_1"}\n\n`)
      res.end(`id: ${++seq}\ndata: {"type":"RUN_FINISHED",${ids},"outcome":{"type":"success"}}\n\n`)
    }
    pump()
  })
})
http.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const a = http.address()
  process.stdout.write(`listening ${typeof a === 'object' && a ? a.port : String(a)}\n`)
})
