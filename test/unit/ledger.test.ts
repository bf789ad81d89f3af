import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertBalanced,
  balanced,
  LedgerError,
  payoutPostings,
  type Posting,
  refundPostings,
  repayment,
  salePostings,
  shortfall,
  sourcedPostings,
  takenBack,
  transferPostings,
  unbalancedCurrencies,
} from '../../server/domain/ledger';

const sum = (ps: Posting[]) => ps.reduce((a, p) => a + p.amount, 0n);
const of = (ps: Posting[], account: string) =>
  ps.filter((p) => ('wallet' in p.account ? p.account.wallet : p.account.system) === account).reduce((a, p) => a + p.amount, 0n);

describe('balanced', () => {
  it('refuses postings that do not add up to zero, and empty movements', () => {
    expect(() => balanced([{ account: { wallet: 'a' }, amount: 5n, counterpart: {} }])).toThrow(LedgerError);
    expect(() => balanced([{ account: { wallet: 'a' }, amount: 0n, counterpart: {} }])).toThrow(LedgerError);
  });

  it('drops zero postings and orders wallets by id before the outside-world accounts', () => {
    const out = balanced([
      { account: { system: 'merchant' }, amount: -3n, counterpart: {} },
      { account: { wallet: 'b' }, amount: 2n, counterpart: {} },
      { account: { wallet: 'c' }, amount: 0n, counterpart: {} },
      { account: { wallet: 'a' }, amount: 1n, counterpart: {} },
    ]);
    expect(out.map((p) => p.account)).toEqual([{ wallet: 'a' }, { wallet: 'b' }, { system: 'merchant' }]);
  });
});

describe('a movement balances in each currency', () => {
  it('accepts debits equal to credits per currency, and names each currency that is off', () => {
    const eur = (amount: bigint) => ({ currency: 'EUR', amount });
    const usd = (amount: bigint) => ({ currency: 'USD', amount });
    expect(unbalancedCurrencies([eur(-5n), eur(3n), eur(2n), usd(7n), usd(-7n)])).toEqual([]);
    expect(() => assertBalanced([eur(-5n), eur(5n)])).not.toThrow();
    // Balanced overall, not per currency: 5 EUR out, 5 USD in is not a movement.
    expect(unbalancedCurrencies([eur(-5n), usd(5n)])).toEqual(['EUR', 'USD']);
    expect(unbalancedCurrencies([eur(-5n), eur(4n), usd(1n), usd(-1n)])).toEqual(['EUR']);
    expect(() => assertBalanced([eur(-5n), eur(4n)])).toThrow(/differ in EUR/);
  });

  it('holds for any postings that add up to zero, and fails as soon as one unit is off', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), { minLength: 1 }), fc.bigInt({ min: 1n, max: 10n ** 15n }), (amounts, off) => {
        const total = amounts.reduce((a, b) => a + b, 0n);
        const entries = [...amounts, -total].map((amount) => ({ currency: 'EUR', amount }));
        expect(unbalancedCurrencies(entries)).toEqual([]);
        expect(unbalancedCurrencies([...entries, { currency: 'EUR', amount: off }])).toEqual(['EUR']);
      }),
    );
  });
});

describe('receivables', () => {
  it('a wallet gives what it holds of what it owes, never going below zero; the platform covers the rest', () => {
    expect(shortfall(133n, 50n)).toEqual({ fromWallet: 50n, covered: 83n });
    expect(shortfall(133n, 0n)).toEqual({ fromWallet: 0n, covered: 133n });
    expect(shortfall(133n, 500n)).toEqual({ fromWallet: 133n, covered: 0n });
    expect(() => shortfall(0n, 10n)).toThrow(LedgerError);
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 12n }), (owed, balance) => {
        const { fromWallet, covered } = shortfall(owed, balance);
        expect(fromWallet + covered).toBe(owed);
        expect(fromWallet >= 0n && fromWallet <= balance && covered >= 0n).toBe(true);
      }),
    );
  });

  it('a credit pays the receivable back first, up to the credit', () => {
    expect(repayment(250n, 83n)).toBe(83n);
    expect(repayment(50n, 83n)).toBe(50n);
    expect(repayment(50n, 0n)).toBe(0n);
    expect(repayment(-50n, 83n)).toBe(0n);
  });
});

describe('movements', () => {
  it('a transfer moves the amount from one wallet to the other, naming each as the counterpart', () => {
    expect(transferPostings('a', 'b', 250n)).toEqual([
      { account: { wallet: 'a' }, amount: -250n, counterpart: { with_wallet: 'b' } },
      { account: { wallet: 'b' }, amount: 250n, counterpart: { with_wallet: 'a' } },
    ]);
    expect(() => transferPostings('a', 'a', 1n)).toThrow(LedgerError);
    expect(() => transferPostings('a', 'b', 0n)).toThrow(LedgerError);
    expect(() => transferPostings('a', 'b', -1n)).toThrow(LedgerError);
  });

  it('a payout and its reversal cancel out', () => {
    const out = payoutPostings('w', 900n, 'iban:1');
    const back = payoutPostings('w', 900n, 'iban:1', true);
    expect(of(out, 'w')).toBe(-900n);
    expect(of(out, 'payouts')).toBe(900n);
    expect(of([...out, ...back], 'w')).toBe(0n);
    expect(of([...out, ...back], 'payouts')).toBe(0n);
  });

  it('a sale pays its destinations and leaves the rest to the merchant', () => {
    const ps = salePostings('s', 1000n, [
      { wallet: 'a', amount: 300n },
      { wallet: 'b', amount: 200n },
    ]);
    expect(sum(ps)).toBe(0n);
    expect(of(ps, 'card_payments')).toBe(-1000n);
    expect([of(ps, 'a'), of(ps, 'b'), of(ps, 'merchant')]).toEqual([300n, 200n, 500n]);
    expect(ps.every((p) => p.counterpart.with_sale === 's')).toBe(true);
    expect(() => salePostings('s', 100n, [{ wallet: 'a', amount: 101n }])).toThrow(LedgerError);
    // All of it to destinations: the merchant keeps nothing and gets no posting.
    expect(of(salePostings('s', 100n, [{ wallet: 'a', amount: 100n }]), 'merchant')).toBe(0n);
  });

  it('a transaction paid from sources: wallets and cards pay, destinations and the merchant receive', () => {
    const ps = sourcedPostings('transaction:t', [{ wallet: 'a', amount: 300n }], 700n, [{ wallet: 'd', amount: 250n }]);
    expect(sum(ps)).toBe(0n);
    expect([of(ps, 'a'), of(ps, 'card_payments'), of(ps, 'd'), of(ps, 'merchant')]).toEqual([-300n, -700n, 250n, 750n]);
    expect(ps.every((p) => p.counterpart.with_external === 'transaction:t')).toBe(true);
    // Wallets only: no card posting at all.
    expect(sourcedPostings('x', [{ wallet: 'a', amount: 5n }], 0n, []).map((p) => p.account)).toEqual([{ wallet: 'a' }, { system: 'merchant' }]);
    expect(() => sourcedPostings('x', [{ wallet: 'a', amount: 5n }], 0n, [{ wallet: 'd', amount: 6n }])).toThrow(LedgerError);
  });

  it('a refund takes each destination back by floor(share × refunded / total), the merchant gives the rest', () => {
    const shares = [
      { wallet: 'a', amount: 333n },
      { wallet: 'b', amount: 333n },
    ];
    // 1000 sale: a and b each 333, merchant 334. A refund of 100 takes 33 from each.
    const first = refundPostings('s', 1000n, shares, 0n, 100n);
    expect([of(first, 'a'), of(first, 'b'), of(first, 'merchant'), of(first, 'card_payments')]).toEqual([-33n, -33n, -34n, 100n]);
    // The running total decides: after 200 in all, each has given back floor(66.6) = 66.
    const second = refundPostings('s', 1000n, shares, 100n, 100n);
    expect([of(second, 'a'), of(second, 'b'), of(second, 'merchant')]).toEqual([-33n, -33n, -34n]);
    const third = refundPostings('s', 1000n, shares, 200n, 1n);
    expect([of(third, 'a'), of(third, 'b'), of(third, 'merchant')]).toEqual([-0n, -0n, -1n]);
    expect(() => refundPostings('s', 1000n, shares, 900n, 101n)).toThrow(LedgerError);
  });
});

// Property: any sequence of partial refunds of a sale with any destinations.
const saleWithRefunds = fc
  .record({
    total: fc.bigInt({ min: 1n, max: 10n ** 12n }),
    weights: fc.array(fc.bigInt({ min: 0n, max: 1000n }), { minLength: 0, maxLength: 5 }),
    merchantWeight: fc.bigInt({ min: 0n, max: 1000n }),
    cuts: fc.array(fc.bigInt({ min: 1n, max: 10n ** 12n }), { minLength: 1, maxLength: 8 }),
  })
  .map(({ total, weights, merchantWeight, cuts }) => {
    const all = weights.reduce((a, w) => a + w, merchantWeight) || 1n;
    const shares = weights.map((w, i) => ({ wallet: `w${i}`, amount: (total * w) / all }));
    // Refund amounts: each cut is a share of what is left, the last one takes all of it.
    const refunds: bigint[] = [];
    let left = total;
    for (const c of cuts) {
      if (left === 0n) break;
      const r = (c % left) + 1n;
      refunds.push(r);
      left -= r;
    }
    if (left > 0n) refunds.push(left);
    return { total, shares, refunds };
  });

describe('refund split (property)', () => {
  it('balances every refund, never takes more than the proportion, and a full refund takes back each share exactly', () => {
    fc.assert(
      fc.property(saleWithRefunds, ({ total, shares, refunds }) => {
        const sale = salePostings('s', total, shares);
        const all = [...sale];
        let before = 0n;
        for (const r of refunds) {
          const ps = refundPostings('s', total, shares, before, r);
          expect(sum(ps)).toBe(0n);
          expect(of(ps, 'card_payments')).toBe(r);
          before += r;
          all.push(...ps);
          for (const s of shares) {
            const given = -of(ps, s.wallet);
            // Never gives money to a destination; never more than its exact proportion so far.
            expect(given >= 0n).toBe(true);
            const backSoFar = s.amount - of(all, s.wallet);
            expect(backSoFar * total <= s.amount * before).toBe(true);
          }
        }
        expect(before).toBe(total);
        for (const s of shares) expect(of(all, s.wallet)).toBe(0n);
        expect(of(all, 'merchant')).toBe(0n);
        expect(of(all, 'card_payments')).toBe(0n);
        expect(takenBack(total, shares, total)).toEqual(shares);
      }),
      { numRuns: 300 },
    );
  });
});
