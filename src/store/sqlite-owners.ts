/**
 * Sessions per owner, for the per-principal session limit, kept for the owners the limit has asked about:
 * counted once, then kept as this process — the data directory's only writer — creates sessions. Counting at
 * every new session walked the owner's index entries, one per session it owns (36 µs per new session at 2,000
 * sessions of one owner, measured: creating N sessions cost O(N²)).
 */
export class OwnerCounts {
  private readonly counts = new Map<string, number>()

  constructor(
    /** Counts the owner's rows (the query). */
    private readonly countRows: (owner: string) => number,
    /** Does a session row with this id exist? */
    private readonly exists: (id: string) => boolean,
    /** Owners remembered; past it the memory starts over (and owners are counted again). */
    private readonly max: number,
  ) {}

  /** The number of sessions `owner` owns. */
  get(owner: string): number {
    let n = this.counts.get(owner)
    if (n === undefined) {
      if (this.counts.size >= this.max) this.counts.clear()
      this.counts.set(owner, (n = this.countRows(owner)))
    }
    return n
  }

  /**
   * Inside the transaction, before the row of a record this process has not written yet is upserted: when that
   * creates a session of a counted owner, pushes the owner onto `owners`, for `created` once the transaction
   * has committed.
   */
  creates(id: string, owner: string, owners: string[]): void {
    if (this.counts.has(owner) && !this.exists(id)) owners.push(owner)
  }

  /** Counts the sessions whose rows a committed transaction created (their owners, from `creates`). */
  created(owners: readonly string[]): void {
    for (const o of owners) {
      const n = this.counts.get(o)
      if (n !== undefined) this.counts.set(o, n + 1)
    }
  }
}
