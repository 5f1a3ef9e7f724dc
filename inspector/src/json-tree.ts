import { h } from './dom.js'

/**
 * Renders a JSON value as a collapsible tree (`<details>` per object/array). Nodes whose JSON pointer is in
 * `changed` (or below one) get the class `changed`, which the stylesheet highlights.
 */
export function jsonTree(value: unknown, changed: readonly string[] = []): HTMLElement {
  const hit = (path: string) => changed.some((c) => c === path || path.startsWith(`${c}/`))
  return node(value, '', '(root)', hit)
}

function leaf(value: unknown): HTMLElement {
  const kind = value === null ? 'null' : typeof value
  return h('span', { class: `json-${kind}` }, JSON.stringify(value) ?? 'undefined')
}

function node(value: unknown, path: string, label: string, hit: (p: string) => boolean): HTMLElement {
  const cls = hit(path) ? 'json-node changed' : 'json-node'
  const key = h('span', { class: 'json-key' }, label)
  if (typeof value !== 'object' || value === null) {
    return h('div', { class: cls, 'data-path': path || '/' }, key, ': ', leaf(value))
  }
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value)
  const summary = h('summary', {}, key, h('span', { class: 'json-meta' }, Array.isArray(value) ? ` [${entries.length}]` : ` {${entries.length}}`))
  const children = entries.map(([k, v]) => node(v, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, k, hit))
  return h('details', { class: cls, open: true, 'data-path': path || '/' }, summary, ...children)
}
