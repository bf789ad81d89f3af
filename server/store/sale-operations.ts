import type { OperationReason } from '../domain/payment-reference';
import { movesBalance } from '../domain/balance';
import { uuidv7 } from '../domain/ids';
import { insertAtCommit, insertRows } from './compiled';
import type { Tx } from './db';
import type { SaleOperationKind, SaleOperationRow } from './schema';

// A sale's history: the operations that moved its amounts (the amounts themselves are
// sale-aggregate.ts's), recorded inside the caller's database transaction.

/** A new operation of a sale, as it is stored: one that moves no money of the merchant born dealt with by the balance job. */
export function operationRow(
  saleId: string,
  kind: SaleOperationKind,
  amount: number,
  reference: string | null,
  now: Date,
  movementId: string | null = null,
  reason: OperationReason | null = null,
): SaleOperationRow {
  return { id: uuidv7(now.getTime()), sale_id: saleId, kind, amount, gateway_reference: reference, created_at: now.toISOString(), movement_id: movementId, reason, balance_checked_at: movesBalance(kind) ? null : now.toISOString() };
}

/** Records an operation of a sale; resolves with the row as stored. */
export async function addOperation(trx: Tx, ...operation: Parameters<typeof operationRow>): Promise<SaleOperationRow> {
  const row = operationRow(...operation);
  await insertOperation(trx, row);
  return row;
}

/**
 * Records an operation of a sale as `trx` commits (compiled.ts insertAtCommit), with the
 * transaction's other such rows: for a record whose transaction reads no operation after it.
 */
export async function addOperationAtCommit(trx: Tx, ...operation: Parameters<typeof operationRow>): Promise<SaleOperationRow> {
  const row = operationRow(...operation);
  await insertAtCommit(trx, 'sale_operations', [row]);
  return row;
}

/** An operation made elsewhere whole (a charged period's, subscription-charges.ts). */
export async function insertOperation(trx: Tx, row: SaleOperationRow): Promise<void> {
  await insertRows(trx, 'sale_operations', [row]);
}

export const ACTION_EVENTS = { capture: 'sale.captured', refund: 'sale.refunded', void: 'sale.voided' } as const;

/** A sale's operations carrying the gateway's reference `reference` (a refund and, once it failed, its failure). */
export function operationsByReference(trx: Tx, saleId: string, reference: string): Promise<SaleOperationRow[]> {
  return trx.selectFrom('sale_operations').selectAll().where('sale_id', '=', saleId).where('gateway_reference', '=', reference).orderBy('id').execute();
}

/** Marks operations dealt with by the balance job (payments/balance.ts); resolves with how many were not yet. */
export async function markBalanceChecked(trx: Tx, ids: readonly string[], now: Date): Promise<number> {
  if (!ids.length) return 0;
  const { numUpdatedRows } = await trx.updateTable('sale_operations').set({ balance_checked_at: now.toISOString() }).where('id', 'in', ids).where('balance_checked_at', 'is', null).executeTakeFirst();
  return Number(numUpdatedRows);
}
