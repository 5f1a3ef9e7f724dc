// Load generator of the `paced` benchmark: one long-lived process drives every configuration, one step at a
// time. Usage: paced.ts, then one line per step on stdin, `step ws|sse URL N T MS RAMP_MS DEADLINE_MS TAG`,
// or `exit`. A step: ws opens N WebSockets to URL (200 handshakes in flight) and prints `connected K`; sse
// prints `connected 0`. On a `go` line it starts N sessions spread evenly over RAMP_MS (session k at
// k·RAMP_MS/N): ws sends a HAI user_message "paced T MS" on socket k (session TAG-k); sse POSTs an AG-UI
// RunAgentInput with that message (thread TAG-k). Each token's arrival is timed; once every run has ended (HAI
// `status: completed`, AG-UI RUN_FINISHED) or DEADLINE_MS after `go`, it prints one JSON line and waits for
// `go` again before closing everything and printing `closed` (the caller reads the server's CPU in between).
// Token delay: delay_i = arrival_i − (arrival_r + (i − r)·MS) for every token i of a run, r its least-delayed
// token (minimising arrival_r − r·MS; usually r = 0, giving arrival_i − (arrival_0 + i·MS)): the server does not
// tell the client its schedule, so the run's own tokens are the reference, and taking the least-delayed one
// keeps delays ≥ 0 when the first token was itself late. A token that never arrived counts as (time the step
// stopped − its expected time), a lower bound.
import { Agent, request } from 'node:http'
import { createInterface } from 'node:readline'
import WebSocket from 'ws'

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
const nextLine = async (): Promise<string> => {
  const l = await lines.next()
  return l.done ? 'exit' : l.value.trim()
}
const waitGo = async () => {
  for (;;) {
    const l = await nextLine()
    if (l === 'go' || l === 'exit') return
  }
}
const pct = (xs: ArrayLike<number>, p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))]! : NaN)

/** One session's run as the client sees it. */
interface Run {
  sentAt: number
  arrivals: Float64Array
  count: number
  done: boolean
  error: string
}

async function step(mode: string, url: string, n: number, t: number, ms: number, rampMs: number, deadlineMs: number, tag: string): Promise<void> {
  const runs: Run[] = Array.from({ length: n }, () => ({ sentAt: 0, arrivals: new Float64Array(t), count: 0, done: false, error: '' }))
  let ended = 0
  let finish: () => void = () => {}
  const allEnded = new Promise<void>((r) => (finish = r))
  const token = (run: Run) => {
    if (run.count < t) run.arrivals[run.count] = performance.now()
    run.count++
  }
  const end = (run: Run, error = '') => {
    if (run.done) return
    run.done = true
    run.error = error
    if (++ended === n) finish()
  }

  // ws: connect every socket first; the handshakes are not measured.
  const sockets: Array<WebSocket | undefined> = []
  let connectError = ''
  if (mode === 'ws') {
    let next = 0
    const connector = async () => {
      while (next < n && !connectError) {
        const k = next++
        const ws = new WebSocket(url, { perMessageDeflate: false })
        try {
          await new Promise<void>((resolve, reject) => {
            ws.once('open', () => resolve())
            ws.once('error', reject)
          })
        } catch (err) {
          connectError = (err as Error).message
          continue
        }
        ws.on('error', () => {})
        const run = runs[k]!
        ws.on('message', (d: Buffer) => {
          const s = d.toString('latin1', 0, 48)
          if (s.startsWith('{"type":"assistant_message_chunk","content":""')) return // the final chunk
          if (s.startsWith('{"type":"assistant_message_chunk"')) token(run)
          else if (s.startsWith('{"type":"status","status":"completed"')) end(run)
          else if (s.startsWith('{"type":"error"')) end(run, d.toString('utf8', 0, 300))
        })
        ws.once('close', () => end(run, 'closed'))
        sockets[k] = ws
      }
    }
    await Promise.all(Array.from({ length: Math.min(200, n) }, connector))
  }
  const connected = mode === 'ws' ? sockets.filter(Boolean).length : 0
  process.stdout.write(`connected ${connected}\n`)
  await waitGo()

  // sse: one POST per session, its response read as it streams.
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
  const requests: Array<{ destroy(): void }> = []
  const post = (k: number, run: Run) => {
    const body = JSON.stringify({
      threadId: `${tag}-${k}`,
      runId: `run-${k}`,
      state: {},
      messages: [{ id: `u${k}`, role: 'user', content: `paced ${t} ${ms}` }],
      tools: [],
      context: [],
      forwardedProps: {},
    })
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        return end(run, `HTTP ${res.statusCode}`)
      }
      let buf = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        buf += d
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const ev = buf.slice(0, i)
          buf = buf.slice(i + 2)
          if (ev.includes('"TEXT_MESSAGE_CONTENT"')) token(run)
          else if (ev.includes('"RUN_FINISHED"')) end(run)
          else if (ev.includes('"RUN_ERROR"')) end(run, ev.slice(0, 300))
        }
      })
      res.on('end', () => end(run, 'ended before RUN_FINISHED'))
      res.on('error', () => end(run, 'response error'))
    })
    req.on('error', (err) => end(run, err.message))
    req.end(body)
    requests.push(req)
  }
  const start = (k: number) => {
    const run = runs[k]!
    run.sentAt = performance.now()
    if (mode === 'sse') return post(k, run)
    const ws = sockets[k]
    if (!ws) return end(run, 'not connected')
    ws.send(`{"type":"user_message","content":"paced ${t} ${ms}","session_id":"${tag}-${k}"}`)
  }

  const go = performance.now()
  let started = 0
  let deadlineTimer: NodeJS.Timeout | undefined
  const deadline = new Promise<void>((r) => (deadlineTimer = setTimeout(r, deadlineMs)))
  // Every tick starts the sessions that are due (each session once, so the loop is bounded by N).
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = rampMs <= 0 ? n : Math.min(n, Math.floor(((performance.now() - go) / rampMs) * n) + 1)
      while (started < due) start(started++)
      if (started >= n || performance.now() - go > deadlineMs) return resolve()
      setTimeout(tick, 1)
    }
    tick()
  })
  await Promise.race([allEnded, deadline])
  clearTimeout(deadlineTimer)
  const stoppedAt = performance.now()

  const delays = new Float64Array(n * t)
  const firsts: number[] = []
  let d = 0
  let missing = 0
  let received = 0
  let errors = 0
  const errorSamples: string[] = []
  for (const run of runs) {
    const got = Math.min(run.count, t)
    received += got
    if (run.error) {
      errors++
      if (errorSamples.length < 3) errorSamples.push(run.error)
    }
    // The reference: the least-delayed token (min of arrival_i − i·MS), usually the first. Without any token,
    // when the first was due (sent + MS): a lower bound again.
    let ref = Infinity
    for (let i = 0; i < got; i++) ref = Math.min(ref, run.arrivals[i]! - i * ms)
    if (got > 0) firsts.push(run.arrivals[0]! - run.sentAt - ms)
    else ref = Math.min(stoppedAt, (run.sentAt || stoppedAt) + ms)
    for (let i = 0; i < t; i++) {
      if (i < got) delays[d++] = run.arrivals[i]! - (ref + i * ms)
      else {
        missing++
        delays[d++] = Math.max(0, stoppedAt - (ref + i * ms))
      }
    }
  }
  delays.sort()
  const firstSorted = Float64Array.from(firsts).sort()
  const out = {
    mode,
    sessions: n,
    connected: mode === 'ws' ? connected : n,
    connectError,
    started,
    completed: runs.filter((r) => r.done && !r.error).length,
    errors,
    errorSamples,
    received,
    missing,
    seconds: (stoppedAt - go) / 1000,
    timedOut: ended < n,
    p50: pct(delays, 50),
    p99: pct(delays, 99),
    max: delays.length ? delays[delays.length - 1]! : NaN,
    firstP50: pct(firstSorted, 50),
    firstP99: pct(firstSorted, 99),
  }
  process.stdout.write(`${JSON.stringify(out)}\n`)
  await waitGo()
  for (const ws of sockets) ws?.terminate()
  for (const r of requests) r.destroy()
  agent.destroy()
  process.stdout.write('closed\n')
}

// One step at a time; the number of steps is bounded by what the caller sends.
for (;;) {
  const l = await nextLine()
  if (l === 'exit') break
  const [cmd, mode = 'ws', url = '', n = '10', t = '20', ms = '25', ramp = '100', deadline = '10000', tag = `p${process.pid}`] = l.split(' ')
  if (cmd !== 'step') continue
  await step(mode, url, Number(n), Number(t), Number(ms), Number(ramp), Number(deadline), tag)
}
process.exit(0)
