// Tokens out of URLs (issue 46): Parlance's own clients send Authorization headers, a browser-style WebSocket
// (no headers) offers the parlance.bearer subprotocol and is answered with the non-secret one, and a token in
// the query still works but is warned about.
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { test } from 'node:test'
import { pino } from 'pino'
import { WebSocket } from 'ws'
import { HaiClient, HugaiClient, MyAgentClient, type SocketCtor } from '../src/client/index.js'
import { bearerProtocols } from '../src/client/socket.js'
import { startServer } from './harness.js'

/** What the server saw of each authenticated request: its URL and where a credential could be. */
interface Seen {
  url: string
  authorization: string | undefined
  protocols: string | undefined
  token: string | null
}

async function recordingServer(t: { after(fn: () => unknown): void }, accept = 's3cret', logger?: pino.Logger) {
  const seen: Seen[] = []
  const s = await startServer({
    ...(logger ? { logger } : {}),
    auth: {
      authenticate: (req: IncomingMessage, token: string | null) => {
        seen.push({ url: req.url ?? '', authorization: req.headers.authorization, protocols: req.headers['sec-websocket-protocol'], token })
        return token === accept ? 'alice' : null
      },
    },
  })
  t.after(() => s.close())
  return { s, seen }
}

test('HAI, MyAgent and HugAI clients under Node send Authorization: Bearer, never ?access_token=', async (t) => {
  const { s, seen } = await recordingServer(t)
  const hai = await HaiClient.connect({ url: s.url, token: 's3cret' })
  t.after(() => hai.close())
  hai.say('hello')
  await hai.untilCompleted()
  const my = await MyAgentClient.connect({ url: s.url, token: 's3cret' })
  my.close()
  const hug = await HugaiClient.connect({ url: s.url, token: 's3cret' })
  hug.close()
  const upgrades = seen.filter((r) => /^\/(ws|myagent|rpc)/.test(r.url))
  assert.deepEqual(
    upgrades.map((r) => r.url.split('?')[0]),
    ['/ws', '/myagent', '/rpc'],
  )
  for (const r of upgrades) {
    assert.doesNotMatch(r.url, /access_token|s3cret/, `no token in ${r.url}`)
    assert.equal(r.authorization, 'Bearer s3cret')
    assert.equal(r.token, 's3cret')
  }
})

/** A WebSocket constructor that, like a browser's, takes only a URL and subprotocols (no headers). */
const BrowserLikeSocket = class extends WebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url, protocols)
  }
} as unknown as SocketCtor

test('a browser-style WebSocket (no headers) authenticates by the parlance.bearer subprotocol; the server answers the non-secret one', async (t) => {
  const token = 'tök+en/with=odd chars'
  const { s, seen } = await recordingServer(t, token)
  const hai = await HaiClient.connect({ url: s.url, token, WebSocket: BrowserLikeSocket })
  t.after(() => hai.close())
  hai.say('hello')
  await hai.untilCompleted()
  const r = seen.find((x) => x.url.startsWith('/ws'))!
  assert.doesNotMatch(r.url, /access_token/)
  assert.equal(r.authorization, undefined)
  assert.match(r.protocols ?? '', /^parlance\.bearer, ?parlance\.bearer\.[A-Za-z0-9_-]+$/)
  assert.equal(r.token, token)

  // The handshake's answer: `ws` fails the connection, as browsers do, unless it names an offered protocol.
  const raw = new WebSocket(`${s.url.replace('http', 'ws')}/ws`, bearerProtocols(token))
  t.after(() => raw.close())
  await new Promise((resolve, reject) => {
    raw.once('open', resolve)
    raw.once('error', reject)
  })
  assert.equal(raw.protocol, 'parlance.bearer', 'the token itself never travels back')
  // Offered alone (a client that forgot the plain one), the token is read but still not echoed.
  const alone = new WebSocket(`${s.url.replace('http', 'ws')}/ws`, [bearerProtocols(token)[1]!])
  const failed = await new Promise<Error>((resolve) => alone.once('error', resolve))
  assert.match(failed.message, /subprotocol/)
})

test('?access_token= is still accepted, with one warning naming the headers to use instead', async (t) => {
  const lines: string[] = []
  const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) })
  const { s } = await recordingServer(t, 's3cret', logger)
  assert.equal((await fetch(`${s.url}/?access_token=s3cret`)).status, 200)
  assert.equal((await fetch(`${s.url}/?access_token=s3cret`)).status, 200)
  assert.equal((await fetch(`${s.url}/`, { headers: { authorization: 'Bearer s3cret' } })).status, 200)
  const warnings = lines.filter((l) => l.includes('access_token'))
  assert.equal(warnings.length, 1, 'warned once per process')
  assert.match(warnings[0]!, /Authorization: Bearer/)
  assert.doesNotMatch(warnings[0]!, /s3cret/, 'the warning does not log the token')
})
