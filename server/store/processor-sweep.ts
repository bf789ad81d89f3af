import { type AccountSales, ofAccount } from './account-sales';
import type { Db } from './db';

// The rows of the daily sweep (payments/processor-sweep.ts): what our books hold of one
// processor account in the sweep's window. The processors due for one, each claimed by
// moving `sweep_due_at` on with a conditional UPDATE (of two processes, one sweeps it),
// are processors.ts's, their table's one writer.

/** A sale of ours, as the sweep compares it: its payment at the processor and its amounts. */
export interface SweptSale {
  id: string;
  payment: string;
  captured: number;
  /** Anything in flight or of unknown outcome: not compared until it settles. */
  moving: boolean;
}

/** The sales of one processor account made in the window, each with its payment at the processor (the reference its first operation recorded). */
export async function sweptSales(db: Db, c: AccountSales & { since: Date; until: Date }): Promise<SweptSale[]> {
  const rows = await db
    .selectFrom('sale_operations')
    .innerJoin('sales', 'sales.id', 'sale_operations.sale_id')
    .select(['sales.id', 'sale_operations.gateway_reference', 'sales.captured', 'sales.pending', 'sales.capturing', 'sales.refunding', 'sales.voiding'])
    .where((eb) => ofAccount(eb, c))
    .where('sale_operations.kind', 'in', ['authorize', 'capture', 'charge'])
    .where('sales.created_at', '>=', c.since.toISOString())
    .where('sales.created_at', '<=', c.until.toISOString())
    .orderBy('sale_operations.id')
    .execute();
  const byPayment = new Map<string, SweptSale>();
  for (const r of rows) {
    if (!r.gateway_reference || byPayment.has(r.gateway_reference)) continue;
    byPayment.set(r.gateway_reference, { id: r.id, payment: r.gateway_reference, captured: r.captured, moving: r.pending + r.capturing + r.refunding + r.voiding > 0 });
  }
  return [...byPayment.values()];
}

/** The kinds of our operations that carry each of these processor refund ids, in an environment. */
export async function refundOperations(db: Db, environmentId: string, refunds: string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (let i = 0; i < refunds.length; i += 500) {
    const rows = await db
      .selectFrom('sale_operations')
      .innerJoin('sales', 'sales.id', 'sale_operations.sale_id')
      .select(['sale_operations.gateway_reference', 'sale_operations.kind'])
      .where('sales.environment_id', '=', environmentId)
      .where('sale_operations.gateway_reference', 'in', refunds.slice(i, i + 500))
      .execute();
    for (const r of rows) found.set(r.gateway_reference!, [...(found.get(r.gateway_reference!) ?? []), r.kind]);
  }
  return found;
}
