import { describe, expect, it } from 'vitest';
import { newToken, UUID_PATTERN, uuidv7 } from '../../server/domain/ids';
import { secureRandomBytes } from '../../server/domain/random';

describe('secureRandomBytes', () => {
  it('never hands out the same bytes twice, across pool refills', () => {
    const seen = new Set<string>();
    // 16 B × 1,000 = four refills of the 4 KiB pool.
    for (let i = 0; i < 1000; i++) seen.add(secureRandomBytes(16).toString('hex'));
    expect(seen.size).toBe(1000);
  });

  it('gives each caller its own copy, which later calls do not change', () => {
    const first = secureRandomBytes(32);
    const copy = Buffer.from(first);
    for (let i = 0; i < 300; i++) secureRandomBytes(32);
    expect(first.equals(copy)).toBe(true);
    expect(first.equals(Buffer.alloc(32))).toBe(false);
  });

  it('refuses more than the pool holds', () => {
    expect(() => secureRandomBytes(4097)).toThrow(RangeError);
  });
});

describe('ids', () => {
  it('uuidv7 is a version 7, variant 1 UUID carrying the time, and ids sort by time', () => {
    const a = uuidv7(Date.UTC(2026, 10, 22));
    const b = uuidv7(Date.UTC(2026, 10, 22) + 1);
    expect(a).toMatch(UUID_PATTERN);
    expect(a[14]).toBe('7');
    expect('89ab').toContain(a[19]);
    expect(parseInt(a.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.UTC(2026, 10, 22));
    expect(a < b).toBe(true);
  });

  it('uuidv7 ids of one millisecond follow each other in the order they were made', () => {
    const at = Date.UTC(2026, 11, 7, 18, 0, 0, 1);
    const ids = Array.from({ length: 2048 }, () => uuidv7(at));
    expect(ids.every((id, i) => i === 0 || ids[i - 1]! < id)).toBe(true);
    expect(ids.every((id) => UUID_PATTERN.test(id) && id[14] === '7' && parseInt(id.replace(/-/g, '').slice(0, 12), 16) === at)).toBe(true);
    // Another millisecond starts again at random: still after every id of the one before.
    expect(uuidv7(at + 1) > ids.at(-1)!).toBe(true);
  });

  it('tokens are 192 bits, URL-safe and distinct', () => {
    const tokens = new Set(Array.from({ length: 500 }, newToken));
    expect(tokens.size).toBe(500);
    for (const t of tokens) expect(Buffer.from(t, 'base64url')).toHaveLength(24);
    expect([...tokens].every((t) => /^[A-Za-z0-9_-]{32}$/.test(t))).toBe(true);
  });
});
