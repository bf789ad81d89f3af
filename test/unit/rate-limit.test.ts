import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RatePolicy, SHARE_MS, type Share, shareOf, shareSize, spendShare, takeToken, unspentMs } from '../../server/domain/rate-limit';

// The GCRA bucket and the shares a process takes of it at once on PostgreSQL
// (store/rate-limits.ts): a share never lets a process admit more than it took, and
// every policy under 20 a second is taken one token at a time, so stays exact.

const api = (limit: number): RatePolicy => ({ name: 'api', limit, windowMs: 1000 });

describe('takeToken', () => {
  it('takes the burst at once, then refuses until a token has refilled', () => {
    const p = api(3);
    let tat: number | undefined;
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const d = takeToken(tat, 0, p);
      expect(d.allowed).toBe(true);
      remaining.push(d.remaining);
      tat = d.tat;
    }
    expect(remaining).toEqual([2, 1, 0]);
    const refused = takeToken(tat, 0, p);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, tat });
    expect(refused.retryAfterMs).toBeCloseTo(1000 / 3, 6);
    expect(takeToken(tat, 334, p).allowed).toBe(true);
  });
});

describe('shares', () => {
  it('are one token, so exact, under 20 a second, and a tenth of a second of refill above', () => {
    expect([1, 5, 10, 19].map((limit) => shareSize(api(limit)))).toEqual([1, 1, 1, 1]);
    expect(shareSize(api(20))).toBe(2);
    expect(shareSize(api(100))).toBe(10);
    // The card limit: 10 in 10 minutes; the address limit: 600 a minute.
    expect(shareSize({ name: 'card', limit: 10, windowMs: 600_000 })).toBe(1);
    expect(shareSize({ name: 'ip', limit: 600, windowMs: 60_000 })).toBe(1);
    expect(SHARE_MS).toBe(100);
  });

  it('a share of one token is none: the next request asks the bucket', () => {
    expect(shareOf(1, 10, 0, api(100))).toBeUndefined();
    expect(shareOf(0, 10, 0, api(100))).toBeUndefined();
  });

  it('spends what it holds while it is good, telling what the bucket and the share still hold', () => {
    const p = api(100);
    // The taking request spent one of the 10: the bucket's tat is 10 intervals ahead.
    let share: Share | undefined = shareOf(10, 100, 0, p);
    expect(share).toEqual({ held: 9, until: SHARE_MS, tat: 100, limit: 100, windowMs: 1000 });
    const remaining: number[] = [];
    for (let i = 0; i < 9; i++) {
      const spent = spendShare(share, 0, p)!;
      expect(spent.decision).toMatchObject({ allowed: true, retryAfterMs: 0, resetMs: 100 });
      remaining.push(spent.decision.remaining);
      share = spent.share;
    }
    expect(remaining).toEqual([98, 97, 96, 95, 94, 93, 92, 91, 90]);
    expect(spendShare(share, 0, p)).toBeUndefined();
  });

  it('is not spent after its time, nor under a changed policy', () => {
    const share = shareOf(10, 100, 0, api(100))!;
    expect(spendShare(share, SHARE_MS - 1, api(100))).toBeDefined();
    expect(spendShare(share, SHARE_MS, api(100))).toBeUndefined();
    expect(spendShare(share, 0, api(200))).toBeUndefined();
    expect(spendShare(share, 0, { ...api(100), windowMs: 2000 })).toBeUndefined();
  });

  it('gives back the bucket time of the tokens it did not spend, under the policy it was taken with', () => {
    expect(unspentMs(undefined)).toBe(0);
    let share = shareOf(10, 100, 0, api(100))!;
    expect(unspentMs(share)).toBe(90);
    share = spendShare(share, 1, api(100))!.share;
    expect(unspentMs(share)).toBe(80);
    expect(unspentMs(shareOf(4, 10, 0, api(40)))).toBe(75);
  });

  it('never admits more than the tokens taken: every spend uses one the share held', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 50 }), fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 80 }), (granted, gaps) => {
        const p = api(500);
        let share = shareOf(granted, 0, 0, p);
        let at = 0;
        let admitted = 1;
        for (const gap of gaps) {
          at += gap;
          const spent = spendShare(share, at, p);
          if (!spent) continue;
          expect(spent.decision.remaining).toBeLessThanOrEqual(p.limit);
          admitted += 1;
          share = spent.share;
        }
        expect(admitted).toBeLessThanOrEqual(granted);
      }),
    );
  });
});
