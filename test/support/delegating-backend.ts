import type { Json, SessionId, StoredEvent } from '../../src/core/index.js'
import { createMemoryStore, type CommitUnit, type StoreBackend } from '../../src/store/index.js'

/** A promise with its resolve function, for tests that hold something open. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

/**
 * A real StoreBackend that passes every call to an inner backend (the memory
 * store by default). Tests extend it and override `commit` or `readEvents` to
 * hold, fail or record calls — a real implementation of the interface, not a
 * mock of the code under test.
 */
export class DelegatingBackend implements StoreBackend {
  readonly kind: string = 'delegating'
  constructor(readonly inner: StoreBackend = createMemoryStore()) {}
  commit(unit: CommitUnit): Promise<void> {
    return this.inner.commit(unit)
  }
  readEvents(id: SessionId, afterSeq: number, limit: number): Promise<StoredEvent[]> {
    return this.inner.readEvents(id, afterSeq, limit)
  }
  getSession(id: SessionId) {
    return this.inner.getSession(id)
  }
  listSessions(limit: number) {
    return this.inner.listSessions(limit)
  }
  getRecord(scope: string, key: string) {
    return this.inner.getRecord(scope, key)
  }
  putRecord(scope: string, key: string, value: Json | undefined) {
    return this.inner.putRecord(scope, key, value)
  }
  listRecords(scope: string, afterKey: string, limit: number) {
    return this.inner.listRecords(scope, afterKey, limit)
  }
  countSessions(owner: string) {
    return this.inner.countSessions(owner)
  }
  ping() {
    return this.inner.ping()
  }
  close() {
    return this.inner.close()
  }
}

/** A backend whose commits fail while `broken` is set (a full disk, a locked file); everything else works. */
export class FlakyBackend extends DelegatingBackend {
  override readonly kind: string = 'flaky'
  broken = false
  /** Every unit whose commit failed, in order (what a test waits on instead of a fixed time). */
  readonly failed: CommitUnit[] = []
  override commit(unit: CommitUnit): Promise<void> {
    if (!this.broken) return super.commit(unit)
    this.failed.push(unit)
    return Promise.reject(new Error('disk I/O error'))
  }
}
