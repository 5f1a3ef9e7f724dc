import { brief, byId, h, pretty } from './dom.js'
import type { ToolCallView } from './dialects/index.js'

/** Suggested answer for the demo's client tool: facts about this browser. */
function defaultToolResult(): string {
  return JSON.stringify(
    { client: 'parlance-inspector', userAgent: navigator.userAgent, language: navigator.language, screen: `${screen.width}x${screen.height}` },
    null,
    2,
  )
}

/**
 * The conversation as the chat panel shows it: user and assistant messages (assistant text grows as chunks
 * arrive), tool calls with arguments and results, client-tool forms, status lines, errors, plan and progress.
 */
export class ChatView {
  private readonly list = byId<HTMLOListElement>('transcript')
  private readonly texts = new Map<string, HTMLLIElement>()
  private readonly tools = new Map<string, HTMLLIElement>()
  private readonly progressLine = byId('progress-line')
  private readonly progress = byId<HTMLProgressElement>('progress')
  private readonly progressLabel = byId('progress-label')
  private readonly plan = byId<HTMLOListElement>('plan')
  private lastStatus: HTMLLIElement | null = null

  /** Called when the user answers a client tool's form. */
  onToolAnswer: (id: string, outcome: { result: unknown } | { error: string }) => void = () => {}

  clear(): void {
    this.list.replaceChildren()
    this.texts.clear()
    this.tools.clear()
    this.plan.replaceChildren()
    this.progressLine.hidden = true
    this.progress.value = 0
    this.lastStatus = null
  }

  user(text: string): void {
    this.add(h('li', { class: 'msg user', 'data-role': 'user' }, text))
  }

  textDelta(id: string, delta: string): void {
    let li = this.texts.get(id)
    if (!li) {
      li = h('li', { class: 'msg assistant streaming', 'data-role': 'assistant', 'data-message-id': id, 'aria-busy': 'true' })
      this.texts.set(id, li)
      this.add(li)
    }
    li.append(delta)
    this.scroll()
  }

  textEnd(id: string): void {
    const li = this.texts.get(id)
    if (!li) return
    li.classList.remove('streaming')
    li.setAttribute('aria-busy', 'false')
    li.dataset.done = 'true'
  }

  toolCall(call: ToolCallView): void {
    const li = this.toolCard(call, 'server')
    li.append(h('pre', { class: 'tool-result', 'data-pending': 'true' }, 'running…'))
  }

  toolResult(id: string, outcome: { result: unknown } | { error: string }): void {
    const li = this.tools.get(id)
    if (!li) return
    li.querySelector('form')?.remove()
    const pre = li.querySelector('pre.tool-result') ?? li.appendChild(h('pre', { class: 'tool-result' }))
    pre.removeAttribute('data-pending')
    pre.textContent = 'result' in outcome ? `→ ${pretty(outcome.result)}` : `✗ ${outcome.error}`
    li.dataset.state = 'result' in outcome ? 'done' : 'failed'
  }

  clientTool(call: ToolCallView): void {
    const li = this.toolCard(call, 'client')
    const fieldId = `tool-answer-${call.id}`
    const area = h('textarea', { id: fieldId, name: 'result', spellcheck: 'false' })
    area.value = defaultToolResult()
    const err = h('p', { class: 'notes', role: 'alert' })
    const form = h(
      'form',
      { 'aria-label': `Answer client tool ${call.name}` },
      h('label', { for: fieldId }, `Result of ${call.name} (JSON)`),
      area,
      err,
      h(
        'div',
        { class: 'buttons' },
        h('button', { type: 'submit', value: 'result' }, 'Send result'),
        h(
          'button',
          { type: 'button', value: 'error', onclick: () => this.answer(call.id, { error: 'the user declined to run the tool' }, form) },
          'Send error',
        ),
      ),
    )
    form.addEventListener('submit', (ev) => {
      ev.preventDefault()
      let result: unknown
      try {
        result = JSON.parse(area.value)
      } catch (e) {
        err.textContent = `Not valid JSON: ${(e as Error).message}`
        area.focus()
        return
      }
      this.answer(call.id, { result }, form)
    })
    li.append(form)
    area.focus({ preventScroll: true })
  }

  approvalNote(text: string): void {
    this.add(h('li', { class: 'msg status' }, text))
  }

  status(text: string): void {
    // Consecutive statuses replace each other: the line shows the latest one.
    if (this.lastStatus && this.list.lastElementChild === this.lastStatus) this.lastStatus.textContent = text
    else {
      this.lastStatus = h('li', { class: 'msg status', 'data-role': 'status' }, text)
      this.add(this.lastStatus)
    }
  }

  error(text: string): void {
    this.add(h('li', { class: 'msg error', role: 'alert', 'data-role': 'error' }, text))
  }

  setPlan(tasks: string[]): void {
    this.progressLine.hidden = false
    this.plan.replaceChildren(...tasks.map((t) => h('li', {}, t)))
    this.progress.value = 0
    this.progressLabel.textContent = 'Progress 0%'
  }

  setProgress(percent: number, message?: string): void {
    this.progressLine.hidden = false
    this.progress.value = Math.max(0, Math.min(100, percent))
    this.progress.setAttribute('aria-valuetext', `${Math.round(percent)}%${message ? `: ${message}` : ''}`)
    this.progressLabel.textContent = `Progress ${Math.round(percent)}%${message ? ` — ${message}` : ''}`
    const items = [...this.plan.children]
    const done = Math.round((percent / 100) * items.length)
    items.forEach((li, i) => li.classList.toggle('done', i < done))
  }

  private answer(id: string, outcome: { result: unknown } | { error: string }, form: HTMLFormElement): void {
    for (const b of form.querySelectorAll('button')) b.disabled = true
    this.onToolAnswer(id, outcome)
    const li = this.tools.get(id)
    if (li && li.dataset.state !== 'done') {
      form.replaceWith(
        h('pre', { class: 'tool-result', 'data-pending': 'true' }, `sent: ${brief('result' in outcome ? outcome.result : outcome.error)}`),
      )
      li.dataset.state = 'answered'
    }
  }

  private toolCard(call: ToolCallView, target: 'server' | 'client'): HTMLLIElement {
    const li = h(
      'li',
      { class: `tool ${target}`, 'data-role': 'tool', 'data-tool': call.name, 'data-target': target, 'data-state': 'called' },
      h('div', { class: 'tool-head' }, target === 'client' ? `Client tool requested: ${call.name}` : `Tool call: ${call.name}`),
      h('pre', { class: 'tool-args', 'aria-label': 'Arguments' }, pretty(call.args)),
    )
    this.tools.set(call.id, li)
    this.add(li)
    return li
  }

  private add(li: HTMLLIElement): void {
    this.list.append(li)
    this.scroll()
  }

  private scroll(): void {
    this.list.scrollTop = this.list.scrollHeight
  }
}
