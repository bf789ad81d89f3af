import { divRoundHalfAway } from './money';

// The platform's fees on the merchant's money, in integer minor units.
//
// A price is a percentage (× 100: 2.9 % → 290, at most two decimals) of the amount plus a
// fixed part. The percentage part is rounded half up (half away from zero, amounts here are
// ≥ 0): 2.9 % of 1.25 € is 3.625 ct → 4 ct, of 1.05 € 3.045 ct → 3 ct. The fee is an integer
// and the net is amount − fee exactly, so no cent is lost to rounding: what the merchant
// gets and what the platform takes add up to the amount.

export interface Price {
  percentE2: bigint;
  fixed: bigint;
}

/** The fee on `amount` (≥ 0, minor units) at `price`. */
export function feeOf(amount: bigint, price: Price): bigint {
  if (amount < 0n) throw new RangeError('a fee is taken on a non-negative amount');
  if (price.percentE2 < 0n || price.fixed < 0n) throw new RangeError('a price is never negative');
  return divRoundHalfAway(amount * price.percentE2, 10_000n) + price.fixed;
}

/** "2.9" → 290n; null when it is not a percentage from 0 to 100 with at most two decimals. */
export function parsePercent(text: string): bigint | null {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) return null;
  const e2 = BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  return e2 <= 10_000n ? e2 : null;
}
