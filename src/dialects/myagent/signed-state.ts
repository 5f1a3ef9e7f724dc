import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { ParlanceError, type HistoryMessage, type Json } from '../../core/index.js'

/** What a signed export carries (MyAgent `user.request_state`). */
export interface StateExport {
  v: 1
  session_id: string
  agent: string
  last_seq: number
  state: Json
  history: HistoryMessage[]
  /** sha256 (hex) of the JSON of `history`: the restored history is checked against it. */
  history_digest: string
  issued_at: string
  expires_at: string
}

const digest = (history: HistoryMessage[]) => createHash('sha256').update(JSON.stringify(history)).digest('hex')
const mac = (secret: Buffer, body: string) => createHmac('sha256', secret).update(body).digest()

/** Signs an export: `base64url(JSON).base64url(HMAC-SHA256)`, issued at `now` (ms, the caller's clock) and valid for `lifetimeMs`. */
export function signState(
  secret: Buffer,
  s: Omit<StateExport, 'v' | 'history_digest' | 'issued_at' | 'expires_at'>,
  lifetimeMs: number,
  now: number,
): string {
  const body: StateExport = {
    v: 1,
    ...s,
    history_digest: digest(s.history),
    issued_at: new Date(now).toISOString(),
    expires_at: new Date(now + lifetimeMs).toISOString(),
  }
  const encoded = Buffer.from(JSON.stringify(body)).toString('base64url')
  return `${encoded}.${mac(secret, encoded).toString('base64url')}`
}

/** Verifies and opens an export; throws `invalid_message` (field `content.signed_state`) when altered, foreign, malformed or expired at `now` (ms). */
export function verifyState(secret: Buffer, token: string, now: number): StateExport {
  const bad = (why: string) =>
    new ParlanceError('invalid_message', `signed_state rejected: ${why}; nothing was restored`, { field: 'content.signed_state', constraint: why })
  const dot = token.indexOf('.')
  if (dot <= 0 || dot !== token.lastIndexOf('.')) throw bad('malformed')
  const encoded = token.slice(0, dot)
  const given = Buffer.from(token.slice(dot + 1), 'base64url')
  const expected = mac(secret, encoded)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad('bad signature (altered, or signed by another server)')
  let s: StateExport
  try {
    s = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as StateExport
  } catch {
    throw bad('malformed')
  }
  if (s.v !== 1 || typeof s.session_id !== 'string' || !Array.isArray(s.history)) throw bad('malformed')
  if (!(Date.parse(s.expires_at) > now)) throw bad('expired')
  if (digest(s.history) !== s.history_digest) throw bad('history digest mismatch')
  return s
}
