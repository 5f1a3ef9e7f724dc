// What test/browser-origins.test.ts needs besides Parlance: the page bundle (esbuild), a static server for the
// page's own origin, Chromium with every *.test name mapped to 127.0.0.1 (and no other name resolvable), a log
// of every request, preflight and WebSocket handshake the page made (read from Chromium's DevTools protocol, so
// a refusal is seen as the status the server sent, not only as "the client failed"), and raw HTTP/WebSocket
// requests with any Origin and Host.
import { readFile } from 'node:fs/promises'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { build } from 'esbuild'
import type { Browser, Page } from 'playwright-core'
import { CHROMIUM, launchChromium as launchBrowser } from './support/chromium.js'
import WebSocket from 'ws'

export { CHROMIUM }

/** Bundles test/browser/page.ts for the browser into `outDir/page.js` (esbuild: ~1 s; vite's rollup build of the same takes ~30 s here). */
export async function bundlePage(outDir: string): Promise<void> {
  await build({
    entryPoints: [join(import.meta.dirname, 'browser', 'page.ts')],
    outfile: join(outDir, 'page.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    define: { 'process.env.NODE_ENV': '"production"' },
    minify: true,
    logLevel: 'warning',
  })
}

export interface StaticServer {
  /** Its port on 127.0.0.1: the page origins are http://<name>:<port> for every name mapped to 127.0.0.1. */
  port: number
  close(): Promise<void>
}

/** Serves exactly `files` (URL path → file) on 127.0.0.1:0; anything else is 404. */
export async function serveStatic(files: Record<string, string>): Promise<StaticServer> {
  const types: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8' }
  const server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname]
    if (req.method !== 'GET' || !file) return void res.writeHead(404).end()
    readFile(file).then(
      (body) =>
        res.writeHead(200, { 'content-type': types[file.split('.').pop()!] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(body),
      () => res.writeHead(500).end(),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/**
 * Debian's Chromium with the standard flags (test/support/chromium.ts), plus host-resolver rules: every `*.test`
 * name is 127.0.0.1 (pages on other origins, still on loopback) and every other name except localhost fails to
 * resolve, so nothing the page does can leave this machine.
 */
export function launchChromium(): Promise<Browser> {
  return launchBrowser(['--host-resolver-rules=MAP *.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1'])
}

/** One request, CORS preflight or WebSocket handshake the page made, as Chromium saw it on the wire. */
export interface Exchange {
  kind: 'http' | 'preflight' | 'websocket'
  url: URL
  method: string
  /** The status the server answered (101 for an accepted WebSocket); undefined when no answer arrived. */
  status?: number
  /** Response headers, lower-cased names (empty for a refused WebSocket: Chromium reports only its status). */
  headers: Record<string, string>
  /** Chromium's IP address space of the peer ('Loopback' for every answer in these tests). */
  addressSpace?: string
  /** Chromium's error text when the request failed (net::ERR_FAILED for a CORS refusal, ERR_NAME_NOT_RESOLVED…). */
  failure?: string
}

type Cdp = { on(event: string, fn: (p: Record<string, unknown>) => void): void; send(method: string): Promise<unknown> }

/** Records the page's network exchanges through the DevTools protocol (Playwright's own events skip preflights). */
export class NetLog {
  private readonly byId = new Map<string, Exchange>()
  private readonly watchers = new Set<() => void>()

  static async attach(page: Page): Promise<NetLog> {
    const log = new NetLog()
    const cdp = (await page.context().newCDPSession(page)) as unknown as Cdp
    const at = (id: unknown, init: () => Exchange): Exchange => {
      let x = log.byId.get(String(id))
      if (!x) log.byId.set(String(id), (x = init()))
      return x
    }
    const blank = (): Exchange => ({ kind: 'http', url: new URL('about:blank'), method: '', headers: {} })
    const lower = (h: unknown) => Object.fromEntries(Object.entries((h ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]))
    cdp.on('Network.requestWillBeSent', (p) => {
      const r = p.request as { url: string; method: string }
      const x = at(p.requestId, blank)
      x.url = new URL(r.url)
      x.method = r.method
      if (p.type === 'Preflight' || r.method === 'OPTIONS') x.kind = 'preflight'
    })
    cdp.on('Network.responseReceived', (p) => {
      if (p.type === 'Preflight') at(p.requestId, blank).kind = 'preflight'
    })
    cdp.on('Network.responseReceivedExtraInfo', (p) => {
      const x = at(p.requestId, blank)
      x.status = Number(p.statusCode)
      x.headers = lower(p.headers)
      x.addressSpace = String(p.resourceIPAddressSpace)
    })
    cdp.on('Network.loadingFailed', (p) => {
      at(p.requestId, blank).failure = String(p.errorText)
    })
    cdp.on('Network.webSocketCreated', (p) => {
      Object.assign(at(p.requestId, blank), { kind: 'websocket', url: new URL(String(p.url)), method: 'GET' })
    })
    cdp.on('Network.webSocketHandshakeResponseReceived', (p) => {
      const r = p.response as { status: number; headers: Record<string, string> }
      Object.assign(at(p.requestId, blank), { status: r.status, headers: lower(r.headers) })
    })
    cdp.on('Network.webSocketFrameError', (p) => {
      const x = at(p.requestId, blank)
      const refused = /Unexpected response code: (\d+)/.exec(String(p.errorMessage))
      if (refused && x.status === undefined) x.status = Number(refused[1])
      else x.failure ??= String(p.errorMessage)
    })
    // Every event that fills in a field re-checks the waits: an exchange's parts arrive in no fixed order. The
    // network service's responseReceivedExtraInfo (the status) can come before the renderer's requestWillBeSent
    // (the URL), and on a stream held open nothing comes after those two, so a wait woken only by the status
    // would miss the exchange for good.
    for (const event of [
      'Network.requestWillBeSent',
      'Network.responseReceived',
      'Network.responseReceivedExtraInfo',
      'Network.loadingFailed',
      'Network.webSocketCreated',
      'Network.webSocketHandshakeResponseReceived',
      'Network.webSocketFrameError',
    ]) {
      cdp.on(event, () => queueMicrotask(() => log.watchers.forEach((w) => w())))
    }
    await cdp.send('Network.enable')
    return log
  }

  /** Resolves with the first exchange matching `match` (seen already or later); rejects after `timeoutMs`. */
  async waitFor(match: (x: Exchange) => boolean, what: string, timeoutMs = 20_000): Promise<Exchange> {
    await this.until(() => this.all.some(match), what, timeoutMs)
    return this.all.find(match)!
  }

  /**
   * Resolves once every exchange with the server on `port` has its outcome (a status or a failure): Chromium
   * reports them a little after the page's own promise settled.
   */
  settled(port: number, timeoutMs = 20_000): Promise<void> {
    return this.until(
      () => this.to(port).every((x) => x.status !== undefined || x.failure !== undefined),
      `outcome of every exchange with port ${port}`,
      timeoutMs,
    )
  }

  /** Resolves when `done()` holds, checked at each network event; rejects after `timeoutMs`. */
  private until(done: () => boolean, what: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return
        stop()
        resolve()
      }
      const timer = setTimeout(() => {
        stop()
        reject(new Error(`no ${what} within ${timeoutMs} ms; seen:\n${this.dump()}`))
      }, timeoutMs)
      const stop = () => {
        clearTimeout(timer)
        this.watchers.delete(check)
      }
      this.watchers.add(check)
      check()
    })
  }

  /** Every exchange so far, one a line with its outcome, for failure messages. */
  dump(): string {
    return this.all.map((x) => `${x.kind} ${x.method} ${x.url.href} ${x.status ?? x.failure ?? 'pending'}`).join('\n')
  }

  /** Every exchange so far, in the order they started. */
  get all(): Exchange[] {
    return [...this.byId.values()].filter((x) => x.url.protocol !== 'about:')
  }

  /** The exchanges with the server on `port` (any host name). */
  to(port: number): Exchange[] {
    return this.all.filter((x) => Number(x.url.port) === port)
  }
}

/** An HTTP request with exactly the headers given (Origin and Host included), answered whole. */
export function rawHttp(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      // A stream (SSE) that was allowed is not read to its end: its status and headers are what is checked.
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        res.destroy()
        return resolve({ status: res.statusCode ?? 0, headers: res.headers, body })
      }
      res.on('data', (d: string) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      res.on('error', reject)
    })
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url} within 10 s`)))
    req.on('error', reject)
    req.end(init.body)
  })
}

/** A WebSocket handshake with the headers given: resolves 101 when accepted, else the refusal's status. */
export function wsHandshake(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, handshakeTimeout: 10_000 })
    ws.on('open', () => {
      ws.close()
      resolve(101)
    })
    ws.on('unexpected-response', (req, res) => {
      resolve(res.statusCode ?? 0)
      req.destroy()
    })
    ws.on('error', (err) => reject(err))
  })
}
