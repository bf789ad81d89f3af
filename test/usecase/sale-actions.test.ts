import { describe, expect, it } from 'vitest';
import { actionLimit, saleStatus, stillHeld } from '../../server/domain/sales';
import { moveSaleMoney } from '../../server/payments/sale-actions';
import { getSale } from '../../server/store/sales';
import type { SaleRow } from '../../server/store/schema';
import { ENGINES } from '../test-env';
import { paidSale } from './checkout';
import { CASES, TOTAL } from './sale-cases';
import { type UseCaseWorld, useWorld } from './world';

// The limits of capture, refund and void (domain/sales.ts, applied by the sale aggregate
// under the row's lock), driven through the use case every front door runs
// (payments/sale-actions.ts `moveSaleMoney`) against the sandbox gateway, in minor units.
// What the route adds (major units, the 409's wording) is api/sales.test.ts's.

const CURRENCIES = ['JPY', 'EUR', 'KWD'];
/** TOTAL minor units in each currency's major units: ¥10000, €100.00, 10.000 KWD. */
const PRICE: Record<string, number> = { JPY: 10_000, EUR: 100, KWD: 10 };

/** The amounts as the API shows them (present/sale.ts), in minor units, with the stored status and the rule's, which must agree. */
function amounts(row: SaleRow) {
  return {
    held: stillHeld(row),
    captured: row.captured,
    refunded: row.refunded,
    voided: row.voided,
    refundable: actionLimit('refund', row),
    status: row.status,
    rule: saleStatus(row),
  };
}

async function readSale(world: UseCaseWorld, id: string) {
  return (await getSale(world.deps.database.db, world.environmentId, id))!;
}

describe.each(ENGINES)('capture, refund and void on %s', (engine) => {
  const world = useWorld(engine);

  // Each case on a sale of its own: they run side by side, each waiting on its commits while the others go on.
  describe.concurrent.each(CURRENCIES)('in %s', (currency) => {
    it.for(CASES)('$name', async ({ authorize, steps }, { expect }) => {
      const sale = await paidSale(world, currency, PRICE[currency]!, { authorize });
      expect(sale).toMatchObject({ currency, amount: TOTAL, status: authorize ? 'held' : 'captured' });
      let operations = (await readSale(world, sale.id)).operations.length;
      for (const [i, step] of steps.entries()) {
        const label = `step ${i + 1}: ${step.action} ${step.amount ?? 'all'}`;
        const before = await readSale(world, sale.id);
        const outcome = await moveSaleMoney(world.deps, { sale: before.row, action: step.action, amount: step.amount ?? 'all' });
        expect(outcome.kind, label).toBe(step.status === 200 ? 'done' : 'conflict');
        const [held, captured, refunded, voided, status] = step.after;
        const read = await readSale(world, sale.id);
        expect(amounts(read.row), label).toEqual({ held, captured, refunded, voided, refundable: captured - refunded, status, rule: status });
        if (outcome.kind === 'done') {
          expect(outcome.sale, label).toEqual(read);
          operations++;
          expect(read.operations.at(-1), label).toMatchObject({ kind: step.action });
        }
        expect(read.operations, label).toHaveLength(operations);
      }
    });
  });

  it('20 concurrent partial refunds never refund more than was captured', async () => {
    const sale = await paidSale(world, 'EUR', 100);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => moveSaleMoney(world.deps, { sale, action: 'refund', amount: 700 })));
    for (const o of outcomes) expect(['done', 'conflict']).toContain(o.kind);
    // 14 × 7.00 = 98.00 ≤ 100.00 < 105.00 = 15 × 7.00.
    expect(outcomes.filter((o) => o.kind === 'done')).toHaveLength(14);
    const read = await readSale(world, sale.id);
    expect(amounts(read.row)).toMatchObject({ captured: 10_000, refunded: 9_800, refundable: 200, status: 'partially_refunded', rule: 'partially_refunded' });
    expect(read.operations.filter((o) => o.kind === 'refund')).toHaveLength(14);
  });

  it('concurrent captures and voids of one hold never move more than was held', async () => {
    const sale = await paidSale(world, 'KWD', 10, { authorize: true });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => moveSaleMoney(world.deps, { sale, action: i % 2 ? 'void' : 'capture', amount: 750 })),
    );
    expect(outcomes.filter((o) => o.kind === 'done')).toHaveLength(13); // 13 × 0.750 = 9.750 ≤ 10.000
    const { row } = await readSale(world, sale.id);
    expect(stillHeld(row)).toBe(250);
    expect(row.captured + row.voided).toBe(9_750);
  });
});
