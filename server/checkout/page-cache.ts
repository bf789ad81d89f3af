// Rendered payment pages, kept while nothing they show can have changed. A pending
// transaction's content never changes: only its status does, and the clock. So an entry
// is keyed by what selects the rendering (token, language, embedding origin), carries the
// version of the data it was rendered from (checked against a fresh read of the database,
// so a payment made by another process is seen at once), and expires when the clock would
// change the rendering. Where the database can tell cheaply that nothing at all was
// written since an entry was last checked (its change stamp, see Database.changeStamp),
// the read is skipped. The stamp must be taken before the read that checks the version:
// then a write between the two either shows in the read or leaves a newer stamp. Bounded
// by size, least recently used out first.

export interface CacheEntry<T> {
  value: T;
  /** Must equal the version asked for. */
  version: string;
  /** Epoch ms from which the entry is stale. */
  until: number;
  /** What the entry counts against the budget. */
  size: number;
  /** The database's change stamp when the version was last checked; null: none. */
  stamp: string | null;
}

export class PageCache<T> {
  readonly #entries = new Map<string, CacheEntry<T>>();
  #size = 0;

  constructor(readonly maxSize: number) {}

  get size(): number {
    return this.#size;
  }

  /** The value if nothing was written since its version was checked (and it is not stale). */
  unchanged(key: string, stamp: string | null, now: number): T | undefined {
    const entry = this.#entries.get(key);
    if (stamp === null || entry?.stamp !== stamp || now >= entry.until) return undefined;
    this.#touch(key, entry);
    return entry.value;
  }

  /** Whether a rendering is kept under `key` (whatever its version): without one, checking the version would read for nothing. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** The value if it was rendered from `version`; records `stamp` as the moment of the check. */
  get(key: string, version: string, now: number, stamp: string | null = null): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.version !== version || now >= entry.until) {
      this.#remove(key, entry);
      return undefined;
    }
    entry.stamp = stamp;
    this.#touch(key, entry);
    return entry.value;
  }

  /** Back in as the most recently used. */
  #touch(key: string, entry: CacheEntry<T>): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
  }

  set(key: string, entry: CacheEntry<T>): void {
    const old = this.#entries.get(key);
    if (old) this.#remove(key, old);
    if (entry.size > this.maxSize) return;
    this.#entries.set(key, entry);
    this.#size += entry.size;
    for (const [oldestKey, oldest] of this.#entries) {
      if (this.#size <= this.maxSize) break;
      this.#remove(oldestKey, oldest);
    }
  }

  #remove(key: string, entry: CacheEntry<T>): void {
    this.#entries.delete(key);
    this.#size -= entry.size;
  }
}
