// Rendered payment pages, kept while nothing they show can have changed. A pending
// transaction's content never changes: only its status does, and the clock. So an entry
// is keyed by what selects the rendering (token, language, embedding origin), carries the
// version of the data it was rendered from (checked on every request against a fresh
// read of the database, so a payment made by another process is seen at once), and
// expires when the clock would change the rendering. Bounded by size, least recently
// used out first.

export interface CacheEntry<T> {
  value: T;
  /** Must equal the version asked for. */
  version: string;
  /** Epoch ms from which the entry is stale. */
  until: number;
  /** What the entry counts against the budget. */
  size: number;
}

export class PageCache<T> {
  readonly #entries = new Map<string, CacheEntry<T>>();
  #size = 0;

  constructor(readonly maxSize: number) {}

  get size(): number {
    return this.#size;
  }

  get(key: string, version: string, now: number): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#remove(key, entry);
    if (entry.version !== version || now >= entry.until) return undefined;
    // Back in as the most recently used.
    this.#entries.set(key, entry);
    this.#size += entry.size;
    return entry.value;
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
