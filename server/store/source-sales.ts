import { uuidv7 } from '../domain/ids';
import { actionLimit, type RefundPart } from '../domain/sales';
import { type Db, Rollback, rollbackOn, type Tx } from './db';
import { takeBackDestinations } from './destinations';
import type { Outbox } from './events';
import { type GatewayCall, insertCall } from './gateway-calls';
import { addOperation, moveAmounts } from './sale-amounts';
import type { SaleRow, SaleSourceRow, SourceRefundRow } from './schema';

// The sale of a transaction paid from its `source` (payments/sources.ts): one sale for the
// whole transaction, with its sources listed in the transaction's order. Each card's part
// was charged as a sale of its authorization (its `charge`); a wallet's part moved in the
// ledger. A refund of the sale (payments/source-refunds.ts) is reserved whole in one
// database transaction: each card's part on its charge, with the gateway call that will
// make it, each wallet's part given back at once; the destinations give their split back
// part by part on the sale's running total (store/destinations.ts).

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
 * transaction: the sale (captured whole), its sources, its first operation and its event.
 */
export async function insertSourceSale(trx: Tx, outbox: Outbox, s: { sale: SaleRow; sources: SaleSourceRow[] }, now: Date): Promise<void> {
  await trx.insertInto('sales').values(s.sale).execute();
  if (s.sources.length) await trx.insertInto('sale_sources').values(s.sources).execute();
  await addOperation(trx, s.sale.id, 'charge', s.sale.amount, null, now);
  await outbox.emit(trx, 'sale.created', s.sale.id, now);
}

/** The refund an Idempotency-Key's binding reserved, if it did. */
export function sourceRefundOf(db: Db, binding: string): Promise<SourceRefundRow | undefined> {
  return db.selectFrom('source_refunds').selectAll().where('binding', '=', binding).executeTakeFirst();
}

/** One source's part of a refund, ready to reserve: a card's with its gateway call, a wallet's with the wallet. */
export type PlannedPart = RefundPart & ({ call: GatewayCall } | { wallet: string });

export type SourceReservation =
  | { kind: 'reserved' }
  /** The sale's own rule refuses it: it has not that much left to refund. */
  | { kind: 'conflict' }
  /** A source's amounts moved since the parts were planned: plan again. */
  | { kind: 'moved' };

/**
 * Reserves a refund of a source payment's sale, all or nothing: for each part in order,
 * the sale's amount (the sale's rule, a conditional update), then a card's part on its
 * charge with its call, or a wallet's part given back at once (credited, confirmed on the
 * sale with its operation and event); each part takes the destinations' split back.
 */
export function reserveSourceRefund(db: Db, r: { refund: SourceRefundRow; parts: PlannedPart[]; now: Date; outbox: Outbox }): Promise<SourceReservation> {
  const saleId = r.refund.sale_id;
  return rollbackOn<SourceReservation, SourceReservation>(db, async (trx) => {
    for (const part of r.parts) {
      if (!(await moveAmounts(trx, saleId, 'refund', 'reserve', part.amount, r.now))) throw new Rollback({ kind: 'conflict' });
      const sale = await trx.selectFrom('sales').selectAll().where('id', '=', saleId).executeTakeFirstOrThrow();
      if ('call' in part) {
        if (!(await moveAmounts(trx, part.call.subject_id, 'refund', 'reserve', part.amount, r.now))) throw new Rollback({ kind: 'moved' });
        await insertCall(trx, part.call);
        await takeBackDestinations(trx, r.outbox, { sale, amount: part.amount, movementId: part.call.id, now: r.now });
        continue;
      }
      await giveBackToWallet(trx, r.outbox, { sale, part, now: r.now });
    }
    await trx.insertInto('source_refunds').values(r.refund).execute();
    return { kind: 'reserved' };
  });
}

/** A wallet's part of a refund, made at once: counted on its source, credited to it, confirmed on the sale. */
async function giveBackToWallet(trx: Tx, outbox: Outbox, p: { sale: SaleRow; part: RefundPart & { wallet: string }; now: Date }) {
  const { sale, part, now } = p;
  const given = await trx
    .updateTable('sale_sources')
    .set((eb) => ({ refunded: eb('refunded', '+', part.amount) }))
    .where('sale_id', '=', sale.id)
    .where('position', '=', part.position)
    .where((eb) => eb('amount', '>=', eb(eb.ref('refunded'), '+', part.amount)))
    .executeTakeFirst();
  if (Number(given.numUpdatedRows) !== 1) throw new Rollback({ kind: 'moved' });
  await takeBackDestinations(trx, outbox, { sale, amount: part.amount, movementId: uuidv7(now.getTime()), now, to: { wallet: part.wallet } });
  if (!(await moveAmounts(trx, sale.id, 'refund', 'confirm', part.amount, now))) throw new Error(`sale ${sale.id}: no refund in flight to confirm`);
  await addOperation(trx, sale.id, 'refund', part.amount, null, now);
  await outbox.emit(trx, 'sale.refunded', sale.id, now);
}

/** The calls a keyed refund reserved, in their order (its steps). */
export async function boundCalls(db: Db, binding: string): Promise<{ id: string; step: number | null }[]> {
  return db.selectFrom('gateway_calls').select(['id', 'step']).where('binding', '=', binding).orderBy('step').execute();
}
