/** Attributes and children accepted by `h`. */
type Attrs = Record<string, string | number | boolean | undefined | ((ev: Event) => void)>
type Child = Node | string | null | undefined | false

/**
 * Creates an element: `h('button', { type: 'button', onclick: fn, 'aria-label': 'Send' }, 'Send')`.
 * `on…` keys become listeners, `true` sets an empty attribute, `false`/`undefined` skip it.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue
    if (typeof v === 'function') el.addEventListener(k.slice(2), v)
    else if (v === true) el.setAttribute(k, '')
    else el.setAttribute(k, String(v))
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c)
  return el
}

/** The element with this id; throws when the page lacks it (a build mismatch, not a user error). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id)
  if (!el) throw new Error(`inspector page has no #${id}`)
  return el as T
}

/** Pretty JSON for display; never throws (cycles, BigInt). */
export function pretty(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Compact one-line JSON, cut at `max` characters. */
export function brief(value: unknown, max = 160): string {
  let s: string
  try {
    s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  } catch {
    s = String(value)
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s
}

/** A random id (crypto.randomUUID needs a secure context; this page may be served over plain http on a LAN). */
export function uid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  const b = crypto.getRandomValues(new Uint8Array(16))
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('')
}
