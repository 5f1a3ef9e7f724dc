import { byId, pretty } from './dom.js'
import type { ApprovalView } from './dialects/index.js'

const RISKS = new Set(['low', 'medium', 'high', 'critical'])

/**
 * The approval dialog: a modal `<dialog>` (focus moves into it, on Reject — the safe choice), the risk level
 * as a coloured badge with its name, the tool, the agent's reasoning and the arguments. Approve / Reject by
 * click or keyboard (Tab + Space/Enter); Escape rejects. Requests queue while one is open.
 */
export class ApprovalDialog {
  private readonly dialog = byId<HTMLDialogElement>('approval')
  private readonly queue: ApprovalView[] = []
  private current: ApprovalView | null = null
  /** Set while the dialog closes because its request ended elsewhere (no answer is sent then). */
  private withdrawn = false

  /** Called with the user's decision. */
  onAnswer: (id: string, approved: boolean, feedback?: string) => void = () => {}

  constructor() {
    this.dialog.addEventListener('cancel', (ev) => {
      // Escape: reject explicitly (a dismissed approval would otherwise wait for its timeout).
      ev.preventDefault()
      this.dialog.close('reject')
    })
    this.dialog.addEventListener('close', () => {
      const a = this.current
      this.current = null
      if (a && !this.withdrawn) {
        const feedback = byId<HTMLInputElement>('approval-feedback').value.trim()
        this.onAnswer(a.id, this.dialog.returnValue === 'approve', feedback || undefined)
      }
      this.withdrawn = false
      this.showNext()
    })
  }

  request(a: ApprovalView): void {
    if (this.current?.id === a.id || this.queue.some((q) => q.id === a.id)) return
    this.queue.push(a)
    if (!this.current) this.showNext()
  }

  /** The request ended without this page's answer (timed out, withdrawn): close or drop it. */
  closed(id: string): void {
    const i = this.queue.findIndex((q) => q.id === id)
    if (i >= 0) this.queue.splice(i, 1)
    if (this.current?.id === id) {
      this.withdrawn = true
      this.dialog.close('withdrawn')
    }
  }

  /** Drops everything (a new conversation). */
  reset(): void {
    this.queue.length = 0
    if (this.current) this.closed(this.current.id)
  }

  private showNext(): void {
    const a = this.queue.shift()
    if (!a) return
    this.current = a
    const risk = RISKS.has(a.risk) ? a.risk : 'medium'
    const badge = byId('approval-risk')
    badge.className = `risk risk-${risk}`
    badge.textContent = `${risk} risk`
    this.dialog.className = `approval risk-border-${risk}`
    this.dialog.dataset.approvalId = a.id
    byId('approval-title').textContent = `Approve ${a.tool || 'this action'}?`
    byId('approval-tool').textContent = a.tool
    byId('approval-reasoning').textContent = a.reasoning || '(no reasoning given)'
    byId('approval-args').textContent = pretty(a.args)
    byId<HTMLInputElement>('approval-feedback').value = ''
    this.dialog.returnValue = ''
    this.dialog.showModal()
    byId<HTMLButtonElement>('approval-reject').focus()
  }
}
