import type { Api, CanonicalEvent } from './api.js'
import { brief, byId, h } from './dom.js'
import { describeEvent, eventBody, MessageTexts, usageText, usageTotal } from './event-text.js'
import type { SessionsView } from './sessions.js'

/** `#session=<id>`: the session whose view is open (links and the back button work). */
const HASH = /^#session=(.+)$/

/**
 * One session's view: the conversation its canonical events make, read from seq 0, where it was forked from
 * (a link to the parent) and its forks, and its events, each with "Fork here" (`POST /sessions/:id/fork`
 * keeping events 1..seq), which then opens the new session.
 */
export class SessionView {
  private readonly box = byId('replay')
  private readonly title = byId('replay-title')
  private readonly problem = byId('fork-error')
  /** Counts opens: an answer for a session no longer shown is dropped. */
  private shown = 0

  constructor(
    private readonly api: Api,
    private readonly sessions: SessionsView,
  ) {
    addEventListener('hashchange', () => this.fromHash())
  }

  /** Opens the session named in the URL's hash, if any (on load and on back/forward). */
  fromHash(): void {
    const m = HASH.exec(location.hash)
    if (!m) return
    let id: string
    try {
      id = decodeURIComponent(m[1]!)
    } catch {
      return
    }
    if (id !== this.box.dataset.session || this.box.hidden) void this.show(id)
  }

  /** Opens session `id` (and names it in the URL, so the page can be reloaded or linked to). */
  open(id: string): void {
    const hash = `#session=${encodeURIComponent(id)}`
    if (location.hash !== hash)
      location.hash = hash // hashchange shows it
    else void this.show(id)
  }

  /** Reads the session's events from seq 0 and shows the conversation they make. */
  async show(id: string): Promise<void> {
    const mine = ++this.shown
    this.box.hidden = false
    this.box.dataset.session = id
    delete this.box.dataset.count
    this.title.textContent = `Replay of ${id} (loading…)`
    this.setProblem('')
    let events: CanonicalEvent[]
    try {
      events = await this.api.allEvents(id, 0)
    } catch (err) {
      if (mine === this.shown) this.title.textContent = `Replay of ${id} failed: ${(err as Error).message}`
      return
    }
    const row = await this.sessions.row(id)
    if (mine !== this.shown) return
    this.origin(row?.forkedFrom, this.sessions.forksOf(id))
    const texts = new MessageTexts()
    const transcript: HTMLLIElement[] = []
    const answers = new Map<string, HTMLLIElement>()
    const list: HTMLLIElement[] = []
    for (const e of events) {
      texts.add(e)
      const said = describeEvent(e, texts.get)
      list.push(this.eventItem(id, e, said))
      if (e.type === 'message.user') transcript.push(h('li', { class: 'msg user' }, String(e.content)))
      else if (e.type === 'context.update' && e.triggering) transcript.push(h('li', { class: 'msg user' }, String(e.description)))
      else if (e.type === 'text.delta') {
        const mid = String(e.messageId)
        let li = answers.get(mid)
        if (!li) {
          answers.set(mid, (li = h('li', { class: 'msg assistant' })))
          transcript.push(li)
        }
        li.append(String(e.delta))
      } else if (e.type === 'message.sent') transcript.push(h('li', { class: 'msg assistant' }, String(e.message)))
      else if (e.type === 'tool.call') transcript.push(h('li', { class: 'msg status' }, `tool ${String(e.toolName)} ${brief(e.args)}`))
      else if (e.type === 'approval.requested')
        transcript.push(h('li', { class: 'msg status' }, `approval asked for ${String(e.toolName)} (${String(e.risk)} risk)`))
      else if (e.type === 'approval.resolved')
        transcript.push(h('li', { class: 'msg status' }, `approval ${e.approved ? 'granted' : 'refused'} by ${String(e.by)}`))
      else if (e.type === 'run.error') transcript.push(h('li', { class: 'msg error' }, runError(e)))
      else if (said !== undefined) transcript.push(h('li', { class: 'msg status', 'data-type': e.type }, said))
    }
    this.usage(events)
    byId('replay-transcript').replaceChildren(...transcript)
    byId('replay-events').replaceChildren(...list)
    this.title.textContent = `Replay of ${id}: ${events.length} events from seq 0`
    this.box.dataset.count = String(events.length)
  }

  private eventItem(id: string, e: CanonicalEvent, said: string | undefined): HTMLLIElement {
    const button = h(
      'button',
      { type: 'button', class: 'fork-here', 'aria-label': `Fork here: a new session with events 1 to ${e.seq} of ${id}` },
      'Fork here',
    )
    button.addEventListener('click', () => void this.fork(id, e.seq, button))
    return h(
      'li',
      { 'data-seq': e.seq, 'data-type': e.type },
      h('span', { class: 'event-text' }, `${e.seq} ${e.type} ${said ?? brief(eventBody(e), 200)}`),
      ' ',
      button,
    )
  }

  /** "forked from <parent> at seq k" with a link to the parent; the forks of this session, each a link. */
  private origin(from: { sessionId: string; atSeq: number } | undefined, forks: ReadonlyArray<{ id: string; forkedFrom?: { atSeq: number } }>): void {
    const line = byId('replay-origin')
    line.replaceChildren(...(from ? ['forked from ', this.link(from.sessionId), ` at seq ${from.atSeq}`] : []))
    line.hidden = !from
    const children = byId('replay-forks')
    children.replaceChildren(
      ...(forks.length ? ['forks: ', ...forks.flatMap((f, i) => [i ? ', ' : '', this.link(f.id), ` at seq ${f.forkedFrom?.atSeq ?? '?'}`])] : []),
    )
    children.hidden = forks.length === 0
  }

  /** "Tokens: 120 in (6 cached), 21 out (3 reasoning) over 3 model calls", when the session's model calls reported usage. */
  private usage(events: readonly CanonicalEvent[]): void {
    let line = document.getElementById('replay-usage')
    if (!line) {
      line = h('p', { id: 'replay-usage', class: 'fork-origin' })
      byId('replay-forks').after(line)
    }
    const { calls, total } = usageTotal(events)
    line.textContent = calls ? `Tokens: ${usageText(total)} over ${calls} model call${calls === 1 ? '' : 's'}` : ''
    line.hidden = calls === 0
  }

  private link(id: string): HTMLAnchorElement {
    return h('a', { href: `#session=${encodeURIComponent(id)}`, 'data-session': id }, id)
  }

  private async fork(id: string, atSeq: number, button: HTMLButtonElement): Promise<void> {
    button.disabled = true
    this.setProblem('')
    try {
      const made = await this.api.fork(id, atSeq)
      await this.sessions.refresh()
      this.open(made.id)
    } catch (err) {
      this.setProblem(`Could not fork ${id} at seq ${atSeq}: ${(err as Error).message}`)
    } finally {
      button.disabled = false
    }
  }

  private setProblem(text: string): void {
    this.problem.textContent = text
    this.problem.hidden = text === ''
  }
}

/** A run error as the server kept it: what the agent threw and its ref (`internal`), which clients were not sent. */
function runError(e: Extract<CanonicalEvent, { type: 'run.error' }>): string {
  if (!e.internal) return `${e.code}: ${e.message}`
  if (e.internal.message === e.message) return `${e.code}: ${e.message} (ref ${e.internal.ref})`
  return `${e.code}: ${e.internal.message} (ref ${e.internal.ref}; clients saw: ${e.message})`
}
