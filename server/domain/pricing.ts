import { divRoundHalfAway } from './money';

// DESIGN.md "Totals": items_price = Σ round(quantity × price) per line;
// total = items + tax + shipping − coupon, never below 0; half away from zero.
// Quantities and rates are scaled integers so every step is exact.

export const QUANTITY_SCALE = 3; // quantities have at most 3 decimals: 1.5 kg → 1500
export const RATE_SCALE = 4; // percentages have at most 4 decimals: 21 % → 210000
/**
 * A catalogue product without a currency keeps its price at this many decimals, the most
 * any currency has (CLF, UYW): it is converted to the transaction currency's minor units
 * when a transaction uses it. Stored data depends on it: never change it.
 */
export const PRICE_SCALE_WITHOUT_CURRENCY = 4;

/** A price kept at PRICE_SCALE_WITHOUT_CURRENCY → minor units at `exponent`, or null if it has more decimals. */
export function rescalePrice(price: bigint, exponent: number): bigint | null {
  const factor = 10n ** BigInt(PRICE_SCALE_WITHOUT_CURRENCY - exponent);
  return price % factor === 0n ? price / factor : null;
}

export interface PricedLine {
  unitPrice: bigint; // minor units
  quantity: bigint; // × 10^QUANTITY_SCALE
}

/** A charge either given as an amount or derived from a percentage of items_price. */
export type Adjustment = { amount: bigint } | { percent: bigint } | null;

export function lineTotal(line: PricedLine): bigint {
  return divRoundHalfAway(line.unitPrice * line.quantity, 10n ** BigInt(QUANTITY_SCALE));
}

export function percentOf(base: bigint, percent: bigint): bigint {
  // percent is scaled by 10^RATE_SCALE, and a percentage is a further /100.
  return divRoundHalfAway(base * percent, 100n * 10n ** BigInt(RATE_SCALE));
}

function resolve(adjustment: Adjustment, itemsPrice: bigint): bigint {
  if (!adjustment) return 0n;
  return 'amount' in adjustment ? adjustment.amount : percentOf(itemsPrice, adjustment.percent);
}

export interface Totals {
  lineTotals: bigint[];
  itemsPrice: bigint;
  taxValue: bigint;
  shippingValue: bigint;
  couponValue: bigint;
  totalPrice: bigint;
}

export function computeTotals(input: {
  lines: PricedLine[];
  tax: Adjustment;
  shipping: Adjustment;
  coupon: Adjustment;
}): Totals {
  const lineTotals = input.lines.map(lineTotal);
  const itemsPrice = lineTotals.reduce((a, b) => a + b, 0n);
  const taxValue = resolve(input.tax, itemsPrice);
  const shippingValue = resolve(input.shipping, itemsPrice);
  const couponValue = resolve(input.coupon, itemsPrice);
  const gross = itemsPrice + taxValue + shippingValue - couponValue;
  return {
    lineTotals,
    itemsPrice,
    taxValue,
    shippingValue,
    couponValue,
    totalPrice: gross < 0n ? 0n : gross,
  };
}
