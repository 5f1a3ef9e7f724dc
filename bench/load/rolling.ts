// Load generator of the `rolling-restart` benchmark: N streams against cluster nodes that the benchmark restarts one
// at a time. Usage: rolling.ts PORTS N TOKENS MS TAG (PORTS: the nodes' 127.0.0.1 ports, comma-separated; TAG: the
// nodes' Redis prefix, read to report unfinished streams). Stream k is a HAI WebSocket client (k even) or an
// /api/chat client (k odd, AI SDK UI message stream), first on node k mod the node count. It asks for
// "paced TOKENS MS" (bench/agents/paced.ts) and asks again once the answer is whole: HAI in one session, /api/chat a
// new chat per answer. A message refused because its node drains (HAI error `unavailable`, HTTP 503) or sent to a
// node that is down goes to the next node; a HAI socket its node closes reconnects to the next node with its
// session id and last seq (`after`) and reads the rest of its answer there. Each HAI message carries its own
// `metadata.message_id` and, until its answer has ended, is sent again after every reconnect: a socket can close
// with the message unread or unanswered, and the server carries out an id at most once.
// stdin: `go` starts the streams (spread over 1 s); `mark` ends a window (prints its JSON line) and starts the next;
// `stop` lets every stream finish its answer (for up to 120 s), then prints the last window, lists the unfinished
// streams on stderr, and exits. Prints `warm` once every stream has completed an answer. A window's JSON: each
// stream's longest wait (the gap between two events it received, the first counted from sending its message,
// refusals and reconnects included) as p50/p99/max over the streams, p50/p99 over every gap, answers completed, lost
// (other text than asked for, cut, or never ended) and interrupted, messages refused (and re-sent), HAI reconnects,
// and this process's own longest event-loop stall (its waits include it).
import { Agent, request } from 'node:http'
import { createInterface } from 'node:readline'
import { Redis } from 'ioredis'
import WebSocket from 'ws'
import { redisKeys } from '../../src/store/redis/keys.js'
import { REDIS_URL } from '../../test/support/redis.js'

const [portsRaw = '', nRaw = '1000', tokensRaw = '30', msRaw = '100', tag = `roll-${process.pid}`] = process.argv.slice(2)
const ports = portsRaw.split(',').map(Number)
const n = Number(nRaw)
const ask = `paced ${tokensRaw} ${msRaw}`
const EXPECTED = Array.from({ length: Number(tokensRaw) }, (_, i) => `${i + 1} `).join('')
const agent = new Agent({ keepAlive: true, maxSockets: Infinity })
const MAX_GAP_MS = 120_000

/** One window's counters; `mark` starts a new one. */
class Window {
  readonly started = performance.now()
  readonly longest = new Float64Array(n)
  /** Per stream, its longest wait's end (s into the window) and the refusals during it. */
  readonly worst: Array<{ at: number; refused: number }> = []
  readonly gaps = new Uint32Array(MAX_GAP_MS + 1)
  gapCount = 0
  completed = 0
  lost = 0
  interrupted = 0
  /** Interrupted because the run's lease expired while its node was alive but starved (a failover, not a drain). */
  orphaned = 0
  /** HAI frames whose seq did not follow the last one seen (a replay or a live frame sent twice). */
  repeated = 0
  refused = 0
  reconnects = 0
  readonly errors: string[] = []
  /** This process's own longest event-loop stall in the window (ms): waits it measured include it. */
  genLagMax = 0
  gap(k: number, ms: number, refused: number): void {
    if (ms > this.longest[k]!) {
      this.longest[k] = ms
      this.worst[k] = { at: (performance.now() - this.started) / 1000, refused }
    }
    this.gaps[Math.min(MAX_GAP_MS, Math.round(ms))]!++
    this.gapCount++
  }
  error(e: string): void {
    if (this.errors.length < 5) this.errors.push(e.slice(0, 200))
  }
  json(unfinished: number): string {
    const longest = Float64Array.from(this.longest.filter((x) => x > 0)).sort()
    const at = (p: number) => longest[Math.min(longest.length - 1, Math.max(0, Math.ceil(p * longest.length) - 1))] ?? NaN
    const gapAt = (p: number) => {
      for (let ms = 0, seen = 0; ms <= MAX_GAP_MS; ms++) if ((seen += this.gaps[ms]!) >= p * this.gapCount) return ms
      return NaN
    }
    const { completed, lost, interrupted, orphaned, repeated, refused, reconnects, errors } = this
    const waits = { p50: at(0.5), p99: at(0.99), max: longest.at(-1) ?? NaN }
    const seconds = (performance.now() - this.started) / 1000
    // The five longest waits: stream (h: HAI, c: /api/chat), ms, when it ended (s into the window), refusals in it.
    const worst = [...this.longest.keys()]
      .sort((x, y) => this.longest[y]! - this.longest[x]!)
      .slice(0, 5)
      .map(
        (k) => `${k % 2 ? 'c' : 'h'}${k} ${Math.round(this.longest[k]!)} ms at ${this.worst[k]?.at.toFixed(1)} s, ${this.worst[k]?.refused} refused`,
      )
    const gaps = { gapP50: gapAt(0.5), gapP99: gapAt(0.99) }
    return JSON.stringify({
      seconds,
      waits,
      ...gaps,
      completed,
      lost: lost + unfinished,
      unfinished,
      interrupted,
      orphaned,
      repeated,
      refused,
      reconnects,
      errors,
      worst,
      genLagMax: Math.round(this.genLagMax),
    })
  }
}

let win = new Window()
let stopping = false
let finished = 0
let warm = 0
const onDone = new Set<() => void>()

/** What every stream shares: its wait clock, its node, and what it does when an answer ends. */
abstract class Stream {
  protected node: number
  protected last = 0
  protected text = ''
  private answers = 0
  done = false
  constructor(readonly k: number) {
    this.node = k % ports.length
  }
  /** Refusals since the last event arrived. */
  protected refusals = 0
  protected arrived(): void {
    const now = performance.now()
    win.gap(this.k, now - this.last, this.refusals)
    this.last = now
    this.refusals = 0
  }
  protected refused(): void {
    win.refused++
    this.refusals++
  }
  protected nextNode(): void {
    this.node = (this.node + 1) % ports.length
  }
  /** An answer ended (whole or not); the stream asks again or, once stopping, is done. */
  protected ended(whole: boolean, interrupted: string | null): void {
    if (interrupted !== null) {
      win.interrupted++
      if (/lease expired/.test(interrupted)) win.orphaned++
      else win.error(`${this.k % 2 ? 'chat' : 'hai'} ${this.k} interrupted: ${interrupted}`)
    } else if (whole) win.completed++
    else {
      win.lost++
      win.error(
        `${this.k % 2 ? 'chat' : 'hai'} ${this.k} lost: ${JSON.stringify(this.text.slice(0, 40))}…${JSON.stringify(this.text.slice(-20))} (${this.text.length} of ${EXPECTED.length} chars)`,
      )
    }
    this.text = ''
    if (++this.answers === 1 && ++warm === n) process.stdout.write('warm\n')
    if (!stopping) return this.send()
    this.done = true
    if (++finished === n) for (const f of onDone) f()
  }
  start(): void {
    this.last = performance.now()
    this.send()
  }
  abstract send(): void
  /** What an unfinished stream was doing, for the report. */
  abstract state(): string
}

class HaiStream extends Stream {
  private ws: WebSocket | null = null
  private seq = 0
  private bound = false
  private pending = false
  private cut: string | null = null
  private failures = 0
  readonly session = `${tag}-h${this.k}`
  /** For the report of an unfinished stream: when its message went out, on which node, and what happened since. */
  private sentAt = 0
  private socketAt = 0
  private sentOn = -1
  private closesSinceSend = 0
  private framesSinceSend = 0

  /** The message being answered: its id (each ask has its own), and whether its answer is still to end. */
  private asks = 0
  private messageId = ''
  private answering = false

  send(): void {
    this.messageId = `${this.session}-m${++this.asks}`
    this.answering = true
    this.transmit()
  }
  /** Sends the message being answered (again, after a refusal or a lost socket: the same id, so it runs once). */
  private transmit(): void {
    this.pending = true
    if (this.ws?.readyState === WebSocket.OPEN) this.flush()
    else if (!this.ws) this.connect()
  }
  state(): string {
    const ready = this.ws
      ? `${['connecting', 'open', 'closing', 'closed'][this.ws.readyState]} (socket ${((performance.now() - this.socketAt) / 1000).toFixed(1)} s old)`
      : 'no socket'
    const since = ((performance.now() - this.sentAt) / 1000).toFixed(1)
    const sent = `sent on n${this.sentOn + 1} ${since} s ago, ${this.closesSinceSend} socket closes and ${this.framesSinceSend} frames since`
    return `hai ${this.k} (${this.session}) on n${this.node + 1}: ${ready}, ${this.pending ? 'message not sent' : 'waiting'}, seq ${this.seq}, ${this.text.length} chars; ${sent}`
  }
  private flush(): void {
    this.pending = false
    this.bound = true
    this.sentAt = performance.now()
    this.sentOn = this.node
    this.closesSinceSend = this.framesSinceSend = 0
    this.ws!.send(JSON.stringify({ type: 'user_message', content: ask, session_id: this.session, metadata: { message_id: this.messageId } }))
  }
  private connect(): void {
    const query = this.bound ? `?session_id=${this.session}&after=${this.seq}` : ''
    this.socketAt = performance.now()
    const ws = (this.ws = new WebSocket(`ws://127.0.0.1:${ports[this.node]}/ws${query}`, { perMessageDeflate: false }))
    ws.on('open', () => this.pending && this.flush())
    // What a socket it left still delivers (until its close handshake) is not this stream's any more.
    ws.on('message', (d: Buffer) => this.ws === ws && this.frame(JSON.parse(d.toString()) as Record<string, unknown>))
    ws.on('error', () => {})
    ws.on('open', () => (this.failures = 0))
    ws.on('close', () => {
      if (this.ws !== ws || this.done) return
      // The node went away (its drain ended, or it was down): the next node, by session and cursor; a pause once
      // every node has failed in a row.
      this.ws = null
      this.closesSinceSend++
      win.reconnects++
      // Its answer has not ended: the message may never have arrived (a node that closes can close with it unread
      // or unanswered), so it goes again with its id; if it did arrive, the server knows the id and starts nothing.
      if (this.answering) this.pending = true
      this.nextNode()
      setTimeout(() => this.connect(), ++this.failures >= ports.length ? 100 : 0)
    })
  }
  private frame(m: Record<string, unknown>): void {
    this.arrived()
    this.framesSinceSend++
    // Every seq'd frame must follow the last one seen, on this socket or (resumed by cursor) on the one before.
    if (typeof m.seq === 'number' && m.seq <= this.seq && !(m.type === 'status' && m.seq === this.seq)) {
      win.repeated++
      win.error(`hai ${this.k}: seq ${m.seq} after ${this.seq} (${String(m.type)})`)
    }
    if (typeof m.seq === 'number' && m.seq > this.seq) this.seq = m.seq
    if (m.type === 'assistant_message_chunk') this.text += String(m.content)
    else if (m.type === 'error' && m.error_code === 'unavailable') {
      // Not started (the node drains, or a run cap): the same message on the next node.
      this.refused()
      const old = this.ws!
      this.ws = null
      old.close()
      this.nextNode()
      this.transmit()
    } else if (m.type === 'error' && m.error_code === 'interrupted') this.cut = String(m.message)
    else if (m.type === 'error') win.error(`hai ${this.k}: ${JSON.stringify(m)}`)
    else if (m.type === 'status' && m.status === 'completed') {
      this.answering = false
      const cut = this.cut
      this.cut = null
      this.ended(this.text === EXPECTED, cut)
    }
  }
}

class ChatStream extends Stream {
  private chats = 0
  private phase = ''
  private phaseAt = 0
  state(): string {
    return `chat ${this.k} on n${this.node + 1}: ${this.phase} ${((performance.now() - this.phaseAt) / 1000).toFixed(1)} s ago, ${this.text.length} chars`
  }
  send(): void {
    const id = `${tag}-c${this.k}-${++this.chats}`
    const body = JSON.stringify({ id, messages: [{ id: `${id}-u`, role: 'user', parts: [{ type: 'text', text: ask }] }] })
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream' }
    let answered = false
    const retry = () => {
      this.nextNode()
      this.send()
    }
    const end = (whole: boolean, interrupted: string | null) => {
      if (answered) return
      answered = true
      this.ended(whole, interrupted)
    }
    const req = request({ host: '127.0.0.1', port: ports[this.node], path: '/api/chat', method: 'POST', agent, headers }, (res) => {
      if (res.statusCode === 503) {
        this.refused()
        let why = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (why += d))
        return void res.once('end', () => {
          if (!/draining/.test(why)) win.error(`chat ${this.k} on n${this.node + 1}: 503 ${why.slice(0, 200)}`)
          retry()
        })
      }
      if (res.statusCode !== 200) win.error(`chat ${this.k}: HTTP ${res.statusCode}`)
      this.phase = `streaming (HTTP ${res.statusCode})`
      let buf = ''
      let failed = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        this.arrived()
        const lines = (buf + d).split('\n')
        buf = lines.pop()!
        for (const line of lines) {
          if (!line.startsWith('data: {')) continue
          const part = JSON.parse(line.slice(6)) as { type: string; delta?: string; errorText?: string }
          if (part.type === 'text-delta') this.text += part.delta ?? ''
          else if (part.type === 'error') failed = part.errorText ?? 'error'
        }
      })
      res.once('end', () => {
        if (failed && !/interrupt|lease expired/i.test(failed)) win.error(`chat ${this.k}: ${failed}`)
        end(!failed && this.text === EXPECTED, /interrupt|lease expired/i.test(failed) ? failed : null)
      })
      res.once('error', () => end(false, null))
      res.once('aborted', () => end(false, null))
    })
    // No answer yet (the node is down, or a kept-alive socket to a node that left): the next node. Cut mid-answer: lost.
    req.once('error', () => (started ? end(false, null) : retry()))
    let started = false
    req.once('response', () => (started = true))
    this.phase = 'request sent'
    this.phaseAt = performance.now()
    req.end(body)
  }
}

// The load generator's own event-loop stalls, measured by a 50 ms timer's lateness.
let tickAt = performance.now()
setInterval(() => {
  const now = performance.now()
  win.genLagMax = Math.max(win.genLagMax, now - tickAt - 50)
  tickAt = now
}, 50).unref()

const streams: Stream[] = Array.from({ length: n }, (_, k) => (k % 2 === 0 ? new HaiStream(k) : new ChatStream(k)))
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'go') streams.forEach((s, k) => setTimeout(() => s.start(), (k * 1000) / n))
  else if (line === 'mark') {
    process.stdout.write(`${win.json(0)}\n`)
    win = new Window()
  } else if (line === 'stop') {
    stopping = true
    const all = new Promise<void>((resolve) => onDone.add(resolve))
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, 120_000).unref())
    await Promise.race([all, deadline])
    const stuck = streams.filter((x) => !x.done)
    for (const s of stuck.slice(0, 5)) win.error(`unfinished: ${s.state()}`)
    // Each unfinished HAI stream, with its session as stored (did its message ever arrive?), on stderr.
    const redis = stuck.length ? new Redis(REDIS_URL) : null
    const keys = redisKeys(tag)
    for (const s of stuck.slice(0, 50)) {
      let stored = ''
      if (redis && s instanceof HaiStream) {
        const [[lastSeq, run], lease] = await Promise.all([
          redis.hmget(keys.meta(s.session), 'lastSeq', 'activeRunId'),
          redis.get(keys.lease(s.session)),
        ])
        stored = `; stored: last seq ${lastSeq}, active run ${run || 'none'}, lease ${lease ?? 'none'}`
      }
      process.stderr.write(`unfinished: ${s.state()}${stored}\n`)
    }
    redis?.disconnect()
    process.stdout.write(`${win.json(n - finished)}\n`)
    process.exit(0)
  }
}
