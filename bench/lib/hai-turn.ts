import { asBuffers } from '../../src/binding/index.js'
import type { StoredEvent } from '../../src/core/index.js'
import { hai } from '../../src/dialects/hai/codec.js'
import type { Session, Subscriber } from '../../src/session/index.js'

const wire = asBuffers(hai)

/** What a HAI listener saw of a session's turns: text deltas and bytes written. */
export interface HaiTally {
  tokens: number
  bytes: number
}

/**
 * Subscribes a HAI listener to `session` (its frames encoded as a HAI socket's would be, then dropped) that counts
 * text deltas and bytes into `tally`, and resolves when the session's run ends (finished or failed).
 */
export function haiRunEnded(session: Session, codecKey: string, tally: HaiTally): Promise<void> {
  return new Promise<void>((end) => {
    const subscriber: Subscriber<Buffer | StoredEvent, unknown> = {
      codecKey,
      view: hai.view(session.id, session.agentName),
      encoder: {
        encode(events, view) {
          for (const e of events) {
            if (e.type === 'text.delta') tally.tokens++
            else if (e.type === 'run.finished' || e.type === 'run.error') setImmediate(end)
          }
          return wire.encode(events, view as Parameters<typeof wire.encode>[1])
        },
      },
      write(frames) {
        for (const f of frames) tally.bytes += (f as Buffer).length
        return true
      },
    }
    session.subscribe(subscriber)
  })
}
