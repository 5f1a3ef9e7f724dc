import type { Api, CanonicalEvent, SessionRow } from './api.js'
import { brief, byId, h } from './dom.js'

/**
 * The sessions list: the caller's loaded sessions (active run, connections per dialect) and stored ones, each
 * with a Replay button that reads its canonical events from seq 0 and rebuilds the conversation.
 */
export class SessionsView {
  private readonly rows = byId<HTMLTableSectionElement>('sessions-rows')
  private timer: ReturnType<typeof setInterval> | undefined

  /** The session the chat is in (marked in the list). */
  current: () => string = () => ''

  constructor(private readonly api: Api) {
    byId('sessions-refresh').addEventListener('click', () => void this.refresh())
  }

  start(everyMs = 3000): void {
    void this.refresh()
    this.timer = setInterval(() => void this.refresh(), everyMs)
  }

  stop(): void {
    clearInterval(this.timer)
  }

  async refresh(): Promise<void> {
    let data: { loaded: SessionRow[]; stored: SessionRow[] }
    try {
      data = await this.api.json('/inspector/api/sessions?limit=50')
    } catch (err) {
      this.rows.replaceChildren(h('tr', {}, h('td', { colspan: 6 }, `Cannot list sessions: ${(err as Error).message}`)))
      return
    }
    const loadedIds = new Set(data.loaded.map((s) => s.id))
    const all = [...data.loaded.map((s) => ({ ...s, loaded: true })), ...data.stored.filter((s) => !loadedIds.has(s.id)).map((s) => ({ ...s, loaded: false }))]
    if (all.length === 0) {
      this.rows.replaceChildren(h('tr', {}, h('td', { colspan: 6 }, 'No sessions yet: send a message.')))
      return
    }
    this.rows.replaceChildren(
      ...all.map((s) => {
        const conns = Object.entries(s.connections ?? {})
          .map(([d, n]) => `${d} ×${n}`)
          .join(', ')
        const mine = s.id === this.current()
        return h(
          'tr',
          { 'data-session': s.id, class: mine ? 'current' : undefined, 'aria-current': mine ? 'true' : undefined },
          h('td', {}, h('code', {}, s.id), mine ? ' (this chat)' : ''),
          h('td', {}, s.agent),
          h('td', {}, String(s.lastSeq)),
          h('td', {}, s.activeRunId ? 'running' : s.loaded ? 'idle' : 'stored'),
          h('td', {}, conns || '—'),
          h('td', {}, h('button', { type: 'button', 'aria-label': `Replay session ${s.id} from seq 0`, onclick: () => void this.replay(s.id) }, 'Replay')),
        )
      }),
    )
  }

  /** Reads the session's events from seq 0 and shows the conversation they make. */
  async replay(id: string): Promise<void> {
    const box = byId('replay')
    box.hidden = false
    byId('replay-title').textContent = `Replay of ${id} (loading…)`
    let events: CanonicalEvent[]
    try {
      events = await this.api.allEvents(id, 0)
    } catch (err) {
      byId('replay-title').textContent = `Replay of ${id} failed: ${(err as Error).message}`
      return
    }
    const transcript = byId('replay-transcript')
    const texts = new Map<string, HTMLLIElement>()
    transcript.replaceChildren()
    for (const e of events) {
      if (e.type === 'message.user') transcript.append(h('li', { class: 'msg user' }, String(e.content)))
      else if (e.type === 'context.update' && e.triggering) transcript.append(h('li', { class: 'msg user' }, String(e.description)))
      else if (e.type === 'text.delta') {
        const mid = String(e.messageId)
        let li = texts.get(mid)
        if (!li) texts.set(mid, (li = transcript.appendChild(h('li', { class: 'msg assistant' }))))
        li.append(String(e.delta))
      } else if (e.type === 'message.sent') transcript.append(h('li', { class: 'msg assistant' }, String(e.message)))
      else if (e.type === 'tool.call') transcript.append(h('li', { class: 'msg status' }, `tool ${String(e.toolName)} ${brief(e.args)}`))
      else if (e.type === 'approval.requested') transcript.append(h('li', { class: 'msg status' }, `approval asked for ${String(e.toolName)} (${String(e.risk)} risk)`))
      else if (e.type === 'approval.resolved') transcript.append(h('li', { class: 'msg status' }, `approval ${e.approved ? 'granted' : 'refused'} by ${String(e.by)}`))
      else if (e.type === 'run.error') transcript.append(h('li', { class: 'msg error' }, `${String(e.code)}: ${String(e.message)}`))
    }
    byId('replay-events').replaceChildren(...events.map((e) => h('li', { 'data-seq': e.seq }, `${e.seq} ${e.type} ${brief(e, 200)}`)))
    byId('replay-title').textContent = `Replay of ${id}: ${events.length} events from seq 0`
    box.dataset.session = id
    box.dataset.count = String(events.length)
  }
}
