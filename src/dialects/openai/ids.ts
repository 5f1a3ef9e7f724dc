// The ids Parlance hands out on the OpenAI API carry what a later request needs to find its conversation again, so
// the mapping survives a restart and holds on every node with nothing stored beside the session: a response id
// names its session, run and the seq its stream starts after; a chat tool call id names its session. Opening the
// session still checks its owner, so an id names a conversation but grants nothing.

/** What a response id names. `noStore`: made with `store: false` (not retrievable, not continuable). */
export interface ResponseRef {
  readonly sessionId: string
  readonly runId: string
  /** The seq the response's events start after. */
  readonly after: number
  readonly noStore?: true
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url')
const unb64 = (s: string) => Buffer.from(s, 'base64url').toString('utf8')

export function responseId(ref: ResponseRef): string {
  return `resp_${b64(JSON.stringify([ref.sessionId, ref.runId, ref.after, ref.noStore ? 1 : 0]))}`
}

/** The reference a response id carries, or null when it is not one of ours. */
export function parseResponseId(id: string): ResponseRef | null {
  if (!id.startsWith('resp_') || id.length > 2048) return null
  try {
    const v: unknown = JSON.parse(unb64(id.slice(5)))
    if (!Array.isArray(v) || v.length !== 4) return null
    const [sessionId, runId, after, noStore] = v as unknown[]
    if (typeof sessionId !== 'string' || typeof runId !== 'string' || !Number.isSafeInteger(after) || (after as number) < 0) return null
    return { sessionId, runId, after: after as number, ...(noStore === 1 ? { noStore: true as const } : {}) }
  } catch {
    return null
  }
}

/** A chat tool call id: `call_<session>.<Parlance's id>`, so the `tool` message answering it finds the session. */
export const chatToolCallId = (sessionId: string, toolCallId: string) => `call_${b64(sessionId)}.${toolCallId}`

export function parseChatToolCallId(id: string): { sessionId: string; toolCallId: string } | null {
  const dot = id.indexOf('.')
  if (!id.startsWith('call_') || dot < 0) return null
  const sessionId = unb64(id.slice(5, dot))
  return sessionId ? { sessionId, toolCallId: id.slice(dot + 1) } : null
}
