import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feeOf, parsePercent } from '../../server/domain/fees';
import { balancePostings } from '../../server/domain/balance';

describe('fees', () => {
  it.each([
    // amount, percent × 100, fixed, fee
    [1250n, 290n, 25n, 61n], // 36.25 → 36
    [125n, 290n, 25n, 29n], // 3.625 → 4
    [50n, 100n, 0n, 1n], // 0.5 → 1: half up
    [49n, 100n, 0n, 0n], // 0.49 → 0
    [150n, 100n, 0n, 2n], // 1.5 → 2
    [0n, 290n, 25n, 25n],
    [1000n, 0n, 0n, 0n],
    [1000n, 10_000n, 0n, 1000n], // 100 %
  ])('%s at %s‱ + %s is %s', (amount, percentE2, fixed, fee) => {
    expect(feeOf(amount, { percentE2, fixed })).toBe(fee);
  });

  it('is the exact percentage rounded half up, plus the fixed part', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10_000n }), fc.bigInt({ min: 0n, max: 10n ** 6n }), (amount, percentE2, fixed) => {
        const fee = feeOf(amount, { percentE2, fixed });
        // |fee − fixed − amount × p / 10000| ≤ 1/2, and a tie goes up.
        const twice = 2n * (fee - fixed) * 10_000n - 2n * amount * percentE2;
        expect(twice > -10_000n && twice <= 10_000n).toBe(true);
      }),
    );
  });

  it('never makes a movement lose a cent: card money = merchant + fees', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 6n }), fc.boolean(), (card, fee, refund) => {
        const postings = balancePostings({ type: refund ? 'refund' : 'charge', sale: 's', card, fee });
        // A property's return value is its verdict: the matcher's own return value (not a boolean) must not be it.
        if (card === 0n && fee === 0n) {
          expect(postings).toBeNull();
          return;
        }
        expect(postings!.reduce((a, p) => a + p.amount, 0n)).toBe(0n);
        const of = (name: string) => postings!.find((p) => 'system' in p.account && p.account.system === name)?.amount ?? 0n;
        expect(of('fees')).toBe(fee);
        expect(of('merchant')).toBe((refund ? -card : card) - fee);
      }),
    );
  });

  it('reads percentages with at most two decimals, 0 to 100', () => {
    expect(parsePercent('2.9')).toBe(290n);
    expect(parsePercent('0')).toBe(0n);
    expect(parsePercent('100')).toBe(10_000n);
    expect(parsePercent('1.25')).toBe(125n);
    for (const bad of ['100.01', '1.255', '-1', '', '1e2', ' 2', '2.']) expect(parsePercent(bad), bad).toBeNull();
  });
});
