import type { Api, SessionRow } from './api.js'
import { byId, h } from './dom.js'

/** A listed session: loaded (in memory on the server) or only stored. */
export interface ListedSession extends SessionRow {
  loaded: boolean
}

/**
 * The sessions list: the caller's loaded sessions (active run, connections per dialect) and stored ones, forks
 * drawn as a tree under their parent ("forked at seq k"), each with a Replay button that opens the session.
 */
export class SessionsView {
  private readonly rows = byId<HTMLTableSectionElement>('sessions-rows')
  private timer: ReturnType<typeof setInterval> | undefined
  private listed = new Map<string, ListedSession>()

  /** The session the chat is in (marked in the list). */
  current: () => string = () => ''
  /** Opens a session's view (its events and conversation). */
  onOpen: (id: string) => void = () => undefined

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

  /** The session as last listed; lists again when it is not there (a fork made a moment ago). */
  async row(id: string): Promise<ListedSession | undefined> {
    if (!this.listed.has(id)) await this.refresh()
    return this.listed.get(id)
  }

  /** The listed forks of session `id`, by the seq they were forked at. */
  forksOf(id: string): ListedSession[] {
    return [...this.listed.values()].filter((s) => s.forkedFrom?.sessionId === id).sort(byForkPoint)
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
    const all: ListedSession[] = [
      ...data.loaded.map((s) => ({ ...s, loaded: true })),
      ...data.stored.filter((s) => !loadedIds.has(s.id)).map((s) => ({ ...s, loaded: false })),
    ]
    this.listed = new Map(all.map((s) => [s.id, s]))
    if (all.length === 0) {
      this.rows.replaceChildren(h('tr', {}, h('td', { colspan: 6 }, 'No sessions yet: send a message.')))
      return
    }
    this.rows.replaceChildren(...tree(all).map(({ s, depth }) => this.rowOf(s, depth)))
  }

  private rowOf(s: ListedSession, depth: number): HTMLTableRowElement {
    const conns = Object.entries(s.connections ?? {})
      .map(([d, n]) => `${d} ×${n}`)
      .join(', ')
    const mine = s.id === this.current()
    const from = s.forkedFrom
    const origin = !from
      ? null
      : depth > 0
        ? h('small', { class: 'fork-note' }, h('span', { class: 'visually-hidden' }, `fork of ${from.sessionId}, `), `forked at seq ${from.atSeq}`)
        : h('small', { class: 'fork-note' }, `forked from ${from.sessionId} at seq ${from.atSeq}`)
    const idCell = h(
      'td',
      { class: 'session-cell' },
      depth > 0 ? h('span', { class: 'fork-mark', 'aria-hidden': 'true' }, '↳ ') : null,
      h('code', {}, s.id),
      mine ? ' (this chat)' : '',
      origin,
    )
    idCell.style.setProperty('--depth', String(depth)) // CSSOM, allowed by the page's CSP (a style attribute is not)
    return h(
      'tr',
      {
        'data-session': s.id,
        'data-depth': depth,
        'data-parent': from?.sessionId,
        'data-forked-at': from?.atSeq,
        class: mine ? 'current' : undefined,
        'aria-current': mine ? 'true' : undefined,
      },
      idCell,
      h('td', {}, s.agent),
      h('td', {}, String(s.lastSeq)),
      h('td', {}, s.activeRunId ? 'running' : s.loaded ? 'idle' : 'stored'),
      h('td', {}, conns || '—'),
      h('td', {}, h('button', { type: 'button', 'aria-label': `Replay session ${s.id} from seq 0`, onclick: () => this.onOpen(s.id) }, 'Replay')),
    )
  }
}

function byForkPoint(a: SessionRow, b: SessionRow): number {
  return (a.forkedFrom?.atSeq ?? 0) - (b.forkedFrom?.atSeq ?? 0) || a.id.localeCompare(b.id)
}

/**
 * The sessions in display order with their depth: each fork right under its parent (by fork point), deeper
 * forks under theirs. A fork whose parent is not listed is a root of its own. Exported for tests of the order.
 */
export function tree<T extends SessionRow>(all: readonly T[]): Array<{ s: T; depth: number }> {
  const ids = new Set(all.map((s) => s.id))
  const children = new Map<string, T[]>()
  const roots: T[] = []
  for (const s of all) {
    const parent = s.forkedFrom?.sessionId
    if (parent !== undefined && parent !== s.id && ids.has(parent)) children.set(parent, [...(children.get(parent) ?? []), s])
    else roots.push(s)
  }
  const out: Array<{ s: T; depth: number }> = []
  const seen = new Set<string>()
  const visit = (s: T, depth: number) => {
    if (seen.has(s.id)) return
    seen.add(s.id)
    out.push({ s, depth })
    for (const c of (children.get(s.id) ?? []).sort(byForkPoint)) visit(c, depth + 1)
  }
  for (const r of roots) visit(r, 0)
  // A cycle of forks (impossible from the server, but never hide a row): list what is left at the top.
  for (const s of all) visit(s, 0)
  return out
}
