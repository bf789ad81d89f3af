import { actionLimit, type RefundPart } from '../domain/sales';
import type { Db, Tx } from './db';
import type { GatewayCall } from './gateway-calls';
import { insertSales } from './sale-aggregate';
import { addOperation } from './sale-operations';
import type { SaleRow, SaleSourceRow, SourceRefundRow } from './schema';

// The sale of a transaction paid from its `source` (payments/sources.ts): one sale for the
// whole transaction, with its sources listed in the transaction's order. Each card's part
// was charged as a sale of its authorization (its `charge`); a wallet's part moved in the
// ledger. A refund of the sale is reserved whole in one database transaction
// (payments/source-refunds.ts): each card's part on its charge, with the gateway call that
// will make it, each wallet's part given back at once.

/** A source of a sale as it stands now. */
export interface SourceOfSale extends SaleSourceRow {
  /** What a refund may still take from it: a wallet's part not yet given back, or its charge's refundable. */
  refundable: number;
  /** A card's charge, as it stands (a card's `refunded` is its charge's). */
  charge: SaleRow | null;
}

/** The sources of each of `saleIds` that has any, in the transaction's order. */
export async function sourcesOfSales(db: Db, saleIds: string[]): Promise<Map<string, SourceOfSale[]>> {
  const found = new Map<string, SourceOfSale[]>();
  if (!saleIds.length) return found;
  const rows = await db.selectFrom('sale_sources').selectAll().where('sale_id', 'in', saleIds).orderBy('sale_id').orderBy('position').execute();
  const chargeIds = rows.flatMap((r) => (r.charge_id ? [r.charge_id] : []));
  const charges = chargeIds.length ? await db.selectFrom('sales').selectAll().where('id', 'in', chargeIds).execute() : [];
  const byId = new Map(charges.map((c) => [c.id, c]));
  for (const r of rows) {
    const charge = r.charge_id ? (byId.get(r.charge_id) ?? null) : null;
    const source: SourceOfSale = charge
      ? { ...r, refunded: charge.refunded, refundable: actionLimit('refund', charge), charge }
      : { ...r, refundable: r.wallet_id ? r.amount - Number(r.refunded) : 0, charge: null };
    found.set(r.sale_id, [...(found.get(r.sale_id) ?? []), source]);
  }
  return found;
}

/**
 * Stores the sale of a source payment as the payment is recorded, inside its database
 * transaction: the sale (captured whole), its sources and its first operation.
 */
export async function insertSourceSale(trx: Tx, s: { sale: SaleRow; sources: SaleSourceRow[] }, now: Date): Promise<void> {
  await insertSales(trx, [s.sale]);
  if (s.sources.length) await trx.insertInto('sale_sources').values(s.sources).execute();
  await addOperation(trx, s.sale.id, 'charge', s.sale.amount, null, now);
}

/** The refund an Idempotency-Key's binding reserved, if it did. */
export function sourceRefundOf(db: Db, binding: string): Promise<SourceRefundRow | undefined> {
  return db.selectFrom('source_refunds').selectAll().where('binding', '=', binding).executeTakeFirst();
}

/** One source's part of a refund, ready to reserve: a card's with its gateway call, a wallet's with the wallet. */
export type PlannedPart = RefundPart & ({ call: GatewayCall } | { wallet: string });

/**
 * A wallet's part of a refund counted on its source: a conditional update, false when the
 * source has no longer that much left to give back (its amounts moved since the plan).
 */
export async function giveBackToSource(trx: Tx, saleId: string, position: number, amount: number): Promise<boolean> {
  const given = await trx
    .updateTable('sale_sources')
    .set((eb) => ({ refunded: eb('refunded', '+', amount) }))
    .where('sale_id', '=', saleId)
    .where('position', '=', position)
    .where((eb) => eb('amount', '>=', eb(eb.ref('refunded'), '+', amount)))
    .executeTakeFirst();
  return Number(given.numUpdatedRows) === 1;
}

export async function insertSourceRefund(trx: Tx, row: SourceRefundRow): Promise<void> {
  await trx.insertInto('source_refunds').values(row).execute();
}

/** The calls a keyed refund reserved, in their order (its steps). */
export async function boundCalls(db: Db, binding: string): Promise<{ id: string; step: number | null }[]> {
  return db.selectFrom('gateway_calls').select(['id', 'step']).where('binding', '=', binding).orderBy('step').execute();
}
