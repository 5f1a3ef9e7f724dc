/**
 * Observes a client's traffic: every frame it sends (`out`) and receives (`in`), as the dialect carries it
 * (parsed JSON, an SSE message's data, a Socket.IO channel with its payload). For wire views and logs; it must
 * not throw.
 */
export type WireTap = (direction: 'in' | 'out', frame: unknown) => void
