// Issue 35: browser front ends on their own origin, and no other web page. Real Chromium (Debian's, through
// playwright-core) loads a page from origin A (a static server in this test) that drives Parlance on origin B
// with each dialect's browser client: ai 6 DefaultChatTransport (a reply, an approval, a reload mid-stream and
// resume), @ag-ui/client HttpAgent, socket.io-client with its default transports, the browser's WebSocket for
// HAI, MyAgent and HugAI, the MCP SDK client and the A2A SDK client. Every *.test name resolves to 127.0.0.1
// (Chromium's host-resolver rules), so app.test / evil.test / rebind.test are other origins on loopback.
// Allowed: the loopback default (pages on 127.0.0.1:A and localhost:A) and `origins: ['http://app.test:A']`.
// Refused, with the server's 403 read from Chromium's network log: a page on evil.test, a loopback page when the
// origins are listed, and a DNS-rebinding page (served as http://rebind.test:B, so its requests carry that Host).
// The last test opens examples/web (served by its own serve.mjs) against a server. The node-level checks with
// explicit Origin and Host headers are in browser-origins-headers.test.ts.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import type { ScenarioName, ScenarioResult } from './browser/page.js'
import { bundlePage, CHROMIUM, launchChromium, NetLog, serveStatic, type Exchange, type StaticServer } from './browser-origins-support.js'
import { defineAgent } from '../src/index.js'
import { startServer, type TestServer } from './harness.js'
import { deferred } from './support/delegating-backend.js'

/** Bounds each page wait: a page parses a 1.5 MB bundle, which takes seconds on a loaded 2-core machine. */
const WAIT = 60_000
const TEXT = 'hello from another origin'
const ECHO = `Echo: ${TEXT}`

/** Each dialect's scenario in the page, what its value must be when allowed, and the paths it talks to. */
const DIALECTS: Array<{ name: ScenarioName; args: (base: string) => unknown[]; check: (value: unknown) => void; paths: string[] }> = [
  { name: 'hai', args: (b) => [b, TEXT], check: (v) => assert.equal(v, ECHO), paths: ['/ws'] },
  { name: 'myagent', args: (b) => [b, TEXT], check: (v) => assert.equal(v, ECHO), paths: ['/myagent'] },
  { name: 'hugai', args: (b) => [b, TEXT], check: (v) => assert.equal(v, ECHO), paths: ['/rpc'] },
  {
    name: 'huma',
    args: (b) => [b, TEXT],
    // Polling first (cross-origin XHR: needs Socket.IO's CORS), then the WebSocket upgrade (needs the Origin check to pass).
    check: (v) => assert.deepEqual(v, { reply: ECHO, firstTransport: 'polling', upgradedTo: 'websocket' }),
    paths: ['/socket.io/'],
  },
  { name: 'aisdk', args: (b) => [b, TEXT], check: (v) => assert.equal(v, ECHO), paths: ['/api/chat'] },
  {
    name: 'aisdkApproval',
    args: (b) => [b],
    check: (v) => assert.deepEqual(v, { asked: 'delete_file', reply: 'Done: deleted notes/demo.txt.' }),
    paths: ['/api/chat'],
  },
  { name: 'agui', args: (b) => [b, TEXT], check: (v) => assert.equal(v, ECHO), paths: ['/agui'] },
  {
    name: 'mcp',
    args: (b) => [b, TEXT],
    check: (v) => {
      const r = v as { tools: string[]; reply: string; sessionId: string }
      assert.ok(r.tools.includes('ask_demo'), `tools: ${r.tools.join(', ')}`)
      assert.equal(r.reply, ECHO)
      assert.ok(r.sessionId, 'the client read mcp-session-id (an exposed header)')
    },
    paths: ['/mcp'],
  },
  { name: 'a2a', args: (b) => [b, TEXT], check: (v) => assert.deepEqual(v, { state: 'TASK_STATE_COMPLETED', reply: ECHO }), paths: ['/a2a/'] },
]

let outDir: string
let pages: StaticServer
/** The loopback default: no `origins`. */
let open: TestServer
/** `origins: ['http://app.test:A']`. */
let listed: TestServer
/** Serves `counting` (the loopback default), for the resume test. */
let holding: TestServer
let browser: Browser

const gate = deferred()
const release = () => gate.resolve()
/** Counts to ten, holding its stream open after "3 " until the test releases it (a reload mid-stream, without a race). */
const counting = defineAgent({
  name: 'counting',
  async run(ctx) {
    await ctx.say(
      (async function* () {
        for (let i = 1; i <= 10; i++) {
          if (i === 4) await gate.promise
          yield `${i} `
        }
      })(),
    )
  },
})

const port = (s: TestServer) => Number(new URL(s.url).port)
const origin = (host: string) => `http://${host}:${pages.port}`

before(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH; this test never downloads a browser`,
    )
  outDir = mkdtempSync(join(tmpdir(), 'parlance-origins-'))
  const launching = launchChromium()
  await bundlePage(outDir)
  pages = await serveStatic({ '/': join(import.meta.dirname, 'browser', 'index.html'), '/page.js': join(outDir, 'page.js') })
  // HUMA types for 15 ms per character by default: keep it short here.
  const limits = { typingMsPerChar: 1 }
  ;[open, listed, holding, browser] = await Promise.all([
    startServer({ limits }),
    startServer({ limits, origins: [origin('app.test')] }),
    startServer({ agents: [counting] }),
    launching,
  ])
})

after(async () => {
  await browser?.close()
  release()
  await Promise.all([open?.close(), listed?.close(), holding?.close(), pages?.close()])
  for (const s of [open, listed, holding]) s?.removeData()
  if (outDir) rmSync(outDir, { recursive: true, force: true })
})

interface TestPage {
  page: Page
  net: NetLog
  /** The page's uncaught errors (none is expected). */
  errors: string[]
  /** What the page said and what happened to it (console, errors, crash, close), for failure messages. */
  events: string[]
  /** A scenario in the page; a failure to evaluate it (the page closed, crashed, navigated) names what came before. */
  run(name: ScenarioName, ...args: unknown[]): Promise<ScenarioResult>
  /** The page's events and its network log, to append to a failure message. */
  report(): string
}

/** A page in a context of its own, with its network log; `url` is loaded and waited for. */
async function openPage(url: string, prepare?: (page: Page) => Promise<void>): Promise<TestPage> {
  const context = await browser.newContext()
  const page = await context.newPage()
  page.setDefaultTimeout(WAIT)
  const net = await NetLog.attach(page)
  const errors: string[] = []
  const events: string[] = []
  page.on('pageerror', (e) => {
    errors.push(`pageerror: ${e.message}`)
    events.push(`pageerror: ${e.message}`)
  })
  page.on('console', (m) => events.push(`console.${m.type()}: ${m.text()}`))
  page.on('framenavigated', (f) => f === page.mainFrame() && events.push(`navigated: ${f.url()}`))
  page.on('crash', () => events.push('the page crashed'))
  page.on('close', () => events.push('the page closed'))
  const report = () => `page events:\n${events.join('\n') || '(none)'}\nnetwork log:\n${net.dump() || '(empty)'}`
  await prepare?.(page)
  await page.goto(url)
  await page.locator('body[data-ready="true"]').waitFor()
  const run = (name: ScenarioName, ...args: unknown[]) =>
    page
      .evaluate(({ n, a }) => (globalThis as unknown as { scenario: (n: string, ...a: unknown[]) => Promise<ScenarioResult> }).scenario(n, ...a), {
        n: name,
        a: args,
      })
      .catch((err: Error) => {
        throw new Error(`scenario ${name}: ${err.message}\n${report()}`, { cause: err })
      })
  return { page, net, errors, events, run, report }
}

/**
 * One page per origin, loaded once and shared by the tests that need it (each page parses the whole bundle:
 * seconds of CPU on a loaded machine). Tests on one page talk to different servers, so each reads its own part
 * of the page's network log by the server's port.
 */
const opened = new Map<string, Promise<TestPage>>()
function pageOn(host: string): Promise<TestPage> {
  let p = opened.get(host)
  if (!p) opened.set(host, (p = openPage(`${origin(host)}/`)))
  return p
}

const show = (xs: Exchange[]) =>
  xs
    .map(
      (x) =>
        `${x.kind} ${x.method} ${x.url.host}${x.url.pathname} → ${x.status ?? x.failure ?? 'no answer'}${x.headers['access-control-allow-origin'] ? ` (ACAO ${x.headers['access-control-allow-origin']})` : ''}`,
    )
    .join('\n')

/** Every answer came from a loopback address (Chromium's address space of the peer). */
function assertLoopbackOnly(p: TestPage): void {
  for (const x of p.net.all) {
    if (x.addressSpace !== undefined) assert.equal(x.addressSpace, 'Loopback', `${x.url.href} answered from ${x.addressSpace}`)
    assert.doesNotMatch(x.failure ?? '', /NAME_NOT_RESOLVED/, `${x.url.href}: a name outside *.test was looked up`)
  }
}

/** Runs every dialect from `p` against `server`, all at once; each must work, with CORS done properly. */
async function allowed(p: TestPage, server: TestServer): Promise<void> {
  const pageOrigin = String(await p.page.evaluate('location.origin'))
  const results = await Promise.all(DIALECTS.map((d) => p.run(d.name, ...d.args(server.url))))
  for (const [i, d] of DIALECTS.entries()) {
    const r = results[i]!
    assert.ok(r.ok, `${d.name} from ${pageOrigin}: ${r.ok ? '' : `${r.error}\n${p.report()}`}`)
    d.check(r.value)
  }
  await p.net.settled(port(server))
  const traffic = p.net.to(port(server))
  for (const d of DIALECTS)
    assert.ok(
      traffic.some((x) => d.paths.some((path) => x.url.pathname.startsWith(path))),
      `${d.name}: no traffic seen`,
    )
  // Each HTTP answer echoes the page's origin, with Vary: Origin; preflights are 204; WebSockets are accepted.
  for (const x of traffic) {
    if (x.kind === 'websocket') {
      assert.equal(x.status, 101, show([x]))
      continue
    }
    if (x.status === undefined) continue // aborted before its answer (a stream the page closed, the reload)
    assert.equal(x.headers['access-control-allow-origin'], pageOrigin, show([x]))
    assert.match(x.headers.vary ?? '', /\borigin\b/i, `Vary: ${x.headers.vary}\n${show([x])}`)
    if (x.kind === 'preflight') assert.equal(x.status, 204, show([x]))
  }
  assertLoopbackOnly(p)
  assert.deepEqual(p.errors, [])
}

/**
 * Runs every dialect from `p` against `base` (Parlance at `serverPort`); each must fail, and every exchange
 * with the server must be a 403 without an Access-Control-Allow-Origin header (preflights and WebSocket
 * handshakes included), with at least one such refusal per dialect.
 */
async function refused(p: TestPage, base: string, serverPort: number): Promise<void> {
  const pageOrigin = String(await p.page.evaluate('location.origin'))
  const results = await Promise.all(DIALECTS.map((d) => p.run(d.name, ...d.args(base))))
  for (const [i, d] of DIALECTS.entries()) assert.equal(results[i]!.ok, false, `${d.name} worked from ${pageOrigin}: ${JSON.stringify(results[i])}`)
  await p.net.settled(serverPort)
  // (The DNS-rebinding page's own files, /__page/, are served by the static server under Parlance's host:port.)
  const traffic = p.net.to(serverPort).filter((x) => !x.url.pathname.startsWith('/__page/'))
  for (const d of DIALECTS) {
    const mine = traffic.filter((x) => d.paths.some((path) => x.url.pathname.startsWith(path)))
    assert.ok(
      mine.some((x) => x.status === 403),
      `${d.name}: no 403 among\n${show(mine)}`,
    )
  }
  for (const x of traffic) {
    // What got an answer was refused; what did not was never sent (the request after a refused preflight).
    if (x.status === undefined) assert.ok(x.kind === 'http' && x.failure, `neither answered nor blocked:\n${show([x])}`)
    else assert.equal(x.status, 403, `every exchange is refused:\n${show([x])}`)
    assert.equal(x.headers['access-control-allow-origin'], undefined, show([x]))
    assert.equal(x.headers['access-control-allow-credentials'], undefined, show([x]))
  }
  assertLoopbackOnly(p)
}

describe('browser front ends on their own origin (Chromium)', { concurrency: true }, () => {
  test('loopback default: a page on http://127.0.0.1:A drives every dialect of Parlance on 127.0.0.1:B', async () =>
    allowed(await pageOn('127.0.0.1'), open))

  test("origins: ['http://app.test:A']: a page on app.test:A drives every dialect", async () => allowed(await pageOn('app.test'), listed))

  test('refused: a page on http://evil.test:A gets 403 and no CORS header from every dialect, by default and with origins listed', async () => {
    const p = await pageOn('evil.test')
    await Promise.all([refused(p, open.url, port(open)), refused(p, listed.url, port(listed))])
  })

  test('refused with origins listed: a loopback page that is not on the list', async () =>
    refused(await pageOn('127.0.0.1'), listed.url, port(listed)))

  test('DNS rebinding: a page at http://rebind.test:B (its requests reach Parlance with that Host) is refused on every route and upgrade', async () => {
    const b = port(open)
    const base = `http://rebind.test:${b}`
    // The attacker's page as it was served before the name was rebound to 127.0.0.1: its two files come from the
    // static server (so Chromium sees a loopback page); everything else it asks rebind.test:B for goes to Parlance.
    const p = await openPage(`${base}/__page/`, async (page) => {
      await page.route(`${base}/__page/**`, (route) =>
        route.continue({ url: `${origin('127.0.0.1')}/${route.request().url().endsWith('/page.js') ? 'page.js' : ''}` }),
      )
    })
    try {
      await refused(p, base, b)
      // Parlance's own pages under that name are refused too (the inspector at /).
      const inspector = await p.page.goto(`${base}/`)
      assert.equal(inspector?.status(), 403)
      assert.equal(((await inspector.json()) as { error: { code: string } }).error.code, 'forbidden')
    } finally {
      await p.page.context().close()
    }
  })

  test('loopback default from http://localhost:A: every dialect; then useChat resume across a reload (204 for a new chat, the reply resumed mid-stream)', async () => {
    const p = await openPage(`${origin('localhost')}/`)
    try {
      await allowed(p, open)
      const chatId = `resume-${Date.now()}`
      const first = await p.run('aisdkResumeStart', holding.url, chatId, 'count to ten')
      assert.ok(first.ok, first.ok ? '' : `${first.error}\n${p.report()}`)
      const start = first.value as { before: string; partial: string }
      assert.equal(start.before, 'none', 'reconnectToStream on a chat with no run: 204, nothing to resume')
      assert.equal(start.partial, '1 2 3 ')
      // The answer is held after "3 " until the reloaded page is reading it again.
      await p.page.reload()
      await p.page.locator('body[data-ready="true"]').waitFor()
      // The scenario stays awaited whatever happens below: the page is closed (finally) only once it has settled,
      // and a failure here is the first cause, not the evaluate that the closing page would cut short.
      const finishing = p.run('aisdkResumeFinish', holding.url, chatId).then(
        (r) => r,
        (err: Error): ScenarioResult => ({ ok: false, error: err.message }),
      )
      // Held until the reloaded page has the re-attached stream's answer (its 200 and headers): a condition in the
      // page, so the release never depends on when DevTools reports the exchange.
      let attached: unknown
      try {
        await p.page.waitForFunction((id) => (globalThis as { resumeAttached?: string }).resumeAttached === id, chatId, {
          timeout: 20_000,
          polling: 50,
        })
      } catch (err) {
        attached = err
      }
      release() // (on a failed wait too: the page's scenario then ends with the run instead of at its time limit)
      const second = await finishing
      if (attached)
        throw new Error(`${(attached as Error).message}\nthe page's aisdkResumeFinish: ${JSON.stringify(second)}\n${p.report()}`, { cause: attached })
      assert.ok(second.ok, second.ok ? '' : `${second.error}\n${p.report()}`)
      assert.deepEqual(second.value, { resumed: '1 2 3 4 5 6 7 8 9 10 ', after: 'none' })
      await p.net.settled(port(holding)) // Chromium reports the last 204 a little after the page's promise settled
      const resumes = p.net.to(port(holding)).filter((x) => x.url.pathname === `/api/chat/${chatId}/stream`)
      assert.deepEqual(
        resumes.map((x) => x.status),
        [204, 200, 204],
        p.report(),
      )
      for (const x of resumes) assert.equal(x.headers['access-control-allow-origin'], origin('localhost'))
      assertLoopbackOnly(p)
    } finally {
      await p.page.context().close()
    }
  })

  test('examples/web: the example front end, served by its own serve.mjs on a port of its own, streams a reply and answers an approval', async (t) => {
    const child = spawn(process.execPath, ['examples/web/serve.mjs'], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] })
    t.after(() => child.kill('SIGKILL'))
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString()
        const m = /front end: (http:\/\/\S+)/.exec(out)
        if (m) resolve(m[1]!)
      })
      child.once('exit', (code) => reject(new Error(`serve.mjs exited with ${code}: ${out}`)))
    })
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      page.setDefaultTimeout(WAIT)
      const net = await NetLog.attach(page)
      await page.goto(`${url}?server=${encodeURIComponent(open.url)}`)
      assert.notEqual(new URL(page.url()).origin, new URL(open.url).origin, 'the page has an origin of its own')
      await page.locator('#status', { hasText: /^connected$/ }).waitFor()
      await page.getByLabel('Message').fill('hello from the example')
      await page.getByRole('button', { name: 'Send' }).click()
      await page.locator('#transcript li.assistant[data-done="true"]', { hasText: 'Echo: hello from the example' }).waitFor()
      await page.getByLabel('Message').fill('delete the notes')
      await page.getByRole('button', { name: 'Send' }).click()
      await page.getByRole('button', { name: 'Approve' }).click()
      await page.locator('#transcript li.assistant[data-done="true"]', { hasText: 'Done: deleted notes/demo.txt.' }).waitFor()
      const handshakes = net.to(port(open)).filter((x) => x.kind === 'websocket')
      assert.deepEqual(
        handshakes.map((x) => [x.url.pathname, x.status]),
        [['/ws', 101]],
      )
    } finally {
      await context.close()
    }
  })
})
