import type { RefundReason } from '../domain/payment-reference';
import { uuidv7 } from '../domain/ids';
import { CONFIRMED, IN_FLIGHT, type SaleAction } from '../domain/sales';
import { insertRows } from './compiled';
import type { Tx } from './db';
import type { SaleOperationKind, SaleOperationRow } from './schema';

// A sale's amounts and its history, moved one step at a time inside the caller's
// database transaction: the store's functions for sales (sales.ts) and for the sales of
// transactions paid from a `source` (source-sales.ts) share them.

/** Records an operation of a sale; resolves with the row as stored. */
export async function addOperation(
  trx: Tx,
  saleId: string,
  kind: SaleOperationKind,
  amount: number,
  reference: string | null,
  now: Date,
  movementId: string | null = null,
  reason: RefundReason | null = null,
): Promise<SaleOperationRow> {
  const row: SaleOperationRow = { id: uuidv7(now.getTime()), sale_id: saleId, kind, amount, gateway_reference: reference, created_at: now.toISOString(), movement_id: movementId, reason };
  await insertRows(trx, 'sale_operations', [row]);
  return row;
}

export const ACTION_EVENTS = { capture: 'sale.captured', refund: 'sale.refunded', void: 'sale.voided' } as const;

/** An action's step on the amounts: reserved before the gateway call, then confirmed or released. */
export type Step = 'reserve' | 'confirm' | 'release';

/**
 * Moves `x` by one step of `action` if the amounts allow it at the moment of the UPDATE:
 * the condition is domain/sales.ts's rule (reserveAction, confirmAction, releaseAction),
 * so it holds under any concurrency, on both engines and across processes.
 */
export async function moveAmounts(trx: Tx, saleId: string, action: SaleAction, step: Step, x: number, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const flight = IN_FLIGHT[action];
  const update = trx.updateTable('sales').where('id', '=', saleId).where('failure', 'is', null);
  const changed =
    step === 'reserve'
      ? action === 'refund'
        ? update
            .set((eb) => ({ refunding: eb('refunding', '+', x), updated_at: at }))
            .where((eb) => eb('captured', '>=', eb(eb(eb('refunded', '+', eb.ref('refunding')), '+', eb.ref('disputed')), '+', x)))
        : update.set((eb) => ({ held: eb('held', '-', x), [flight]: eb(flight, '+', x), updated_at: at })).where('held', '>=', x)
      : step === 'confirm'
        ? update.set((eb) => ({ [flight]: eb(flight, '-', x), [CONFIRMED[action]]: eb(CONFIRMED[action], '+', x), updated_at: at })).where(flight, '>=', x)
        : update
            .set((eb) => ({ [flight]: eb(flight, '-', x), ...(action === 'refund' ? {} : { held: eb('held', '+', x) }), updated_at: at }))
            .where(flight, '>=', x);
  const result = await changed.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * A refund the gateway confirmed and then failed (the bank returned it, docs/processors.md):
 * its amount is refunded no more, and refundable again. false when the sale's `refunded`
 * does not hold it.
 */
export async function unrefund(trx: Tx, saleId: string, amount: number, now: Date): Promise<boolean> {
  const result = await trx
    .updateTable('sales')
    .set((eb) => ({ refunded: eb('refunded', '-', amount), updated_at: now.toISOString() }))
    .where('id', '=', saleId)
    .where('refunded', '>=', amount)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A sale's operations carrying the gateway's reference `reference` (a refund and, once it failed, its failure). */
export function operationsByReference(trx: Tx, saleId: string, reference: string): Promise<SaleOperationRow[]> {
  return trx.selectFrom('sale_operations').selectAll().where('sale_id', '=', saleId).where('gateway_reference', '=', reference).orderBy('id').execute();
}
