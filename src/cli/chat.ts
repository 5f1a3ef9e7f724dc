import { createInterface, type Interface } from 'node:readline'
import { HaiClient, type HaiServerMessage } from '../client/index.js'
import { ConversationModel, type StoredEvent } from '../core/index.js'

/** Options of `parlance chat`. */
export interface ChatOptions {
  url: string
  sessionId?: string
  /** Bearer token for a server started with --token. */
  token?: string
}

/** Colours and the spinner only on a terminal, and never with NO_COLOR set (https://no-color.org). */
const tty = process.stdout.isTTY === true
const color = tty && !process.env.NO_COLOR
const dim = (s: string) => (color ? `\x1b[2m${s}\x1b[0m` : s)
const bold = (s: string) => (color ? `\x1b[1m${s}\x1b[0m` : s)
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
/** Reconnects tried after a dropped connection, the first wait, and the longest (doubling in between). */
const RECONNECTS = 8
const FIRST_WAIT_MS = 250
const LONGEST_WAIT_MS = 5_000
/** Close codes that a retry cannot fix: the token refused, the session another principal's. */
const FINAL_CLOSES = new Set([4401, 4403])

/** What the next line the user types answers. */
type Waiting = { kind: 'message' } | { kind: 'approval'; id: string } | { kind: 'tool'; id: string }

/**
 * An interactive HAI client in the terminal. Replies stream as they come; lines typed meanwhile are queued and
 * sent in order once the run completes; an approval or client tool question takes the next line. Ctrl-C cancels
 * the active run (a second one quits), rejects a pending approval, and quits when idle. With piped stdin every
 * line is sent in turn, and chat exits after the last reply.
 */
export async function chat(options: ChatOptions): Promise<void> {
  // A refused token would otherwise show as "connected", then a close: ask first (GET / needs the same credentials).
  const probe = await fetch(`${options.url}/`, {
    headers: { accept: 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
  }).catch((err: unknown) => {
    throw new Error(`cannot reach ${options.url}: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`)
  })
  await probe.body?.cancel()
  if (probe.status === 401)
    throw new Error(`${options.url} refused ${options.token ? 'the token' : 'the connection: it needs a token (--token or PARLANCE_TOKEN)'}`)
  // An existing session: the conversation so far first, then everything after it (a run still active streams on).
  const shown = options.sessionId ? await printConversation(options, options.sessionId) : null
  const connect = (sessionId: string | undefined, after: number | undefined) =>
    HaiClient.connect({ url: options.url, sessionId, resumeAfter: after, token: options.token })
  const client = await connect(options.sessionId, options.sessionId ? (shown ?? -1) : undefined)
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: tty && process.stdin.isTTY === true })
  process.stdout.write(dim(`connected to ${options.url} — session ${client.sessionId} (Ctrl-C cancels a reply, Ctrl-D quits)\n`))
  return new Session(client, rl, (after) => connect(client.sessionId, after)).run()
}

/**
 * Prints session `id`'s messages (read through the inspector API's canonical events, folded as the server folds
 * them) and returns the last seq shown; null when the API is off or refuses (`--no-inspector`): the caller then
 * attaches from the active run's start, as before.
 */
async function printConversation(options: ChatOptions, id: string): Promise<number | null> {
  const headers = options.token ? { authorization: `Bearer ${options.token}` } : undefined
  const model = new ConversationModel()
  let after = 0
  for (;;) {
    const res = await fetch(`${options.url}/inspector/api/sessions/${encodeURIComponent(id)}/events?after=${after}&limit=1000`, { headers }).catch(
      () => null,
    )
    if (res?.status === 404 && after === 0) return 0 // a new session: nothing to show
    if (!res?.ok) {
      await res?.body?.cancel()
      process.stdout.write(dim('(the conversation so far is not shown: the server has no inspector API)\n'))
      return null
    }
    const page = (await res.json()) as { events: StoredEvent[]; next: number; more: boolean }
    for (const e of page.events) model.apply(e)
    if (page.events.length > 0) after = page.events.at(-1)!.seq
    if (!page.more) break
  }
  for (const m of model.messages) {
    if (m.role === 'user') process.stdout.write(`${dim('you>')} ${m.content}\n`)
    else if (m.role === 'assistant' && m.content) process.stdout.write(`${bold('agent>')} ${m.content}\n`)
  }
  return after
}

class Session {
  private readonly queue: string[] = []
  private busy = false
  private waiting: Waiting = { kind: 'message' }
  private inputEnded = false
  private cancelling = false
  private streaming = false
  private spinner: NodeJS.Timeout | null = null
  private frame = 0
  private done!: () => void

  /** False while the connection is down and being re-opened: lines typed meanwhile wait in the queue. */
  private connected = true
  private quitting = false
  /** Highest seq received on any connection: where a reconnect resumes. */
  private seq = 0

  constructor(
    private client: HaiClient,
    private readonly rl: Interface,
    private readonly reopen: (afterSeq: number) => Promise<HaiClient>,
  ) {}

  run(): Promise<void> {
    const finished = new Promise<void>((resolve) => (this.done = resolve))
    this.rl.on('line', (line) => this.onLine(line.trim()))
    this.rl.on('close', () => {
      this.inputEnded = true
      this.maybeExit()
    })
    // On a terminal readline turns Ctrl-C into 'SIGINT'; with piped stdin the process gets the signal.
    this.rl.on('SIGINT', () => this.onInterrupt())
    process.on('SIGINT', () => this.onInterrupt())
    this.watch(this.client)
    this.prompt()
    return finished
  }

  /** Shows what `client` receives; when it closes unasked, reconnects. */
  private watch(client: HaiClient): void {
    void this.listen(client)
    void client.closed.then(({ code, reason }) => {
      if (this.quitting || client !== this.client) return
      this.seq = Math.max(this.seq, client.lastSeq)
      this.stopSpinner()
      this.streaming = false
      const why = `${code}${reason ? ` ${reason}` : ''}`
      if (FINAL_CLOSES.has(code)) {
        process.stdout.write(dim(`\nconnection closed (${why})\n`))
        process.exitCode = 1
        return this.quit()
      }
      process.stdout.write(dim(`\nconnection lost (${why}); reconnecting…\n`))
      void this.reconnect()
    })
  }

  /**
   * Re-opens the connection with resume (events after the last seq seen), waiting 250 ms, 500 ms, … up to 5 s
   * between tries, RECONNECTS times; a run the server lost meanwhile (a restart) shows its interrupted end.
   */
  private async reconnect(): Promise<void> {
    this.connected = false
    let wait = FIRST_WAIT_MS
    for (let attempt = 1; attempt <= RECONNECTS; attempt++) {
      await new Promise((r) => setTimeout(r, wait))
      wait = Math.min(wait * 2, LONGEST_WAIT_MS)
      if (this.quitting) return
      try {
        const client = await this.reopen(this.seq)
        this.client = client
        this.connected = true
        process.stdout.write(dim(`[reconnected, resuming after seq ${this.seq}]\n`))
        this.watch(client)
        if (!this.busy && this.queue.length > 0) this.sendNext()
        else if (this.busy) this.startSpinner()
        return
      } catch (err) {
        process.stdout.write(dim(`[reconnect ${attempt}/${RECONNECTS} failed: ${(err as Error).message}]\n`))
      }
    }
    process.stdout.write(
      dim(
        `could not reconnect after ${RECONNECTS} tries; session ${this.client.sessionId} is kept (parlance chat --session ${this.client.sessionId})\n`,
      ),
    )
    process.exitCode = 1
    this.quit()
  }

  private onLine(line: string): void {
    const w = this.waiting
    if (w.kind === 'approval') {
      this.waiting = { kind: 'message' }
      this.client.approve(w.id, /^y(es)?$/i.test(line))
      return
    }
    if (w.kind === 'tool') {
      this.waiting = { kind: 'message' }
      let result: unknown = { client: 'parlance chat', platform: process.platform, node: process.version }
      if (line) {
        try {
          result = JSON.parse(line)
        } catch {
          result = line
        }
      }
      this.client.toolResult(w.id, { result })
      return
    }
    if (!line) return this.prompt()
    this.queue.push(line)
    if (!this.connected) process.stdout.write(dim(`[queued: sent once reconnected]\n`))
    else if (this.busy) process.stdout.write(dim(`[queued: sent when this reply completes]\n`))
    else this.sendNext()
  }

  private sendNext(): void {
    if (!this.connected) return
    const line = this.queue.shift()
    if (line === undefined) return this.maybeExit()
    this.busy = true
    this.cancelling = false
    this.client.say(line)
    this.startSpinner()
  }

  /** Ctrl-C: reject a pending approval; else cancel the active reply; a second Ctrl-C (or one when idle) quits. */
  private onInterrupt(): void {
    if (this.waiting.kind === 'approval') {
      const id = this.waiting.id
      this.waiting = { kind: 'message' }
      process.stdout.write(dim('\n[approval rejected]\n'))
      this.client.approve(id, false, 'rejected in parlance chat (Ctrl-C)')
      return
    }
    if (this.busy && !this.cancelling) {
      this.cancelling = true
      this.waiting = { kind: 'message' }
      this.stopSpinner()
      process.stdout.write(dim('\n[cancelling — Ctrl-C again to quit]\n'))
      this.client.cancel()
      return
    }
    this.quit()
  }

  private async listen(client: HaiClient): Promise<void> {
    for (;;) {
      let m: HaiServerMessage
      try {
        m = await client.next(() => true, 24 * 3600_000)
      } catch {
        return // the socket closed
      }
      if (typeof m.seq === 'number' && m.seq > this.seq) this.seq = m.seq
      this.show(m)
    }
  }

  private show(m: HaiServerMessage): void {
    this.stopSpinner()
    switch (m.type) {
      case 'assistant_message_chunk':
        if (!this.streaming && !m.is_final) process.stdout.write(bold('agent> '))
        if (m.is_final && !this.streaming) break // an empty message
        this.streaming = !m.is_final
        process.stdout.write(m.is_final ? `${m.content}\n` : m.content)
        return
      case 'assistant_message':
        process.stdout.write(`${bold('agent>')} ${m.content}\n`)
        break
      case 'status':
        if (m.status === 'completed') return this.completed()
        process.stdout.write(dim(`[${m.status}${m.message ? `: ${m.message}` : ''}]\n`))
        break
      case 'tool_call_start':
        process.stdout.write(dim(`[tool ${m.tool_name} ${JSON.stringify(m.parameters)}]\n`))
        if (m.metadata?.target === 'client') {
          this.waiting = { kind: 'tool', id: m.tool_call_id }
          process.stdout.write(
            `result of client tool ${m.tool_name} as JSON (empty: {"client":"parlance chat","platform":"${process.platform}","node":"${process.version}"}): `,
          )
          return
        }
        break
      case 'tool_call_end':
        process.stdout.write(dim(`[tool ${m.tool_name} → ${m.result}]\n`))
        break
      case 'tool_call_error':
        process.stdout.write(dim(`[tool ${m.tool_name} failed: ${m.error}]\n`))
        break
      case 'tool_approval_request':
        this.waiting = { kind: 'approval', id: m.approval_id }
        process.stdout.write(
          `approval needed (${m.risk_level} risk): ${m.tool_name} ${JSON.stringify(m.parameters)}\n  ${m.reasoning}\napprove? [y/N] `,
        )
        return
      case 'error':
        // An approval that timed out or was withdrawn closes its question.
        if (this.waiting.kind === 'approval' && m.details?.approval_id === this.waiting.id) this.waiting = { kind: 'message' }
        process.stdout.write(`error ${m.error_code}: ${m.message}\n`)
        break
    }
    if (this.busy) this.startSpinner()
  }

  private completed(): void {
    this.busy = false
    this.streaming = false
    this.waiting = { kind: 'message' }
    if (this.queue.length) this.sendNext()
    else if (this.inputEnded) this.maybeExit()
    else this.prompt()
  }

  private prompt(): void {
    if (!this.inputEnded) this.rl.setPrompt('you> ')
    if (!this.inputEnded) this.rl.prompt()
  }

  /** Piped input: exit once every line was sent and answered. */
  private maybeExit(): void {
    if (this.inputEnded && !this.busy && this.queue.length === 0 && this.connected) this.quit()
  }

  private quit(): void {
    this.quitting = true
    this.stopSpinner()
    this.client.close()
    this.rl.close()
    this.done()
  }

  private startSpinner(): void {
    if (!tty || this.spinner || this.streaming || this.waiting.kind !== 'message') return
    this.spinner = setInterval(() => process.stdout.write(`\r${dim(`${FRAMES[this.frame++ % FRAMES.length]} working…`)}`), 100)
  }

  private stopSpinner(): void {
    if (!this.spinner) return
    clearInterval(this.spinner)
    this.spinner = null
    process.stdout.write('\r\x1b[K')
  }
}
