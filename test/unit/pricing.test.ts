import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toUnits } from '../../server/domain/money';
import { CURRENCIES } from '../../server/domain/currencies';
import {
  type Adjustment,
  computeTotals,
  lineTotal,
  percentOf,
  PRICE_SCALE_WITHOUT_CURRENCY,
  QUANTITY_SCALE,
  RATE_SCALE,
  rescalePrice,
} from '../../server/domain/pricing';
import { type Charge, modelTotals, type PricingCase, pricingCaseArb } from './pricing-model';

// computeTotals against the independent model in pricing-model.ts. Inputs go in the way
// the API feeds them: JSON numbers converted by toUnits.

function adjustment(c: Charge, exponent: number): Adjustment {
  if (!c) return null;
  if ('amount' in c) return { amount: toUnits(Number(c.amount), exponent) };
  return { percent: toUnits(Number(c.percent), RATE_SCALE) };
}

function serviceTotals(c: PricingCase) {
  return computeTotals({
    lines: c.lines.map((l) => ({
      unitPrice: toUnits(Number(l.price), c.exponent),
      quantity: toUnits(Number(l.quantity), QUANTITY_SCALE),
    })),
    tax: adjustment(c.tax, c.exponent),
    shipping: adjustment(c.shipping, c.exponent),
    coupon: adjustment(c.coupon, c.exponent),
  });
}

describe('computeTotals', () => {
  it('equals an independent big-integer computation for random carts (property)', () => {
    fc.assert(
      fc.property(pricingCaseArb(), (c) => {
        expect(serviceTotals(c)).toEqual(modelTotals(c));
      }),
      { numRuns: 3000 },
    );
  });

  it('never gives a negative total, and the total is the sum when the coupon fits (property)', () => {
    fc.assert(
      fc.property(pricingCaseArb({ maxLines: 3, maxPrice: 100 }), (c) => {
        const t = serviceTotals(c);
        expect(t.totalPrice >= 0n).toBe(true);
        const gross = t.itemsPrice + t.taxValue + t.shippingValue - t.couponValue;
        expect(t.totalPrice).toBe(gross > 0n ? gross : 0n);
        expect(t.itemsPrice).toBe(t.lineTotals.reduce((a, b) => a + b, 0n));
      }),
      { numRuns: 2000 },
    );
  });

  it('rounds each line half away from zero, before summing', () => {
    // 1.5 × 3.33 = 4.995 → 5.00; two such lines are 10.00, not round(9.99) = 9.99.
    const line = { unitPrice: 333n, quantity: 1500n };
    expect(lineTotal(line)).toBe(500n);
    expect(computeTotals({ lines: [line, line], tax: null, shipping: null, coupon: null }).itemsPrice).toBe(1000n);
    // 0.5 × JPY 3 = 1.5 → 2; 0.5 × JPY 1 = 0.5 → 1; 0.499 × JPY 1 → 0
    expect(lineTotal({ unitPrice: 3n, quantity: 500n })).toBe(2n);
    expect(lineTotal({ unitPrice: 1n, quantity: 500n })).toBe(1n);
    expect(lineTotal({ unitPrice: 1n, quantity: 499n })).toBe(0n);
  });

  it('computes the DESIGN.md example: 3 × 12.50, VAT 21 %, shipping 4.95, coupon 10 %', () => {
    const t = computeTotals({
      lines: [{ unitPrice: 1250n, quantity: 3000n }],
      tax: { percent: 210000n },
      shipping: { amount: 495n },
      coupon: { percent: 100000n },
    });
    expect(t).toEqual({
      lineTotals: [3750n],
      itemsPrice: 3750n,
      taxValue: 788n, // 7.875 → 7.88
      shippingValue: 495n,
      couponValue: 375n,
      totalPrice: 4658n,
    });
  });

  it('takes percentages of items_price only, with 4 decimals of rate', () => {
    expect(percentOf(10000n, 70625n)).toBe(706n); // 7.0625 % of 100.00 = 7.0625 → 7.06
    expect(percentOf(10000n, 70650n)).toBe(707n); // 7.065 → 7.07
    expect(percentOf(0n, 1000000n)).toBe(0n);
    const t = computeTotals({
      lines: [{ unitPrice: 1000n, quantity: 1000n }],
      tax: { percent: 1000000n }, // 100 %
      shipping: { amount: 500n },
      coupon: { percent: 1000000n }, // 100 % of items, not of items + tax + shipping
    });
    expect(t).toMatchObject({ itemsPrice: 1000n, taxValue: 1000n, couponValue: 1000n, totalPrice: 1500n });
  });

  it('clamps the total at zero when a fixed coupon is larger than everything else', () => {
    const t = computeTotals({ lines: [{ unitPrice: 100n, quantity: 1000n }], tax: { amount: 10n }, shipping: null, coupon: { amount: 10_000n } });
    expect(t.couponValue).toBe(10_000n); // the coupon is reported as given
    expect(t.totalPrice).toBe(0n);
  });

  it('with no lines of value, everything is zero', () => {
    const t = computeTotals({ lines: [{ unitPrice: 0n, quantity: 5000n }], tax: { percent: 210000n }, shipping: null, coupon: { percent: 500000n } });
    expect(t).toEqual({ lineTotals: [0n], itemsPrice: 0n, taxValue: 0n, shippingValue: 0n, couponValue: 0n, totalPrice: 0n });
  });
});

describe('prices of products without a currency', () => {
  it('are kept at a scale no currency exceeds, so every currency can take them', () => {
    const most = Math.max(...[...CURRENCIES.values()].map((c) => c.exponent));
    expect(PRICE_SCALE_WITHOUT_CURRENCY).toBeGreaterThanOrEqual(most);
  });

  it('rescale exactly to a currency, or not at all when they have more decimals than it', () => {
    const price = toUnits(2.5, PRICE_SCALE_WITHOUT_CURRENCY);
    expect(rescalePrice(price, 2)).toBe(250n);
    expect(rescalePrice(price, 3)).toBe(2500n);
    expect(rescalePrice(price, 0)).toBeNull();
    expect(rescalePrice(toUnits(1.2345, PRICE_SCALE_WITHOUT_CURRENCY), 3)).toBeNull();
    expect(rescalePrice(toUnits(300, PRICE_SCALE_WITHOUT_CURRENCY), 0)).toBe(300n);
  });
});
