export type { CommitUnit, SessionRecord, SessionSummary, SessionWrite, StoreBackend } from './types.js'
export { createMemoryStore } from './memory.js'
export { EventStore } from './event-store.js'
export type { CommitListener, EventStoreOptions } from './event-store.js'
