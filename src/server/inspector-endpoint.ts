import { createReadStream, type Stats } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ParlanceError, SSE_HEADERS, type Principal } from '../core/index.js'
import type { Capabilities } from '../binding/dialect.js'
import type { Endpoint, EndpointDeps, EndpointFactory } from '../binding/endpoint.js'
import { answerErrors } from '../binding/http-errors.js'
import { sendJson } from '../binding/http-util.js'
import type { SessionRow } from '../client/inspector-api.js'
import type { BatchEncoder } from '../session/index.js'

/** The inspector's stream: each canonical event as one SSE message with its seq as id; the same for every watcher. */
const INSPECTOR_SSE: BatchEncoder<string, null> = {
  encode: (events) => ({ frames: events.map((e) => `id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`), view: null }),
  shareKey: () => 'inspector',
}

/** What the inspector endpoint takes beyond the common deps (passed by `createServer`). */
export interface InspectorDeps {
  /**
   * Directory of the built inspector (Vite's output: `index.html`, `assets/`).
   * @default `dist/inspector` of this package
   */
  readonly inspectorDir?: string
  /** What each served dialect carries, by name (`capabilitiesOf` the served dialects), for `GET /inspector/api/info`. */
  readonly capabilities?: Readonly<Record<string, Capabilities>>
}

/** Where `npm run build` puts the inspector: `<package>/dist/inspector`, from `src/server` and `dist/server` alike. */
export const DEFAULT_INSPECTOR_DIR = fileURLToPath(new URL('../../dist/inspector/', import.meta.url))

/** URL prefix of the inspector's files and API (Vite builds with `base: '/inspector/'`). */
const PREFIX = '/inspector/'
const API = '/inspector/api/'
const EVENTS_ROUTE = /^\/inspector\/api\/sessions\/([^/]{1,256})\/(events|stream)$/
const MAX_PAGE = 1000
const HEARTBEAT_MS = 15_000

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

/** The page's policy: everything from this origin, nothing from elsewhere (no CDN, works offline). */
const CSP =
  "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' }

let streamNo = 0

/**
 * The inspector: its single-page app at `GET /` (for browsers: requests that accept `text/html`; other clients
 * still get the server's JSON index) and `GET /inspector/`, its static files under `/inspector/`, and a small
 * JSON API for it under `/inspector/api/`:
 * - `GET /inspector/api/info`: the caller's principal, the served agents, and each served dialect's capabilities;
 * - `GET /inspector/api/sessions?limit=N`: the caller's sessions, loaded (with connections per dialect) and stored;
 *   a fork carries `forkedFrom: {sessionId, atSeq}` (forks are made by `POST /sessions/:id/fork`, sessions-endpoint.ts);
 * - `GET /inspector/api/sessions/:id/events?after=SEQ&limit=N`: a page of the session's canonical events;
 * - `GET /inspector/api/sessions/:id/stream?after=SEQ`: its canonical events as Server-Sent Events, replayed
 *   then live (`id:` = seq).
 * The API needs the same credentials as every endpoint and shows a session only to its owner. The static
 * files hold no data, so they are served without credentials (the page then asks for a token).
 */
export const inspectorEndpoint: EndpointFactory = (deps: EndpointDeps & InspectorDeps): Endpoint => {
  const root = resolve(deps.inspectorDir ?? DEFAULT_INSPECTOR_DIR)
  const streams = new Set<ServerResponse>()
  return {
    dialect: 'inspector',
    paths: { inspector: '/' },
    request(req, res, url) {
      if (url.pathname.startsWith(API)) {
        void answerErrors(deps, 'inspector', res, () => api(deps, req, res, url, streams))
        return true
      }
      return serveStatic(root, req, res, url)
    },
    unauthorized(req, res, url) {
      // The page and its assets are public (the same bytes for everyone); the API answers the default 401.
      return !url.pathname.startsWith(API) && serveStatic(root, req, res, url)
    },
    close() {
      for (const res of streams) res.destroy()
      streams.clear()
    },
  }
}

/** True for a page request a browser makes (navigations accept text/html; `fetch()` sends `*\/*`). */
function wantsHtml(req: IncomingMessage): boolean {
  return /\btext\/html\b/.test(req.headers.accept ?? '')
}

/** Serves the page and its files; false when `url` is not the inspector's. */
function serveStatic(root: string, req: IncomingMessage, res: ServerResponse, url: URL): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false
  const page = (url.pathname === '/' && wantsHtml(req)) || url.pathname === '/inspector' || url.pathname === PREFIX
  if (!page && !url.pathname.startsWith(PREFIX)) return false
  void sendFile(root, page ? 'index.html' : url.pathname.slice(PREFIX.length), req, res).catch(() => {
    if (!res.headersSent) sendJson(res, 500, { error: { code: 'internal', message: 'could not read the file' } })
    else res.destroy()
  })
  return true
}

async function sendFile(root: string, rel: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let name: string
  try {
    name = decodeURIComponent(rel)
  } catch {
    return sendJson(res, 400, { error: { code: 'invalid_message', message: 'malformed percent-encoding in the path' } })
  }
  const file = resolve(root, name)
  // No way out of the root (`..`, encoded or not, absolute paths, NUL) and no dotfiles.
  if (name.includes('\0') || !file.startsWith(root + sep) || name.split(/[\\/]/).some((p) => p.startsWith('.'))) {
    return sendJson(res, 404, { error: { code: 'not_found', message: `no inspector file ${rel}` } })
  }
  let info: Stats | undefined
  try {
    info = await stat(file)
  } catch {
    info = undefined
  }
  if (!info?.isFile()) {
    if (name === 'index.html') return notBuilt(root, res)
    return sendJson(res, 404, { error: { code: 'not_found', message: `no inspector file ${rel}` } })
  }
  const hashed = name.startsWith('assets/')
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'content-length': String(info.size),
    // Vite puts a content hash in every asset name: cache forever. The page itself is revalidated.
    'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    ...SECURITY_HEADERS,
    ...(name === 'index.html' ? { 'content-security-policy': CSP } : {}),
  })
  if (req.method === 'HEAD') return void res.end()
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res)
}

/** The answer when the inspector was not built: how to build it, not a crash. */
function notBuilt(root: string, res: ServerResponse): void {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parlance inspector not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>The inspector is not built</h1>
<p>Parlance is running and every endpoint works, but the inspector page has not been built into
<code>${esc(root)}</code>.</p>
<p>Build it from the package directory with <code>npm run build</code>
(or only the page: <code>npx vite build --config inspector/vite.config.ts</code>), then reload.</p>
<p>The server's JSON index is still at <code>GET /</code> with <code>Accept: application/json</code>.</p>
</body></html>`
  res.writeHead(503, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(html)),
    'cache-control': 'no-store',
    ...SECURITY_HEADERS,
  })
  res.end(html)
}

async function api(
  deps: EndpointDeps & InspectorDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  streams: Set<ServerResponse>,
): Promise<void> {
  if (req.method !== 'GET')
    return sendJson(res, 405, { error: { code: 'invalid_message', message: 'the inspector API is read-only: use GET' } }, { allow: 'GET' })
  const principal = deps.principal(req)
  const refused = deps.admission(principal, deps.clientAddress(req))()
  if (refused) throw refused
  const path = url.pathname
  if (path === `${API}info`) {
    return sendJson(res, 200, { principal, agents: deps.sessions.agentNames(), dialects: deps.capabilities ?? {} })
  }
  if (path === `${API}sessions`) return listSessions(deps, res, principal, intParam(url, 'limit', 100, 1, MAX_PAGE))
  const m = EVENTS_ROUTE.exec(path)
  if (!m) throw new ParlanceError('not_found', `no inspector API route ${path}`)
  const id = decodeURIComponent(m[1]!)
  const after = intParam(url, 'after', 0, 0, Number.MAX_SAFE_INTEGER)
  if (m[2] === 'events') return readEvents(deps, res, principal, id, after, intParam(url, 'limit', 500, 1, MAX_PAGE))
  return streamEvents(deps, res, principal, id, after, streams)
}

function intParam(url: URL, name: string, fallback: number, min: number, max: number): number {
  const raw = url.searchParams.get(name)
  if (raw === null || raw === '') return fallback
  if (!/^\d{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ParlanceError('invalid_message', `${name} must be an integer from ${min} to ${max}`, { field: name })
  }
  return Number(raw)
}

/**
 * The caller's sessions, loaded then stored. Sessions with no event yet are left out: every page load (of the
 * inspector, or of any client that names a fresh session on connect) creates one, and an empty session has
 * nothing to show; it is listed from its first event on.
 */
async function listSessions(deps: EndpointDeps, res: ServerResponse, principal: Principal, limit: number): Promise<void> {
  const loaded: SessionRow[] = []
  for (const s of deps.sessions.loadedSessions()) {
    if (s.owner !== principal || s.lastSeq === 0) continue
    const connections: Record<string, number> = {}
    for (const key of s.subscriberKeys()) {
      const dialect = key.split(':', 1)[0]!
      if (dialect !== 'inspector') connections[dialect] = (connections[dialect] ?? 0) + 1
    }
    loaded.push({
      id: s.id,
      agent: s.agentName,
      lastSeq: s.lastSeq,
      activeRunId: s.activeRunId,
      createdAt: s.createdAt,
      connections,
      ...(s.forkedFrom ? { forkedFrom: { sessionId: s.forkedFrom.sessionId, atSeq: s.forkedFrom.atSeq } } : {}),
    })
  }
  loaded.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0))
  const stored: SessionRow[] = (await deps.sessions.store.backend.listSessions(limit))
    .filter((s) => s.owner === principal && s.lastSeq > 0)
    .map((s) => ({
      id: s.id,
      agent: s.agent,
      lastSeq: s.lastSeq,
      activeRunId: s.activeRunId,
      updatedAt: s.updatedAt,
      ...(s.forkedFrom ? { forkedFrom: { sessionId: s.forkedFrom.sessionId, atSeq: s.forkedFrom.atSeq } } : {}),
    }))
  sendJson(res, 200, { principal, loaded: loaded.slice(0, limit), stored }, { 'cache-control': 'no-store' })
}

/** Throws not_found / forbidden unless `principal` owns session `id` (loaded or stored). */
async function checkOwner(deps: EndpointDeps, principal: Principal, id: string): Promise<number> {
  let owner: Principal | undefined
  let lastSeq = 0
  for (const s of deps.sessions.loadedSessions()) {
    if (s.id === id) {
      owner = s.owner
      lastSeq = s.lastSeq
    }
  }
  if (owner === undefined) {
    const record = await deps.sessions.store.backend.getSession(id)
    owner = record?.owner
    lastSeq = record?.lastSeq ?? 0
  }
  if (owner === undefined) throw new ParlanceError('not_found', `no session ${id}`, { sessionId: id })
  if (owner !== principal) throw new ParlanceError('forbidden', 'this session belongs to someone else', { sessionId: id })
  return lastSeq
}

async function readEvents(deps: EndpointDeps, res: ServerResponse, principal: Principal, id: string, after: number, limit: number): Promise<void> {
  const lastSeq = await checkOwner(deps, principal, id)
  const events = await deps.sessions.store.read(id, after, limit)
  const next = events.length > 0 ? events[events.length - 1]!.seq : after
  sendJson(res, 200, { sessionId: id, events, next, more: events.length === limit }, { 'cache-control': 'no-store', 'x-last-seq': String(lastSeq) })
}

/** Canonical events after `after` as SSE: replayed from the store, then live, paced by the response's buffer. */
async function streamEvents(
  deps: EndpointDeps,
  res: ServerResponse,
  principal: Principal,
  id: string,
  after: number,
  streams: Set<ServerResponse>,
): Promise<void> {
  await checkOwner(deps, principal, id)
  const session = await deps.sessions.open(id, principal, { create: false })
  res.writeHead(200, SSE_HEADERS)
  res.write(': parlance inspector stream\n\n')
  streams.add(res)
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
  heartbeat.unref()
  const sub = session.subscribe(
    {
      codecKey: `inspector:${++streamNo}`,
      encoder: INSPECTOR_SSE,
      view: null,
      write(frames) {
        if (res.writableEnded || res.destroyed) return false
        res.write((frames as string[]).join(''))
        return true
      },
      backlog: () => res.writableLength,
      drop: () => res.destroy(),
    },
    after,
  )
  res.once('close', () => {
    clearInterval(heartbeat)
    streams.delete(res)
    sub.close()
  })
}
