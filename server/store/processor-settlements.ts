import type { ProcessorFigures } from '../domain/processor-settlement';
import { type AccountSales, ofAccount } from './account-sales';
import type { Db } from './db';
import type { SaleProcessorSettlementRow } from './schema';

// What the merchant's own processor account settled for a sale (migration 107): written once,
// when the processor's record of the captured payment is read (payments/processor-settlement.ts),
// never changed after; read with the sale.

/** Stores a sale's figures; a second write for the same sale (two readers raced) changes nothing. */
export async function saveProcessorSettlement(db: Db, saleId: string, f: ProcessorFigures, now: Date): Promise<void> {
  const row: SaleProcessorSettlementRow = {
    sale_id: saleId,
    record: f.record,
    currency: f.currency,
    amount: f.amount,
    fee: f.fee,
    net: f.net,
    available_on: f.availableOn?.toISOString() ?? null,
    created_at: now.toISOString(),
  };
  await db.insertInto('sale_processor_settlements').values(row).onConflict((oc) => oc.column('sale_id').doNothing()).execute();
}

/** A stored row as the figures it holds. */
export const figuresOf = (r: SaleProcessorSettlementRow): ProcessorFigures => ({
  record: r.record,
  currency: r.currency,
  amount: Number(r.amount),
  fee: Number(r.fee),
  net: Number(r.net),
  availableOn: r.available_on ? new Date(r.available_on) : null,
});

/**
 * Sales of one processor account with money captured and no figures yet, newest first,
 * each with its payment at the processor (the reference its first operation recorded). A
 * capture still in flight is left out: its figures are read when it is recorded.
 */
export async function salesMissingSettlement(db: Db, c: AccountSales & { limit: number }): Promise<{ id: string; payment: string }[]> {
  const sales = await db
    .selectFrom('sales')
    .leftJoin('sale_processor_settlements', 'sale_processor_settlements.sale_id', 'sales.id')
    .select('sales.id')
    .where((eb) => ofAccount(eb, c))
    .where('sales.captured', '>', 0)
    .where('sales.capturing', '=', 0)
    .where('sale_processor_settlements.sale_id', 'is', null)
    .orderBy('sales.id', 'desc')
    .limit(c.limit)
    .execute();
  if (sales.length === 0) return [];
  const ops = await db
    .selectFrom('sale_operations')
    .select(['sale_id', 'gateway_reference'])
    .where(
      'sale_id',
      'in',
      sales.map((s) => s.id),
    )
    .where('kind', 'in', ['authorize', 'capture', 'charge'])
    .orderBy('id')
    .execute();
  const first = new Map<string, string>();
  for (const o of ops) if (o.gateway_reference && !first.has(o.sale_id)) first.set(o.sale_id, o.gateway_reference);
  return sales.flatMap((s) => (first.has(s.id) ? [{ id: s.id, payment: first.get(s.id)! }] : []));
}
