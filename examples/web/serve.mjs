// Serves this folder's front end on its own origin (a port of its own), as a Vite or Next.js dev server would:
//   node examples/web/serve.mjs            → http://127.0.0.1:3000/  (PORT=0 picks a free port)
// It talks to Parlance at ?server=URL (default http://127.0.0.1:8000). A Parlance listening on 127.0.0.1 allows
// pages on loopback origins by default; for a front end on another origin, start it with --allow-origin ORIGIN.
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'

const FILES = { '/': ['index.html', 'text/html; charset=utf-8'], '/app.js': ['app.js', 'text/javascript; charset=utf-8'] }
const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'

const server = createServer(async (req, res) => {
  const file = FILES[new URL(req.url ?? '/', 'http://localhost').pathname]
  if (req.method !== 'GET' || !file) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  try {
    const body = await readFile(new URL(file[0], import.meta.url))
    res.writeHead(200, { 'content-type': file[1], 'cache-control': 'no-store' }).end(body)
  } catch (err) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err))
  }
})

server.listen(port, host, () => {
  const { port: actual } = server.address()
  console.log(`front end: http://${host}:${actual}/ (talks to Parlance at ?server=URL, default http://127.0.0.1:8000)`)
})
