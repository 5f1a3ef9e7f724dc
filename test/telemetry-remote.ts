// A local AG-UI agent for the tracing tests (127.0.0.1): it records the headers of every request it gets.
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

/** A local AG-UI agent: answers every run with one text message, and records each request's headers. */
export async function aguiRemote(t: TestContext) {
  const seen: IncomingHttpHeaders[] = []
  const server = createHttpServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      seen.push(req.headers)
      const input = JSON.parse(body) as { threadId: string; runId: string }
      const ids = { threadId: input.threadId, runId: input.runId }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const e of [
        { type: 'RUN_STARTED', ...ids },
        { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'hello from afar' },
        { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
        { type: 'RUN_FINISHED', ...ids },
      ])
        res.write(`data: ${JSON.stringify(e)}\n\n`)
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.after(() => server.close())
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agui` }
}
