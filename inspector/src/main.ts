import './style.css'
import { Api, type CanonicalEvent } from './api.js'
import { ApprovalDialog } from './approval.js'
import { ChatView } from './chat.js'
import { describeCapabilities, type Capabilities } from './capabilities.js'
import { connect, dialectOf, DIALECTS, type ChatSink, type DialectAdapter, type DialectId } from './dialects/index.js'
import { byId, h } from './dom.js'
import { MetricsStrip } from './metrics.js'
import type { PatchOp } from './patch.js'
import { SessionView } from './session-view.js'
import { SessionsView } from './sessions.js'
import { StateView } from './state-view.js'
import { WireView } from './wire.js'

const TRIGGERS: ReadonlyArray<[string, string]> = [
  ['hello', 'echo'],
  ['weather in Paris', 'server tool'],
  ['delete the notes', 'approval'],
  ['client', 'client tool'],
  ['state', 'shared state'],
  ['plan', 'plan and progress'],
  ['fail', 'failing run'],
]

const api = new Api()
const chat = new ChatView()
const dialog = new ApprovalDialog()
const stateView = new StateView()
const wire = new WireView()
const sessions = new SessionsView(api)
const sessionView = new SessionView(api, sessions)
const metrics = new MetricsStrip(api)
const statusEl = byId('conn-status')

/** The conversation in progress: one adapter, the sessions whose canonical events we follow. */
let gen = 0
let adapter: DialectAdapter | null = null
let dialect: DialectId = initialDialect()
let follows = new Map<string, AbortController>()
/** Server tool calls shown from the canonical log (for dialects that do not carry them). */
let serverTools = new Set<string>()
/** Approvals asked and not yet answered or closed: while any waits, the run is waiting for approval. */
let waiting = new Set<string>()
/** The agent the page talks to: the server's default (the first it serves); the demo's until the server says. */
let agent = 'demo'
/** What each dialect the server serves carries, by dialect id, as the server lists it (its `Capabilities`). */
let served: Readonly<Record<string, Capabilities>> = {}

/** Reads the agents the server serves; A2A, MCP and HugAI address the first (the default every other dialect uses). */
async function loadServed(): Promise<void> {
  try {
    const info = await api.json<{ agents?: unknown; dialects?: Record<string, Capabilities> }>('/inspector/api/info')
    served = info.dialects ?? {}
    const first = Array.isArray(info.agents) ? info.agents.find((a): a is string => typeof a === 'string') : undefined
    if (first) agent = first
  } catch {
    // Without the token the server needs, the page cannot know yet: it says so once it tries to connect.
  }
  showServed()
}

/** Endpoints, the message placeholder and the demo's triggers follow the served agent. */
function showServed(): void {
  for (const d of DIALECTS) {
    const small = document.querySelector(`label[for="dialect-${d.id}"] small`)
    const endpoint = d.endpoint.replace('<agent>', agent)
    if (small) small.textContent = endpoint
    const caps = served[d.id]
    document.querySelector(`label[for="dialect-${d.id}"]`)?.setAttribute('title', caps ? `${endpoint}: ${describeCapabilities(caps)}` : endpoint)
  }
  const demo = agent === 'demo'
  document.querySelector<HTMLElement>('.quick')!.hidden = !demo
  byId<HTMLInputElement>('message').placeholder = demo
    ? 'Type a message — try: delete, client, state, plan, weather in Paris'
    : `Type a message to ${agent}`
  document.body.dataset.agent = agent
}

/** The header: connected over which dialect, and how the last run stands. */
function runStatus(d: DialectId, outcome: string): void {
  setStatus(`connected over ${labelOf(d)} — ${waiting.size > 0 ? 'waiting for approval' : `last run: ${outcome}`}`, 'ok')
}

function initialDialect(): DialectId {
  const q = new URLSearchParams(location.search).get('dialect')
  return q !== null && DIALECTS.some((d) => d.id === q) ? q : DIALECTS[0]!.id
}

function setStatus(text: string, kind: 'ok' | 'bad' | '' = ''): void {
  statusEl.textContent = text
  statusEl.className = `conn-status ${kind}`
}

function labelOf(id: DialectId): string {
  return DIALECTS.find((d) => d.id === id)?.label ?? id
}

function follow(sessionId: string, mine: number): void {
  if (follows.has(sessionId)) return
  const ctl = new AbortController()
  follows.set(sessionId, ctl)
  byId('session-id').textContent = sessionId
  wire.setSession(sessionId)
  const onEvent = (e: CanonicalEvent) => {
    if (mine !== gen) return
    wire.canonical(e)
    if (!dialectOf(dialect).carries.state) {
      if (e.type === 'state.snapshot') stateView.snapshot(e.snapshot)
      else if (e.type === 'state.delta') stateView.patch(e.patch)
    }
    if (!dialectOf(dialect).carries.serverTools) {
      if (e.type === 'tool.call' && e.target === 'server') {
        serverTools.add(e.toolCallId)
        chat.toolCall({ id: e.toolCallId, name: e.toolName, args: e.args })
      } else if ((e.type === 'tool.result' || e.type === 'tool.error') && serverTools.has(e.toolCallId)) {
        chat.toolResult(e.toolCallId, e.type === 'tool.result' ? { result: e.result } : { error: e.error })
      }
    }
    if (!dialectOf(dialect).carries.plan) {
      if (e.type === 'plan') chat.setPlan(e.tasks.map((t) => t.title))
      else if (e.type === 'progress') chat.setProgress(e.percent, e.message)
    }
  }
  void api.follow(sessionId, onEvent, ctl.signal, (msg) => mine === gen && setStatus(`canonical log: ${msg}`, 'bad'))
}

function sinkFor(mine: number, d: DialectId): ChatSink {
  const live =
    <A extends unknown[]>(f: (...a: A) => void) =>
    (...a: A) => {
      if (mine === gen) f(...a)
    }
  return {
    session: live((id: string) => follow(id, mine)),
    textDelta: live((id: string, delta: string) => chat.textDelta(id, delta)),
    textEnd: live((id: string) => chat.textEnd(id)),
    toolCall: live((c) => chat.toolCall(c)),
    toolResult: live((id, o) => chat.toolResult(id, o)),
    clientTool: live((c) => chat.clientTool(c)),
    approval: live((a) => {
      waiting.add(a.id)
      runStatus(d, 'waiting for approval')
      chat.approvalNote(`Approval requested for ${a.tool} (${a.risk} risk)`)
      dialog.request(a)
    }),
    approvalClosed: live((id: string, why: string) => {
      waiting.delete(id)
      dialog.closed(id)
      chat.approvalNote(`Approval closed: ${why}`)
    }),
    status: live((t: string) => chat.status(t)),
    plan: live((tasks: string[]) => chat.setPlan(tasks)),
    progress: live((p: number, m?: string) => chat.setProgress(p, m)),
    state: live((s: unknown) => stateView.snapshot(s)),
    statePatch: live((ops: PatchOp[]) => stateView.patch(ops)),
    error: live((m: string) => chat.error(m)),
    runEnded: live((outcome: string) => {
      document.body.dataset.busy = 'false'
      runStatus(d, outcome)
    }),
    wire: live((dir: 'in' | 'out', frame: unknown, seq?: number) => wire.frame(d, dir, frame, seq)),
  }
}

/** Starts a new conversation over `d` (closing the current one). */
async function open(d: DialectId): Promise<void> {
  const mine = ++gen
  dialect = d
  adapter?.close()
  adapter = null
  for (const c of follows.values()) c.abort()
  follows = new Map()
  serverTools = new Set()
  waiting = new Set()
  dialog.reset()
  chat.clear()
  wire.reset('')
  byId('session-id').textContent = '–'
  stateView.reset(dialectOf(d).carries.state ? `from ${labelOf(d)} frames` : `from the canonical log (${labelOf(d)} carries no state)`)
  byId('progress-line').title = dialectOf(d).carries.plan
    ? `from ${labelOf(d)} frames`
    : `from the canonical log (${labelOf(d)} carries no plan or progress)`
  document.body.dataset.dialect = d
  document.body.dataset.ready = 'false'
  byId<HTMLButtonElement>('send').disabled = true
  setStatus(`connecting over ${labelOf(d)}…`)
  const url = new URL(location.href)
  url.searchParams.set('dialect', d)
  history.replaceState(null, '', url)
  let a: DialectAdapter
  try {
    a = await connect(d, { url: location.origin, agent, ...(api.token ? { token: api.token } : {}), sink: sinkFor(mine, d) })
  } catch (err) {
    if (mine !== gen) return
    setStatus(`cannot connect over ${labelOf(d)}`, 'bad')
    chat.error(`Cannot connect over ${labelOf(d)}: ${(err as Error).message}${api.token ? '' : ' (does the server need a token?)'}`)
    return
  }
  if (mine !== gen) return a.close()
  adapter = a
  byId('dialect-notes').textContent = a.notes
  const caps = served[d]
  byId('dialect-capabilities').textContent = caps ? `${labelOf(d)} carries: ${describeCapabilities(caps)}` : ''
  byId<HTMLButtonElement>('send').disabled = false
  setStatus(`connected over ${labelOf(d)}`, 'ok')
  document.body.dataset.ready = 'true'
}

function send(text: string): void {
  const a = adapter
  if (!a || !text.trim()) return
  chat.user(text)
  document.body.dataset.busy = 'true'
  a.send(text).catch((err: unknown) => chat.error(`send failed: ${(err as Error).message}`))
}

function setup(): void {
  const switcher = byId('dialect-switcher')
  for (const d of DIALECTS) {
    const input = h('input', { type: 'radio', name: 'dialect', value: d.id, id: `dialect-${d.id}` })
    input.checked = d.id === dialect
    input.addEventListener('change', () => input.checked && void open(d.id))
    switcher.append(h('label', { for: `dialect-${d.id}`, title: d.endpoint }, input, d.label, h('small', {}, d.endpoint)))
  }
  const composer = byId<HTMLFormElement>('composer')
  const message = byId<HTMLInputElement>('message')
  composer.addEventListener('submit', (ev) => {
    ev.preventDefault()
    send(message.value)
    message.value = ''
    message.focus()
  })
  const quick = document.querySelector('.quick')!
  for (const [text, what] of TRIGGERS) {
    quick.append(h('button', { type: 'button', title: what, 'aria-label': `Send “${text}” (${what})`, onclick: () => send(text) }, text))
  }
  byId('new-session').addEventListener('click', () => void open(dialect))
  const token = byId<HTMLInputElement>('token')
  token.value = api.token = new URLSearchParams(location.search).get('access_token') ?? sessionStorage.getItem('parlance-token') ?? ''
  token.addEventListener('change', () => {
    api.token = token.value.trim()
    sessionStorage.setItem('parlance-token', api.token)
    void loadServed().then(() => open(dialect))
  })
  dialog.onAnswer = (id, approved, feedback) => {
    waiting.delete(id)
    setStatus(`connected over ${labelOf(dialect)} — running`, 'ok')
    chat.approvalNote(`You ${approved ? 'approved' : 'rejected'} the request${feedback ? ` (${feedback})` : ''}`)
    adapter?.approve(id, approved, feedback).catch((err: unknown) => chat.error(`approval failed: ${(err as Error).message}`))
  }
  chat.onToolAnswer = (id, outcome) => {
    adapter?.answerTool(id, outcome).catch((err: unknown) => chat.error(`tool answer failed: ${(err as Error).message}`))
  }
  sessions.current = () => byId('session-id').textContent ?? ''
  sessions.onOpen = (id) => sessionView.open(id)
  metrics.start()
  sessions.start()
  sessionView.fromHash()
  void loadServed().then(() => open(dialect))
}

setup()
