import { type SaleAction, type SaleStatus } from '../domain/sales';
import { uuidv7 } from '../domain/ids';
import { type Db, inTransaction, Rollback, rollbackOn, type Tx } from './db';
import { takeBackDestinations } from './destinations';
import type { Outbox } from './events';
import { PostingRefused, reverseMovement } from './ledger';
import { type GatewayCall, insertCall, settleCall } from './gateway-calls';
import { countAndPage, type Page } from './paging';
import type { AuthorizationRow, SaleOperationKind, SaleOperationRow, SaleRow } from './schema';

// Sales and authorizations after the payment. Every money movement is two database
// transactions around a gateway call made outside both (server/payments/): a reservation
// that starts with a conditional UPDATE (the condition is the action's rule, so it holds
// under any concurrency, on both engines and across processes) and a record of the
// answer, each settling the call's row exactly once.

export interface StoredSale {
  row: SaleRow;
  operations: SaleOperationRow[];
}

export async function getSale(db: Db, environmentId: string | null, id: string): Promise<StoredSale | undefined> {
  let query = db.selectFrom('sales').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const operations = await db.selectFrom('sale_operations').selectAll().where('sale_id', '=', id).orderBy('id').execute();
  return { row, operations };
}

export interface SaleFilters {
  status?: SaleStatus;
  transaction_id?: string;
  authorization_id?: string;
  currency?: string;
}

export async function listSales(db: Db, environmentId: string, f: SaleFilters, page: Page) {
  let query = db.selectFrom('sales').where('environment_id', '=', environmentId);
  if (f.transaction_id !== undefined) query = query.where('transaction_id', '=', f.transaction_id);
  if (f.authorization_id !== undefined) query = query.where('authorization_id', '=', f.authorization_id);
  if (f.currency !== undefined) query = query.where('currency', '=', f.currency);
  // saleStatus() in SQL: each status is the conjunction of the rules before it failing.
  if (f.status !== undefined) {
    const ok = (q: typeof query) => q.where('failure', 'is', null);
    switch (f.status) {
      case 'declined':
        query = query.where('failure', 'is not', null);
        break;
      case 'held':
        query = ok(query).where('held', '>', 0).where('captured', '=', 0);
        break;
      case 'partially_captured':
        query = ok(query).where('held', '>', 0).where('captured', '>', 0);
        break;
      case 'voided':
        query = ok(query).where('held', '=', 0).where('captured', '=', 0).where('voided', '>', 0);
        break;
      case 'captured':
        query = ok(query)
          .where('held', '=', 0)
          .where('refunded', '=', 0)
          .where((eb) => eb.or([eb('captured', '>', 0), eb('voided', '=', 0)]));
        break;
      case 'partially_refunded':
        query = ok(query).where('held', '=', 0).where('refunded', '>', 0).where((eb) => eb('refunded', '<', eb.ref('captured')));
        break;
      case 'refunded':
        query = ok(query).where('held', '=', 0).where('refunded', '>', 0).where((eb) => eb('refunded', '=', eb.ref('captured')));
        break;
    }
  }
  const { count, rows } = await countAndPage<SaleRow>(query, page);
  const operations = rows.length
    ? await db
        .selectFrom('sale_operations')
        .selectAll()
        .where(
          'sale_id',
          'in',
          rows.map((r) => r.id),
        )
        .orderBy('id')
        .execute()
    : [];
  return { count, items: rows.map((row) => ({ row, operations: operations.filter((o) => o.sale_id === row.id) })) };
}

function addOperation(trx: Tx, saleId: string, kind: SaleOperationKind, amount: number, reference: string | null, now: Date) {
  return trx
    .insertInto('sale_operations')
    .values({ id: uuidv7(now.getTime()), sale_id: saleId, kind, amount, gateway_reference: reference, created_at: now.toISOString() })
    .execute();
}

const ACTION_EVENTS = { capture: 'sale.captured', refund: 'sale.refunded', void: 'sale.voided' } as const;

/**
 * Moves `amount` by `action` if the amounts allow it at the moment of the UPDATE (the
 * condition is the action's rule, so it holds under any concurrency, on both engines and
 * across processes); `undo` moves it back.
 */
async function moveAmounts(trx: Tx, saleId: string, action: SaleAction, x: number, now: Date, undo = false): Promise<boolean> {
  const at = now.toISOString();
  const d = undo ? -x : x;
  const update = trx.updateTable('sales').where('id', '=', saleId).where('failure', 'is', null);
  const changed =
    action === 'refund'
      ? update.set((eb) => ({ refunded: eb('refunded', '+', d), updated_at: at })).where((eb) => eb('captured', '>=', eb('refunded', '+', d)))
      : action === 'capture'
        ? update.set((eb) => ({ held: eb('held', '-', d), captured: eb('captured', '+', d), updated_at: at })).where('held', '>=', d)
        : update.set((eb) => ({ held: eb('held', '-', d), voided: eb('voided', '+', d), updated_at: at })).where('held', '>=', d);
  const result = await changed.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export type Reservation =
  | { kind: 'conflict' }
  /** A refund a destination wallet of the sale cannot give its part of. */
  | { kind: 'refused'; wallet: string }
  | { kind: 'reserved'; payment: string | null };

/**
 * A refund takes the sale's split back from its destination wallets as it reserves the
 * amount (movement: the call), and gives it back if the refund is released.
 */
async function takeBack(trx: Tx, call: GatewayCall, outbox: Outbox, now: Date, movementId = call.id) {
  const sale = (await getSale(trx, null, call.subject_id))!.row;
  await takeBackDestinations(trx, outbox, { sale, amount: call.amount, movementId, now });
}

/**
 * Reserves a sale action: the amounts move now (so concurrent actions see them moved and
 * cannot exceed them), with the gateway call that will carry it, in one transaction.
 */
export async function reserveSaleAction(
  db: Db,
  a: { call: GatewayCall; action: SaleAction; now: Date; outbox: Outbox },
): Promise<Reservation> {
  return rollbackOn<Reservation, Reservation>(db, async (trx) => {
    if (!(await moveAmounts(trx, a.call.subject_id, a.action, a.call.amount, a.now))) return { kind: 'conflict' } as const;
    await insertCall(trx, a.call);
    if (a.action === 'refund') {
      try {
        await takeBack(trx, a.call, a.outbox, a.now);
      } catch (err) {
        if (err instanceof PostingRefused) throw new Rollback<Reservation>({ kind: 'refused', wallet: err.wallet });
        throw err;
      }
    }
    // The payment's own gateway reference: the sale's first operation made it.
    const first = await trx
      .selectFrom('sale_operations')
      .select('gateway_reference')
      .where('sale_id', '=', a.call.subject_id)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return { kind: 'reserved', payment: first?.gateway_reference ?? null } as const;
  });
}

/** The gateway did it: the operation and its event, once (null: another process recorded it). */
export async function recordSaleAction(
  db: Db,
  r: { call: GatewayCall; action: SaleAction; gatewayReference: string; now: Date; outbox: Outbox; from?: 'pending' | 'abandoned' },
): Promise<StoredSale | null> {
  const saleId = r.call.subject_id;
  return rollbackOn<StoredSale | null, null>(db, async (trx) => {
    if (!(await settleCall(trx, r.call.id, [r.from ?? 'pending'], 'succeeded', r.now, { resultId: saleId }))) return null;
    // An abandoned call's amounts were moved back when it was abandoned: move them again, if they still allow it.
    if (r.from === 'abandoned') {
      if (!(await moveAmounts(trx, saleId, r.action, r.call.amount, r.now))) throw new Rollback(null);
      if (r.action === 'refund') {
        try {
          await takeBack(trx, r.call, r.outbox, r.now, uuidv7(r.now.getTime()));
        } catch (err) {
          if (err instanceof PostingRefused) throw new Rollback(null);
          throw err;
        }
      }
    }
    await addOperation(trx, saleId, r.action, r.call.amount, r.gatewayReference, r.now);
    await r.outbox.emit(trx, ACTION_EVENTS[r.action], saleId, r.now);
    return (await getSale(trx, null, saleId))!;
  });
}

/** The gateway did not do it (failed) or did not answer (abandoned): the amounts move back. */
export async function releaseSaleAction(
  db: Db,
  r: { call: GatewayCall; action: SaleAction; state: 'failed' | 'abandoned'; now: Date; outbox: Outbox },
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const checkAt = r.state === 'abandoned' ? r.now : null;
    if (!(await settleCall(trx, r.call.id, ['pending'], r.state, r.now, { checkAt }))) return false;
    await moveAmounts(trx, r.call.subject_id, r.action, r.call.amount, r.now, true);
    if (r.action === 'refund') {
      await reverseMovement(trx, r.outbox, { movementId: r.call.id, reversalId: uuidv7(r.now.getTime()), concept: 'refund not made', now: r.now });
    }
    return true;
  });
}

export function getAuthorization(db: Db, environmentId: string | null, id: string) {
  let query = db.selectFrom('authorizations').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  return query.executeTakeFirst();
}

export async function listAuthorizations(
  db: Db,
  environmentId: string,
  f: { status?: AuthorizationRow['status']; transaction_id?: string },
  page: Page,
) {
  let query = db.selectFrom('authorizations').where('environment_id', '=', environmentId);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.transaction_id !== undefined) query = query.where('transaction_id', '=', f.transaction_id);
  return countAndPage<AuthorizationRow>(query, page);
}

/** A stored card: the authorization, its event and its call's success, once (false: recorded elsewhere). */
export async function recordStoredCard(db: Db, callId: string, row: AuthorizationRow, outbox: Outbox, now: Date): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await settleCall(trx, callId, ['pending'], 'succeeded', now, { resultId: row.id }))) return false;
    await trx.insertInto('authorizations').values(row).execute();
    await outbox.emit(trx, 'authorization.created', row.id, now);
    return true;
  });
}

/** A call that moved nothing in our books (a store, a charge): only its state changes. */
export async function settleCallOnly(db: Db, callId: string, state: 'failed' | 'abandoned', now: Date): Promise<boolean> {
  return inTransaction(db, (trx) => settleCall(trx, callId, ['pending'], state, now, { checkAt: state === 'abandoned' ? now : null }));
}

/** active → removed, once. */
export async function removeAuthorization(db: Db, environmentId: string, id: string, now: Date, outbox: Outbox) {
  const at = now.toISOString();
  return inTransaction(db, async (trx) => {
    const result = await trx
      .updateTable('authorizations')
      .set({ status: 'removed', updated_at: at })
      .where('environment_id', '=', environmentId)
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await outbox.emit(trx, 'authorization.removed', id, now);
    return true;
  });
}

export type ChargeOutcome =
  | { kind: 'approved'; sale: StoredSale }
  | { kind: 'declined'; sale: StoredSale; outcome: 'declined' | 'insufficient_funds' };

/**
 * Reserves a charge of an authorization: only an active one (a no-op UPDATE that only an
 * active one matches, which also orders it against a concurrent remove), with its call.
 */
export async function reserveCharge(db: Db, call: GatewayCall): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const active = await trx
      .updateTable('authorizations')
      .set((eb) => ({ status: eb.ref('status') }))
      .where('id', '=', call.subject_id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(active.numUpdatedRows) !== 1) return false;
    await insertCall(trx, call);
    return true;
  });
}

/**
 * The gateway's answer to a charge: a captured sale, or a declined one that records the
 * attempt, once (null: another process recorded it).
 */
export async function recordCharge(
  db: Db,
  c: {
    call: GatewayCall;
    result: { outcome: 'approved'; reference: string } | { outcome: 'declined' | 'insufficient_funds' };
    now: Date;
    outbox: Outbox;
  },
): Promise<ChargeOutcome | null> {
  const at = c.now.toISOString();
  const approved = c.result.outcome === 'approved';
  return inTransaction(db, async (trx) => {
    const saleId = uuidv7(c.now.getTime());
    if (!(await settleCall(trx, c.call.id, ['pending'], approved ? 'succeeded' : 'failed', c.now, { resultId: saleId }))) return null;
    const auth = (await getAuthorization(trx, null, c.call.subject_id))!;
    const sale: SaleRow = {
      id: saleId,
      environment_id: auth.environment_id,
      transaction_id: null,
      authorization_id: auth.id,
      gateway_id: auth.gateway_id,
      currency: c.call.currency,
      amount: c.call.amount,
      held: 0,
      captured: approved ? c.call.amount : 0,
      refunded: 0,
      voided: 0,
      description: (c.call.request.description as string | null | undefined) ?? null,
      card_brand: auth.card_brand,
      card_last4: auth.card_last4,
      notify_url: auth.notify_url,
      failure: c.result.outcome === 'approved' ? null : c.result.outcome,
      source_transaction_id: null,
      // Dated when the charge was reserved and sent, not when its answer was recorded: a
      // charge reserved before a removal (or recorded late by reconciliation) happened then.
      created_at: c.call.created_at,
      updated_at: at,
    };
    await trx.insertInto('sales').values(sale).execute();
    const reference = c.result.outcome === 'approved' ? c.result.reference : null;
    await addOperation(trx, sale.id, approved ? 'charge' : 'decline', c.call.amount, reference, c.now);
    if (approved) {
      await trx.updateTable('authorizations').set({ updated_at: at }).where('id', '=', auth.id).execute();
      await c.outbox.emit(trx, 'sale.created', sale.id, c.now);
      await c.outbox.emit(trx, 'authorization.charged', auth.id, c.now);
    } else {
      await c.outbox.emit(trx, 'sale.declined', sale.id, c.now);
    }
    const stored = (await getSale(trx, null, sale.id))!;
    return c.result.outcome === 'approved' ? { kind: 'approved', sale: stored } : { kind: 'declined', sale: stored, outcome: c.result.outcome };
  });
}
