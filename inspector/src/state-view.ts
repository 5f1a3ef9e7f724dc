import { byId } from './dom.js'
import { jsonTree } from './json-tree.js'
import { applyPatch, type PatchOp } from './patch.js'

/** The shared state as a live JSON tree; the paths the last patch touched are highlighted. */
export class StateView {
  private readonly el = byId('state-tree')
  private readonly source = byId('state-source')
  private value: unknown = null
  private known = false

  reset(sourceNote: string): void {
    this.value = null
    this.known = false
    this.source.textContent = sourceNote
    this.render([])
  }

  snapshot(value: unknown): void {
    this.value = value
    this.known = true
    this.render([''])
  }

  patch(ops: readonly PatchOp[]): void {
    try {
      const r = applyPatch(this.value, ops)
      this.value = r.doc
      this.known = true
      this.render(r.changed)
    } catch (err) {
      this.source.textContent = `patch failed: ${(err as Error).message}`
    }
  }

  private render(changed: string[]): void {
    if (!this.known) {
      this.el.replaceChildren('No state yet (try “state”).')
      this.el.dataset.state = 'none'
      return
    }
    this.el.replaceChildren(jsonTree(this.value, changed))
    this.el.dataset.state = JSON.stringify(this.value)
  }
}
