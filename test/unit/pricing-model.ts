import fc from 'fast-check';

// An independent model of DESIGN.md "Totals", for property tests. It works on decimal
// TEXT and plain bigint arithmetic and shares no code with server/domain: a bug there
// cannot hide here.
//
//   line        = round(quantity × price)                      (minor units)
//   items_price = Σ line
//   tax / shipping / coupon = a fixed amount, or round(items_price × rate / 100)
//   total_price = max(0, items_price + tax + shipping − coupon)
//   round = half away from zero, to the currency's exponent

export type Charge = null | { amount: string } | { percent: string };

export interface PricingCase {
  exponent: 0 | 2 | 3;
  lines: { price: string; quantity: string }[];
  tax: Charge;
  shipping: Charge;
  coupon: Charge;
}

export interface ModelTotals {
  lineTotals: bigint[];
  itemsPrice: bigint;
  taxValue: bigint;
  shippingValue: bigint;
  couponValue: bigint;
  totalPrice: bigint;
}

/** "12.5" with 3 decimal places → 12500n. */
export function scaled(text: string, places: number): bigint {
  const [int, frac = ''] = text.split('.');
  if (frac.length > places) throw new Error(`${text} has more than ${places} decimals`);
  return BigInt(int! + frac.padEnd(places, '0'));
}

/** a / b for a ≥ 0, b > 0, rounded half up (= away from zero for non-negative values). */
function roundedDivision(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  const remainder = a % b;
  return remainder * 2n >= b ? quotient + 1n : quotient;
}

export function modelTotals(c: PricingCase): ModelTotals {
  const lineTotals = c.lines.map((l) => roundedDivision(scaled(l.price, c.exponent) * scaled(l.quantity, 3), 1000n));
  const itemsPrice = lineTotals.reduce((a, b) => a + b, 0n);
  const charge = (ch: Charge) => {
    if (!ch) return 0n;
    if ('amount' in ch) return scaled(ch.amount, c.exponent);
    return roundedDivision(itemsPrice * scaled(ch.percent, 4), 100n * 10_000n);
  };
  const taxValue = charge(c.tax);
  const shippingValue = charge(c.shipping);
  const couponValue = charge(c.coupon);
  const gross = itemsPrice + taxValue + shippingValue - couponValue;
  return { lineTotals, itemsPrice, taxValue, shippingValue, couponValue, totalPrice: gross > 0n ? gross : 0n };
}

/** Decimal text of a non-negative integer with at most `places` decimals, trailing zeros trimmed. */
export const decimalArb = (maxInt: number, places: number) =>
  fc
    .tuple(fc.integer({ min: 0, max: maxInt }), fc.integer({ min: 0, max: 10 ** places - 1 }), fc.integer({ min: 0, max: places }))
    .map(([int, frac, keep]) => {
      if (places === 0 || keep === 0) return String(int);
      const digits = String(frac).padStart(places, '0').slice(0, keep).replace(/0+$/, '');
      return digits ? `${int}.${digits}` : String(int);
    });

export const chargeArb = (exponent: number, opts: { percentMax?: number } = {}): fc.Arbitrary<Charge> =>
  fc.oneof(
    fc.constant(null),
    decimalArb(10_000, exponent).map((amount) => ({ amount })),
    decimalArb(opts.percentMax ?? 100, 4)
      .filter((p) => scaled(p, 4) <= BigInt(opts.percentMax ?? 100) * 10_000n)
      .map((percent) => ({ percent })),
  );

export const pricingCaseArb = (opts: { maxLines?: number; maxPrice?: number } = {}): fc.Arbitrary<PricingCase> =>
  fc.constantFrom<0 | 2 | 3>(0, 2, 3).chain((exponent) =>
    fc.record({
      exponent: fc.constant(exponent),
      lines: fc.array(
        fc.record({
          price: decimalArb(opts.maxPrice ?? 1_000_000, exponent),
          quantity: decimalArb(1000, 3).filter((q) => scaled(q, 3) > 0n),
        }),
        { minLength: 1, maxLength: opts.maxLines ?? 8 },
      ),
      tax: chargeArb(exponent),
      shipping: chargeArb(exponent),
      coupon: chargeArb(exponent),
    }),
  );
