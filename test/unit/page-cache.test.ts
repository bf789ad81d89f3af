import { describe, expect, it } from 'vitest';
import { type CacheEntry, PageCache } from '../../server/checkout/page-cache';

// The payment page's memory: an entry is served only for its version and before its
// `until`; the budget is in `size` units, least recently used out first.

const T = 1_000_000;
const entry = (value: string, over: Partial<CacheEntry<string>> = {}): CacheEntry<string> => ({
  value,
  version: 'v1',
  until: T + 1000,
  size: 10,
  stamp: null,
  ...over,
});

/** Which of `keys` the cache still holds (a get at T with version v1 refreshes them in this order). */
const held = (cache: PageCache<string>, keys: string[]) => keys.filter((key) => cache.get(key, 'v1', T) !== undefined);

describe('PageCache', () => {
  it('hands back the value for the same key and version, as often as asked', () => {
    const cache = new PageCache<string>(100);
    expect(cache.get('a', 'v1', T)).toBeUndefined();
    cache.set('a', entry('page a'));
    expect(cache.get('a', 'v1', T)).toBe('page a');
    expect(cache.get('a', 'v1', T + 999)).toBe('page a');
    expect(cache.get('b', 'v1', T)).toBeUndefined();
    expect(cache.size).toBe(10);
  });

  it('says whether a key holds a rendering at all, so a first view reads nothing to check it', () => {
    const cache = new PageCache<string>(100);
    expect(cache.has('a')).toBe(false);
    cache.set('a', entry('page a', { until: T + 500 }));
    expect(cache.has('a')).toBe(true);
    // A stale entry found stale is gone: the next view goes straight to its read.
    expect(cache.get('a', 'v1', T + 500)).toBeUndefined();
    expect(cache.has('a')).toBe(false);
  });

  it('drops an entry asked for with another version: the old version is not served afterwards either', () => {
    const cache = new PageCache<string>(100);
    cache.set('a', entry('page a'));
    cache.set('b', entry('page b', { size: 7 }));
    expect(cache.get('a', 'v2', T)).toBeUndefined();
    expect(cache.size).toBe(7);
    expect(cache.get('a', 'v1', T)).toBeUndefined();
    expect(cache.get('b', 'v1', T)).toBe('page b');
  });

  it('is stale from `until` on: one millisecond before is served, `until` itself is not, and the entry is gone', () => {
    const cache = new PageCache<string>(100);
    cache.set('a', entry('page a', { until: T + 500 }));
    expect(cache.get('a', 'v1', T + 499)).toBe('page a');
    expect(cache.get('a', 'v1', T + 500)).toBeUndefined();
    expect(cache.size).toBe(0);
    // Going back in time does not bring it back.
    expect(cache.get('a', 'v1', T)).toBeUndefined();

    cache.set('b', entry('page b', { until: T + 500 }));
    expect(cache.get('b', 'v1', T + 10_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently set first when over budget', () => {
    const cache = new PageCache<string>(30);
    cache.set('a', entry('A'));
    cache.set('b', entry('B'));
    cache.set('c', entry('C'));
    expect(cache.size).toBe(30);
    cache.set('d', entry('D'));
    expect(cache.size).toBe(30);
    expect(held(cache, ['a', 'b', 'c', 'd'])).toEqual(['b', 'c', 'd']);
  });

  it('counts a get as a use: the entry read last is kept, the one not read goes', () => {
    const cache = new PageCache<string>(30);
    cache.set('a', entry('A'));
    cache.set('b', entry('B'));
    cache.set('c', entry('C'));
    expect(cache.get('a', 'v1', T)).toBe('A');
    cache.set('d', entry('D'));
    // b was the least recently used once a was read.
    expect(cache.get('b', 'v1', T)).toBeUndefined();
    expect(cache.get('a', 'v1', T)).toBe('A');
    expect(cache.get('c', 'v1', T)).toBe('C');
    expect(cache.get('d', 'v1', T)).toBe('D');
  });

  it('counts a failed get as no use: a missed lookup of another key changes nothing', () => {
    const cache = new PageCache<string>(20);
    cache.set('a', entry('A'));
    cache.set('b', entry('B'));
    expect(cache.get('zzz', 'v1', T)).toBeUndefined();
    cache.set('c', entry('C'));
    expect(held(cache, ['a', 'b', 'c'])).toEqual(['b', 'c']);
  });

  it('evicts as many old entries as a big new one needs', () => {
    const cache = new PageCache<string>(40);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, entry(key.toUpperCase()));
    cache.set('big', entry('BIG', { size: 25 }));
    expect(cache.size).toBe(35);
    expect(held(cache, ['a', 'b', 'c', 'd', 'big'])).toEqual(['d', 'big']);
  });

  it('does not store an entry larger than the whole budget, and keeps what it had', () => {
    const cache = new PageCache<string>(30);
    cache.set('a', entry('A'));
    cache.set('b', entry('B'));
    cache.set('huge', entry('HUGE', { size: 31 }));
    expect(cache.get('huge', 'v1', T)).toBeUndefined();
    expect(cache.size).toBe(20);
    expect(held(cache, ['a', 'b'])).toEqual(['a', 'b']);
    // Exactly the budget fits (and then takes all of it).
    cache.set('full', entry('FULL', { size: 30 }));
    expect(cache.get('full', 'v1', T)).toBe('FULL');
    expect(cache.size).toBe(30);
  });

  it('an oversize replacement removes the old entry of that key rather than keeping a stale one', () => {
    const cache = new PageCache<string>(30);
    cache.set('a', entry('old A'));
    cache.set('a', entry('new A', { size: 31, version: 'v2' }));
    expect(cache.get('a', 'v1', T)).toBeUndefined();
    expect(cache.get('a', 'v2', T)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('replacing a key counts only the new size, and the new value and version are served', () => {
    const cache = new PageCache<string>(100);
    cache.set('a', entry('A1', { size: 10 }));
    cache.set('b', entry('B', { size: 5 }));
    cache.set('a', entry('A2', { size: 40, version: 'v2' }));
    expect(cache.size).toBe(45);
    expect(cache.get('a', 'v1', T)).toBeUndefined();
    expect(cache.size).toBe(5);
    cache.set('a', entry('A3', { size: 3, version: 'v3' }));
    cache.set('a', entry('A4', { size: 4, version: 'v3' }));
    expect(cache.size).toBe(9);
    expect(cache.get('a', 'v3', T)).toBe('A4');
    expect(cache.size).toBe(9);
  });

  it('replacing a key makes it the most recently used', () => {
    const cache = new PageCache<string>(30);
    cache.set('a', entry('A'));
    cache.set('b', entry('B'));
    cache.set('c', entry('C'));
    cache.set('a', entry('A again'));
    cache.set('d', entry('D'));
    expect(cache.get('a', 'v1', T)).toBe('A again');
    expect(held(cache, ['b', 'c', 'd'])).toEqual(['c', 'd']);
  });

  it('keeps its size equal to the sum of what it holds through a long mixed run', () => {
    const cache = new PageCache<string>(500);
    const model = new Map<string, CacheEntry<string>>();
    // A deterministic walk: sets, replacements, hits, version misses and expiries.
    let seed = 7;
    // The high bits of a linear congruential generator (its low bits repeat quickly).
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) >>> 16;
    for (let i = 0; i < 2000; i++) {
      const key = `k${next() % 40}`;
      const op = next() % 4;
      if (op < 2) {
        const e = entry(`${key}@${i}`, { size: 1 + (next() % 60), version: `v${next() % 2}`, until: T + (next() % 3) * 100 });
        cache.set(key, e);
        model.set(key, e);
      } else {
        const version = `v${next() % 2}`;
        const now = T + (next() % 3) * 100;
        const got = cache.get(key, version, now);
        const expected = model.get(key);
        if (got !== undefined) {
          // Whatever is served is the last value set for that key, under its conditions.
          expect(got).toBe(expected!.value);
          expect(expected!.version).toBe(version);
          expect(now).toBeLessThan(expected!.until);
        } else if (expected) {
          model.delete(key);
        }
      }
      expect(cache.size).toBeGreaterThanOrEqual(0);
      expect(cache.size).toBeLessThanOrEqual(500);
    }
    // Read back everything still held: the sizes of the live entries add up to `size`.
    let sum = 0;
    for (const [key, e] of model) {
      const got = cache.get(key, e.version, T - 1);
      if (got !== undefined) {
        expect(got).toBe(e.value);
        sum += e.size;
      }
    }
    expect(cache.size).toBe(sum);
  });
});

describe('PageCache change stamps', () => {
  it('serves without a version check only for the stamp of the last check, never for null', () => {
    const cache = new PageCache<string>(100);
    cache.set('a', entry('page a', { stamp: 's1' }));
    expect(cache.unchanged('a', 's1', T)).toBe('page a');
    expect(cache.unchanged('a', 's2', T)).toBeUndefined();
    expect(cache.unchanged('a', null, T)).toBeUndefined();
    cache.set('b', entry('page b'));
    expect(cache.unchanged('b', null, T)).toBeUndefined();
    // A miss on the stamp keeps the entry: the version check decides.
    expect(cache.get('a', 'v1', T)).toBe('page a');
  });

  it('a version check records its stamp; a failed one drops the entry', () => {
    const cache = new PageCache<string>(100);
    cache.set('a', entry('page a', { stamp: 's1' }));
    expect(cache.get('a', 'v1', T, 's2')).toBe('page a');
    expect(cache.unchanged('a', 's1', T)).toBeUndefined();
    expect(cache.unchanged('a', 's2', T)).toBe('page a');
    expect(cache.get('a', 'v2', T, 's3')).toBeUndefined();
    expect(cache.unchanged('a', 's2', T)).toBeUndefined();
  });

  it('a matching stamp does not outlive until', () => {
    const cache = new PageCache<string>(100);
    cache.set('a', entry('page a', { stamp: 's1', until: T + 10 }));
    expect(cache.unchanged('a', 's1', T + 9)).toBe('page a');
    expect(cache.unchanged('a', 's1', T + 10)).toBeUndefined();
  });

  it('a hit by stamp makes the entry the most recently used', () => {
    const cache = new PageCache<string>(30);
    cache.set('a', entry('A', { stamp: 's' }));
    cache.set('b', entry('B', { stamp: 's' }));
    cache.set('c', entry('C', { stamp: 's' }));
    expect(cache.unchanged('a', 's', T)).toBe('A');
    cache.set('d', entry('D', { stamp: 's' }));
    expect(cache.unchanged('b', 's', T)).toBeUndefined();
    expect(cache.unchanged('a', 's', T)).toBe('A');
  });
});
