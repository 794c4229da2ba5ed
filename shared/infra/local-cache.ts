/**
 * A bounded in-process cache: least recently used entries go first past `maxEntries`, and an entry
 * is never served once older than `maxAgeMs()` (asked on every read, so the bound can tighten at
 * once, e.g. while the invalidation channel is down). Values are shared between requests: store
 * frozen or otherwise immutable values.
 *
 * Invalidation wins over loads in flight: a load that started before a `delete`/`deleteWhere`/
 * `clear` answers its own callers but is not stored, so a change is never overwritten by the state
 * read just before it.
 */
export class LocalCache<V> {
  private readonly entries = new Map<string, { value: V; storedAt: number; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<V | null>>();
  /** Bumped by every invalidation; a load stores its value only if none happened meanwhile. */
  private generation = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: () => number,
    /**
     * Bounds each load: past it, its callers get the error this wraps it in, and the next miss
     * starts a new load instead of waiting on one that may never settle.
     */
    private readonly boundLoad?: <T>(load: Promise<T>, key: string) => Promise<T>,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = performance.now();
    if (now >= entry.expiresAt || now - entry.storedAt >= this.maxAgeMs()) {
      this.entries.delete(key);
      return undefined;
    }
    // Most recently used last: Map keeps insertion order, so eviction takes the first key.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value`; `expiresAt` (a `performance.now()` time) ends it sooner than the cache's max age. */
  set(key: string, value: V, expiresAt = Infinity): void {
    if (this.maxAgeMs() <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, storedAt: performance.now(), expiresAt });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /**
   * The cached value, or `load()`'s (stored unless null, or unless invalidated while loading).
   * Concurrent misses of one key share one load. `fresh` skips the cached value but still stores
   * the one it loads. `refreshAfterMs`: a value at least this old (and younger than the max age) is
   * served at once while one load replaces it in the background (stale-while-revalidate); a failed
   * background load changes nothing, the value serves on and the next read tries again.
   */
  async getOrLoad<R extends V | null>(
    key: string,
    load: () => Promise<R>,
    opts: { fresh?: boolean; refreshAfterMs?: number } = {},
  ): Promise<R> {
    if (opts.fresh) return this.load(key, load);
    const hit = this.get(key);
    if (hit !== undefined) {
      const storedAt = this.entries.get(key)!.storedAt;
      if (opts.refreshAfterMs !== undefined && performance.now() - storedAt >= opts.refreshAfterMs)
        this.shared(key, load).catch(() => undefined);
      return hit as R;
    }
    return this.shared(key, load);
  }

  /** The load of `key` in flight, or a new one that later callers share until it settles. */
  private async shared<R extends V | null>(key: string, load: () => Promise<R>): Promise<R> {
    const pending = this.loading.get(key);
    if (pending) return pending as Promise<R>;
    const work = this.load(key, load);
    this.loading.set(key, work);
    try {
      return await work;
    } finally {
      if (this.loading.get(key) === work) this.loading.delete(key);
    }
  }

  /** Runs `load`, storing its value unless null or invalidated meanwhile. */
  private load<R extends V | null>(key: string, load: () => Promise<R>): Promise<R> {
    const generation = this.generation;
    const loaded = this.boundLoad ? this.boundLoad(load(), key) : load();
    return loaded.then((value) => {
      if (value !== null && generation === this.generation) this.set(key, value);
      return value;
    });
  }

  delete(key: string): void {
    this.generation++;
    this.entries.delete(key);
    this.loading.delete(key);
  }

  /** Drops every entry whose value matches (e.g. every key of one agent). */
  deleteWhere(matches: (value: V) => boolean): void {
    this.generation++;
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
    this.loading.clear();
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }
}
