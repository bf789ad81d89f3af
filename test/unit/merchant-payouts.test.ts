import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoWeek, manualPeriod, merchantPayoutPostings, payoutAmount, periodKey, shownPeriod } from '../../server/domain/merchant-payouts';

// The pure rules of payouts to the merchant: which period a scheduled payout belongs to
// (at most one per currency and period), and what a payout of its lines pays.

const DAY = 86_400_000;

describe('payout periods', () => {
  it('a day is its UTC date; a week is its ISO 8601 week', () => {
    expect(periodKey('daily', new Date('2026-11-27T23:59:59.999Z'))).toBe('2026-11-27');
    expect(periodKey('daily', new Date('2026-11-28T00:00:00.000Z'))).toBe('2026-11-28');
    expect(periodKey('weekly', new Date('2026-11-27T12:00:00Z'))).toBe('2026-W48');
    // Weeks start on Monday; week 1 holds the year's first Thursday.
    expect(isoWeek(new Date('2026-01-01T00:00:00Z'))).toBe('2026-W01'); // a Thursday
    expect(isoWeek(new Date('2027-01-01T00:00:00Z'))).toBe('2026-W53'); // a Friday: the last week of 2026
    expect(isoWeek(new Date('2024-12-30T00:00:00Z'))).toBe('2025-W01'); // a Monday: already 2025's week 1
    expect(isoWeek(new Date('2023-01-01T23:59:59Z'))).toBe('2022-W52'); // a Sunday
    expect(isoWeek(new Date('2020-12-31T00:00:00Z'))).toBe('2020-W53');
  });

  it('over 60 years, the week changes exactly on Mondays, by one, and week 1 always holds 4 January', () => {
    let previous = isoWeek(new Date(Date.UTC(1999, 11, 31)));
    for (let t = Date.UTC(2000, 0, 1); t < Date.UTC(2060, 0, 1); t += DAY) {
      const at = new Date(t);
      const week = isoWeek(at);
      const monday = at.getUTCDay() === 1;
      expect(week !== previous, at.toISOString()).toBe(monday);
      if (monday) {
        const [py, pw] = previous.split('-W').map(Number) as [number, number];
        const [y, w] = week.split('-W').map(Number) as [number, number];
        expect(w === 1 ? y === py + 1 && (pw === 52 || pw === 53) : y === py && w === pw + 1, `${previous} → ${week}`).toBe(true);
      }
      if (at.getUTCMonth() === 0 && at.getUTCDate() === 4) expect(week).toBe(`${at.getUTCFullYear()}-W01`);
      previous = week;
    }
  });

  it('a manual payout is a period of its own, shown as none', () => {
    expect(manualPeriod('abc')).toBe('manual:abc');
    expect(shownPeriod(manualPeriod('abc'))).toBeNull();
    expect(shownPeriod('2026-W48')).toBe('2026-W48');
  });
});

describe('a payout of its lines', () => {
  it('pays the sum of their net, whatever their types, only when positive', () => {
    expect(payoutAmount([1000, -250, 31])).toBe(781n);
    expect(payoutAmount([10n, -10n])).toBeNull();
    expect(payoutAmount([-5])).toBeNull();
    expect(payoutAmount([])).toBeNull();
    // Beyond 2^53, no float rounding.
    expect(payoutAmount([2n ** 60n, 1n])).toBe(2n ** 60n + 1n);
  });

  it('equals the exact sum of its lines (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), { maxLength: 50 }), (nets) => {
        const sum = nets.reduce((s, n) => s + n, 0n);
        expect(payoutAmount(nets)).toBe(sum > 0n ? sum : null);
      }),
    );
  });

  it('moves the amount from the merchant account to payouts, adding up to zero', () => {
    const postings = merchantPayoutPostings('p1', 4756n);
    expect(postings.reduce((s, p) => s + p.amount, 0n)).toBe(0n);
    expect(postings.map((p) => [p.account, p.amount])).toEqual(
      expect.arrayContaining([
        [{ system: 'merchant' }, -4756n],
        [{ system: 'payouts' }, 4756n],
      ]),
    );
    expect(() => merchantPayoutPostings('p1', 0n)).toThrow();
  });
});
