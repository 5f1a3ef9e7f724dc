import type { Capabilities } from '../../src/binding/dialect.js'

export type { Capabilities }

/** What a dialect carries, in words, from the capabilities the server lists for it (`GET /inspector/api/info`). */
export function describeCapabilities(c: Capabilities): string {
  const parts = [
    c.transport,
    c.streaming ? 'streams text' : 'whole messages',
    c.approvals ? 'approvals' : 'no approvals',
    c.clientTools ? 'client tools' : 'no client tools',
    c.state ? 'shared state' : 'no shared state',
    c.cancel ? 'cancel' : 'no cancel',
    c.resume ? `resume: ${c.resume}` : 'no resume',
  ]
  return parts.join(' · ')
}
