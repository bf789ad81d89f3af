import { uuidv7 } from '../domain/ids';
import type { SaleAction } from '../domain/sales';
import { isOperationReason, type OperationReason } from '../domain/payment-reference';
import { type Db, inTransaction, Rollback, rollbackOn, type Tx } from '../store/db';
import { isUniqueViolation } from '../store/errors';
import type { Outbox } from '../store/events';
import { type GatewayCall, insertCallAtCommit, linkedSale, salesOfAction, settleCall, settleCallPlanned } from '../store/gateway-calls';
import { moveAmounts, moveLockedAmounts, releaseLockedRest, type Reserved, reserveAmounts } from '../store/sale-aggregate';
import { ACTION_EVENTS, addOperationAtCommit } from '../store/sale-operations';
import { getSale, lockSale, lockSalePlanned, saleRow, type StoredSale, withOperation } from '../store/sales';
import { answered, answeredTogether } from '../store/together';
import { settlePendingAction } from '../store/unknown-outcomes';
import { takeBackDestinations } from './destinations';
import { reverseMovement } from './ledger-posting';

// A capture, refund or void of a sale around its gateway call (sale-actions.ts asks,
// send-action.ts sends and records): the amounts move when it is reserved, so concurrent
// actions see them moved and cannot exceed them (store/sale-aggregate.ts locks the sale and
// applies the action's rule of domain/sales.ts); they are confirmed with the operation and
// its event when the gateway did it, or moved back when it did not. A refund takes the sale's
// split back from its destination wallets as it is reserved, and gives it back if released.

/** Reserved: the call as reserved (its amount chosen, for "all"), and the payment's gateway reference. */
export type Reservation = { kind: 'conflict' } | { kind: 'reserved'; call: GatewayCall; payment: string | null };

/**
 * A refund takes the sale's split back from its destination wallets as it reserves the
 * amount (movement: the call), and gives it back if the refund is released.
 */
async function takeBack(trx: Tx, call: GatewayCall, outbox: Outbox, now: Date, o: { movementId?: string; reserved?: Reserved } = {}) {
  // A card's part of a refund of a source payment's sale: the pool is that sale. The sale
  // the refund just reserved is known as written, with its split.
  const linked = linkedSale(call);
  const movement = { amount: call.amount, movementId: o.movementId ?? call.id, now };
  if (!linked && o.reserved) await takeBackDestinations(trx, outbox, { ...movement, sale: o.reserved.sale, split: { destination: o.reserved.split } });
  else await takeBackDestinations(trx, outbox, { ...movement, sale: (await saleRow(trx, linked ?? call.subject_id))! });
}

/**
 * Reserves a sale action: the amounts move now (so concurrent actions see them moved and
 * cannot exceed them), with the gateway call that will carry it, in one transaction.
 * `all`: the call's amount is all the action can move of the sale once its row is locked,
 * not as read before (an action reserved meanwhile would make that too much).
 */
export async function reserveSaleAction(
  db: Db,
  a: { call: GatewayCall; action: SaleAction; now: Date; outbox: Outbox; all?: boolean },
): Promise<Reservation> {
  // Its own transaction, committed before the gateway is called: the call's row with it.
  if (db.isTransaction) throw new Error('a sale action is reserved in a transaction of its own');
  try {
    return await inTransaction(db, async (trx): Promise<Reservation> => {
      const reserved = await reserveAmounts(trx, a.call.subject_id, a.action, a.all ? 'all' : a.call.amount, a.now);
      if (!reserved) return { kind: 'conflict' };
      const call = { ...a.call, amount: reserved.amount };
      await insertCallAtCommit(trx, call);
      if (a.action === 'refund') await takeBack(trx, call, a.outbox, a.now, { reserved });
      return { kind: 'reserved', call, payment: reserved.paymentReference } as const;
    });
  } catch (err) {
    // Another operation of the sale still pending where only one may be (a Redsys order, migration 105): nothing was written.
    if (isUniqueViolation(err)) return { kind: 'conflict' };
    throw err;
  }
}

/**
 * The merchant's reason for a capture, refund or void, as its call carries it
 * (sale-actions.ts); null for none. A refund's call recorded before capture and void took
 * one carries it as `refund_reason`, and may still be pending reconciliation.
 */
function merchantReasonOf(call: GatewayCall): OperationReason | null {
  const reason = call.request.merchant_reason ?? call.request.refund_reason;
  return isOperationReason(reason) ? reason : null;
}

/** The gateway did it: the operation and its event, once (null: another process recorded it). */
export async function recordSaleAction(
  db: Db,
  r: {
    call: GatewayCall;
    action: SaleAction;
    gatewayReference: string;
    now: Date;
    outbox: Outbox;
    from?: 'pending' | 'abandoned';
    /** A capture on a gateway that captures once: the rest of the hold is released with it (and voided in our books). */
    releaseRest?: boolean;
    /** More writes the use case records with the operation, in its transaction. */
    also?: (trx: Tx) => Promise<void>;
  },
): Promise<StoredSale | null> {
  const saleId = r.call.subject_id;
  return rollbackOn<StoredSale | null, null>(db, async (trx) => {
    // A card's part of a refund of a source payment's sale moves that sale's amounts too
    // (salesOfAction: that sale's row first, as the refund reserved them).
    const sales = salesOfAction(r.call);
    const settle = settleCallPlanned(trx, r.call.id, [r.from ?? 'pending'], 'succeeded', r.now, { resultId: saleId });
    // The first sale locked with the call's settle, in one round trip (together.ts), unless
    // something written between them changes it (an abandoned call's amounts moved again).
    const [settled, first] = r.from === 'abandoned' ? [await answered(trx, settle), undefined] : await answeredTogether(trx, settle, lockSalePlanned(trx, sales[0]!));
    if (!settled) return null;
    // An abandoned call's amounts were moved back when it was abandoned: reserve them again, if they still allow it.
    // A refund's take-back: the reservation's movement, or one of its own when the call was
    // abandoned (that one was reversed); the operation names it for the balance job.
    let movementId = r.action === 'refund' ? r.call.id : null;
    if (r.from === 'abandoned') {
      for (const id of sales) if (!(await moveAmounts(trx, id, r.action, 'reserve', r.call.amount, r.now))) throw new Rollback(null);
      if (r.action === 'refund') await takeBack(trx, r.call, r.outbox, r.now, { movementId: (movementId = uuidv7(r.now.getTime())) });
    }
    await settlePendingAction(trx, r.call, settled, r.now);
    // Each sale as locked, written and given its operation is its event's snapshot, and the
    // answer. The first as locked with the settle, unless settling a call of unknown outcome
    // wrote it since (unknown-outcomes.ts).
    let answer: StoredSale | undefined;
    for (const id of sales) {
      const locked = id === sales[0] && first && settled.unknown_since === null ? first : await lockSale(trx, id);
      const row = locked && (await moveLockedAmounts(trx, locked.row, r.action, 'confirm', r.call.amount, r.now));
      if (!row) throw new Error(`sale ${id}: no ${r.action} in flight to confirm`);
      // Written as the transaction commits, with its events (a read of the sale after `also` writes it first).
      const operation = await addOperationAtCommit(trx, id, r.action, r.call.amount, r.gatewayReference, r.now, movementId, merchantReasonOf(r.call));
      let stored = withOperation(locked, row, operation);
      await r.outbox.emit(trx, ACTION_EVENTS[r.action], id, r.now, { sale: stored });
      if (r.releaseRest) stored = (await releaseRest(trx, stored, r)) ?? stored;
      if (id === saleId) answer = stored;
    }
    if (!r.also && answer) return answer;
    await r.also?.(trx);
    return (await getSale(trx, null, saleId))!;
  });
}

/**
 * The hold a capture left, released with it where the processor captures once: a void
 * operation of the rest under the capture's gateway reference (nothing was sent for it),
 * and its event. undefined when the capture took the whole hold.
 */
async function releaseRest(trx: Tx, captured: StoredSale, r: { gatewayReference: string; now: Date; outbox: Outbox }): Promise<StoredSale | undefined> {
  const rest = captured.row.held;
  // A millisecond after the capture: ids (UUIDv7) sort by time, so the release follows it in the sale's history.
  const at = new Date(r.now.getTime() + 1);
  const row = await releaseLockedRest(trx, captured.row, at);
  if (!row) return undefined;
  const operation = await addOperationAtCommit(trx, row.id, 'void', rest, r.gatewayReference, at);
  const stored = withOperation(captured, row, operation);
  await r.outbox.emit(trx, ACTION_EVENTS.void, row.id, at, { sale: stored });
  return stored;
}

/** The gateway did not do it (failed) or did not answer (abandoned): the amounts move back. */
export async function releaseSaleAction(
  db: Db,
  r: { call: GatewayCall; action: SaleAction; state: 'failed' | 'abandoned'; now: Date; outbox: Outbox },
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const checkAt = r.state === 'abandoned' ? r.now : null;
    const settled = await settleCall(trx, r.call.id, ['pending'], r.state, r.now, { checkAt });
    if (!settled) return false;
    await settlePendingAction(trx, r.call, settled, r.now);
    for (const id of salesOfAction(r.call)) await moveAmounts(trx, id, r.action, 'release', r.call.amount, r.now);
    if (r.action === 'refund') {
      await reverseMovement(trx, r.outbox, { movementId: r.call.id, reversalId: uuidv7(r.now.getTime()), concept: 'refund not made', now: r.now });
    }
    return true;
  });
}
