import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Charge, chargeArb, decimalArb, modelTotals, type PricingCase, scaled } from '../unit/pricing-model';
import { ENGINES, useTestService } from './harness';

// The same independent pricing model as the unit tests, through HTTP: JSON numbers in,
// catalogue references resolved, JSON numbers out.

const CURRENCY = { 0: 'JPY', 2: 'EUR', 3: 'KWD' } as const;

/** Minor units → the JSON number the API should print, by hand. */
function major(units: bigint, exponent: number): number {
  const digits = units.toString().padStart(exponent + 1, '0');
  return Number(exponent ? `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}` : digits);
}

const caseArb: fc.Arbitrary<PricingCase> = fc.constantFrom<0 | 2 | 3>(0, 2, 3).chain((exponent) =>
  fc.record({
    exponent: fc.constant(exponent),
    lines: fc.array(
      fc.record({
        price: decimalArb(100_000, exponent),
        quantity: decimalArb(100, 3).filter((q) => scaled(q, 3) > 0n),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    tax: chargeArb(exponent),
    // A shipping option has a price, never a percentage.
    shipping: chargeArb(exponent).filter((c) => !c || 'amount' in c),
    coupon: chargeArb(exponent),
  }),
);

describe.each(ENGINES)('pricing through the API on %s', (engine) => {
  const svc = useTestService(engine, 'Pricing');

  it('totals of random carts equal the independent model (property)', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.boolean(), async (c, viaCatalogue) => {
        const currency = CURRENCY[c.exponent];
        const body: Record<string, unknown> = { currency, products: [] };
        const lines = body.products as unknown[];
        for (const [i, l] of c.lines.entries()) {
          if (viaCatalogue) {
            const p = await svc.api.post('/product/', { name: `P${i}`, price: Number(l.price), currency });
            expect(p.status, p.text).toBe(201);
            lines.push({ amount: Number(l.quantity), product_id: p.body.id });
          } else {
            lines.push({ amount: Number(l.quantity), product: { name: `P${i}`, price: Number(l.price) } });
          }
        }
        const charge = async (name: 'tax' | 'shipping' | 'coupon', ch: Charge) => {
          if (!ch) return;
          if ('amount' in ch) {
            body[`${name}_value`] = Number(ch.amount);
          } else if (name === 'tax') {
            body.tax = (await svc.api.post('/tax/', { name: 'Tax', rate: Number(ch.percent) })).body.id;
          } else {
            body.coupon = (await svc.api.post('/coupon/', { name: 'Coupon', kind: 'percent', value: Number(ch.percent) })).body.id;
          }
        };
        await charge('tax', c.tax);
        await charge('shipping', c.shipping);
        await charge('coupon', c.coupon);

        const res = await svc.api.post('/transaction/', body);
        expect(res.status, res.text).toBe(201);
        const m = modelTotals(c);
        const e = c.exponent;
        expect({
          lines: res.body.products.map((p: { total: number }) => p.total),
          items_price: res.body.items_price,
          tax_value: res.body.tax_value,
          shipping_value: res.body.shipping_value,
          coupon_value: res.body.coupon_value,
          total_price: res.body.total_price,
        }).toEqual({
          lines: m.lineTotals.map((u) => major(u, e)),
          items_price: major(m.itemsPrice, e),
          tax_value: major(m.taxValue, e),
          shipping_value: major(m.shippingValue, e),
          coupon_value: major(m.couponValue, e),
          total_price: major(m.totalPrice, e),
        });
        // The stored copy reads back identically.
        expect((await svc.api.get(`/transaction/${res.body.id}/`)).body).toEqual(res.body);
      }),
      { numRuns: 60 },
    );
  });
});
