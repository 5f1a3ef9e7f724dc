import type { CanonicalEvent } from './api.js'
import { brief, byId, h, pretty } from './dom.js'
import { describeEvent, eventBody, MessageTexts } from './event-text.js'

/** A frame the page sent or received, as recorded. */
export interface WireRecord {
  n: number
  /** ms since the conversation started */
  t: number
  dir: 'in' | 'out'
  dialect: string
  seq?: number
  frame: unknown
}

const MAX_ROWS = 5000

/**
 * The wire view: every frame in and out in the dialect's own format (left) next to the session's canonical
 * events (right), with seq numbers and timing. Selecting a row shows it and the item with the same seq on the
 * other side. Filterable by text and direction; exportable as JSONL.
 */
export class WireView {
  private readonly rows = byId<HTMLTableSectionElement>('wire-rows')
  private readonly canonRows = byId<HTMLTableSectionElement>('canonical-rows')
  private readonly filter = byId<HTMLInputElement>('wire-filter')
  private readonly direction = byId<HTMLSelectElement>('wire-direction')
  private frames: WireRecord[] = []
  private events: CanonicalEvent[] = []
  private texts = new MessageTexts()
  private start = Date.now()
  private n = 0
  private sessionId = ''
  /** Full searchable text of each row (the cells show a shortened form). */
  private readonly search = new WeakMap<Element, string>()

  constructor() {
    for (const body of [this.rows, this.canonRows]) {
      // One tab stop per table; arrow keys move between rows, Enter/Space select (and moving selects too).
      body.addEventListener('keydown', (ev) => {
        const tr = (ev.target as HTMLElement).closest('tr')
        if (!tr) return
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault()
          tr.click()
          return
        }
        if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return
        ev.preventDefault()
        let next = ev.key === 'ArrowDown' ? tr.nextElementSibling : tr.previousElementSibling
        while (next && (next as HTMLElement).hidden) next = ev.key === 'ArrowDown' ? next.nextElementSibling : next.previousElementSibling
        if (!next) return
        focusRow(body, next as HTMLTableRowElement)
        ;(next as HTMLTableRowElement).click()
      })
    }
    this.filter.addEventListener('input', () => this.applyFilter())
    this.direction.addEventListener('change', () => this.applyFilter())
    byId('wire-clear').addEventListener('click', () => this.reset(this.sessionId))
    byId('export').addEventListener('click', () => this.download())
  }

  reset(sessionId: string): void {
    this.frames = []
    this.events = []
    this.texts = new MessageTexts()
    this.n = 0
    this.start = Date.now()
    this.sessionId = sessionId
    this.rows.replaceChildren()
    this.canonRows.replaceChildren()
    byId('detail-frame').textContent = 'Select a frame or an event.'
    byId('detail-canonical').textContent = ''
  }

  setSession(id: string): void {
    this.sessionId = id
  }

  frame(dialect: string, dir: 'in' | 'out', frame: unknown, seq?: number): void {
    const r: WireRecord = { n: ++this.n, t: Date.now() - this.start, dir, dialect, frame, ...(seq !== undefined ? { seq } : {}) }
    this.frames.push(r)
    const tr = h(
      'tr',
      { tabindex: '-1', 'data-dir': dir, 'data-seq': seq ?? '', 'data-n': r.n },
      h('td', {}, String(r.n)),
      h('td', {}, String(r.t)),
      h('td', { class: `dir-${dir}` }, dir === 'in' ? '← in' : '→ out'),
      h('td', {}, seq === undefined ? '' : String(seq)),
      h('td', {}, brief(frame)),
    )
    this.search.set(tr, `${dir} ${seq ?? ''} ${safeJson(frame)}`.toLowerCase())
    const select = () => this.select(pretty(frame), seq, tr)
    tr.addEventListener('click', select)
    this.rows.append(tr)
    rove(this.rows, tr)
    if (this.rows.children.length > MAX_ROWS) this.rows.firstElementChild?.remove()
    this.show(tr)
  }

  canonical(e: CanonicalEvent): void {
    this.events.push(e)
    this.texts.add(e)
    const tr = h(
      'tr',
      { tabindex: '-1', 'data-seq': e.seq, 'data-type': e.type, 'data-session': e.sessionId },
      h('td', {}, String(e.seq)),
      h('td', {}, String(e.ts - this.start)),
      h('td', {}, e.type),
      h('td', {}, describeEvent(e, this.texts.get) ?? brief(eventBody(e))),
    )
    this.search.set(tr, safeJson(e).toLowerCase())
    const select = () => this.select(pretty(e), e.seq, tr, true)
    tr.addEventListener('click', select)
    this.canonRows.append(tr)
    rove(this.canonRows, tr)
    if (this.canonRows.children.length > MAX_ROWS) this.canonRows.firstElementChild?.remove()
    this.show(tr)
  }

  /** The session as JSONL: wire frames and canonical events, in time order. */
  jsonl(): string {
    const lines: Array<{ t: number; line: string }> = [
      ...this.frames.map((f) => ({ t: f.t, line: JSON.stringify({ kind: 'wire', ...f }) })),
      ...this.events.map((e) => ({ t: e.ts - this.start, line: JSON.stringify({ kind: 'canonical', t: e.ts - this.start, event: e }) })),
    ]
    lines.sort((a, b) => a.t - b.t)
    return lines.map((l) => l.line).join('\n') + (lines.length ? '\n' : '')
  }

  private download(): void {
    const blob = new Blob([this.jsonl()], { type: 'application/x-ndjson' })
    const a = h('a', { href: URL.createObjectURL(blob), download: `parlance-${this.sessionId || 'session'}.jsonl` })
    document.body.append(a)
    a.click()
    a.remove()
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000)
  }

  private select(text: string, seq: number | undefined, tr: HTMLTableRowElement, fromCanonical = false): void {
    for (const el of document.querySelectorAll('.wire-table tr.selected, .wire-table tr.match')) el.classList.remove('selected', 'match')
    tr.classList.add('selected')
    focusRow(tr.parentElement as HTMLTableSectionElement, tr, false)
    const other = fromCanonical ? this.rows : this.canonRows
    const matches = seq === undefined ? [] : [...other.querySelectorAll<HTMLTableRowElement>(`tr[data-seq="${seq}"]`)]
    for (const m of matches) m.classList.add('match')
    matches[0]?.scrollIntoView({ block: 'nearest' })
    const ev = seq === undefined ? undefined : this.events.find((e) => e.seq === seq && (!this.sessionId || e.sessionId === this.sessionId))
    const frames = seq === undefined ? [] : this.frames.filter((f) => f.seq === seq)
    byId('detail-frame').textContent = fromCanonical
      ? frames.length
        ? frames.map((f) => pretty(f.frame)).join('\n\n')
        : '(no frame carries this seq)'
      : text
    byId('detail-canonical').textContent = fromCanonical
      ? text
      : ev
        ? pretty(ev)
        : seq === undefined
          ? '(this frame carries no seq)'
          : '(not received yet)'
  }

  private show(tr: HTMLTableRowElement): void {
    tr.hidden = !this.matches(tr)
  }

  private matches(tr: HTMLTableRowElement): boolean {
    const dir = this.direction.value
    if (dir !== 'all' && tr.dataset.dir !== undefined && tr.dataset.dir !== dir) return false
    const q = this.filter.value.trim().toLowerCase()
    return q === '' || (this.search.get(tr) ?? tr.textContent ?? '').toLowerCase().includes(q)
  }

  private applyFilter(): void {
    for (const tr of this.rows.children) this.show(tr as HTMLTableRowElement)
    for (const tr of this.canonRows.children) this.show(tr as HTMLTableRowElement)
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? ''
  } catch {
    return String(v)
  }
}

/** The first row of a table body is its tab stop until another is focused. */
function rove(body: HTMLTableSectionElement, tr: HTMLTableRowElement): void {
  if (!body.querySelector('tr[tabindex="0"]')) tr.tabIndex = 0
}

/** Makes `tr` the table's only tab stop (and focuses it). */
function focusRow(body: HTMLTableSectionElement, tr: HTMLTableRowElement, focus = true): void {
  for (const r of body.querySelectorAll<HTMLTableRowElement>('tr[tabindex="0"]')) r.tabIndex = -1
  tr.tabIndex = 0
  if (focus) tr.focus()
}
