import { type SaleAction, type SaleStatus } from '../domain/sales';
import { uuidv7 } from '../domain/ids';
import type { ActionResult, PayResult } from '../payments/gateway';
import { type Db, inTransaction, type Tx } from './db';
import type { Outbox } from './events';
import { PostingRefused } from './ledger';
import { countAndPage, type Page } from './paging';
import type { AuthorizationRow, SaleOperationRow, SaleRow } from './schema';

// Sales and authorizations after the payment. Every action is one database transaction
// that starts with a conditional UPDATE: the condition is the action's rule, so it holds
// under any concurrency, on both engines and across processes. The gateway is called
// inside that transaction, after the UPDATE has locked the row: actions on one object
// reach the gateway one at a time, and a gateway refusal rolls everything back.

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

/** Thrown inside a database transaction to roll it back with a result for the caller. */
class Abort<T> extends Error {
  constructor(readonly result: T) {
    super('rolled back');
  }
}

async function rollbackOn<T, R>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T | R> {
  try {
    return await inTransaction(db, fn);
  } catch (err) {
    if (err instanceof Abort) return err.result as R;
    throw err;
  }
}

export type ActionOutcome =
  | { kind: 'done'; sale: StoredSale }
  | { kind: 'conflict' }
  /** A destination wallet of the sale does not hold its part of a refund. */
  | { kind: 'refused'; wallet: string }
  | { kind: 'gateway_failed'; reason: string };

function addOperation(trx: Tx, saleId: string, kind: string, amount: number, reference: string | null, now: Date, id = uuidv7(now.getTime())) {
  return trx
    .insertInto('sale_operations')
    .values({ id, sale_id: saleId, kind, amount, gateway_reference: reference, created_at: now.toISOString() })
    .execute();
}

const ACTION_EVENTS = { capture: 'sale.captured', refund: 'sale.refunded', void: 'sale.voided' } as const;

/**
 * Moves `amount` (minor units, > 0) by `action`, or nothing: 'conflict' when the amounts
 * no longer allow it at the moment of the UPDATE, 'gateway_failed' when the gateway says no.
 */
export async function applySaleAction(
  db: Db,
  a: {
    saleId: string;
    action: SaleAction;
    amount: number;
    now: Date;
    outbox: Outbox;
    gateway: (reference: string | null, amount: number) => Promise<ActionResult>;
    /** Ledger postings of the action, after the amounts moved and before the gateway is called. */
    ledger?: (trx: Tx, sale: SaleRow, operationId: string) => Promise<void>;
  },
): Promise<ActionOutcome> {
  const at = a.now.toISOString();
  return rollbackOn(db, async (trx) => {
    const x = a.amount;
    const update = trx.updateTable('sales').where('id', '=', a.saleId).where('failure', 'is', null);
    const changed =
      a.action === 'refund'
        ? update
            .set((eb) => ({ refunded: eb('refunded', '+', x), updated_at: at }))
            .where((eb) => eb('captured', '>=', eb('refunded', '+', x)))
        : a.action === 'capture'
          ? update.set((eb) => ({ held: eb('held', '-', x), captured: eb('captured', '+', x), updated_at: at })).where('held', '>=', x)
          : update.set((eb) => ({ held: eb('held', '-', x), voided: eb('voided', '+', x), updated_at: at })).where('held', '>=', x);
    const result = await changed.executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return { kind: 'conflict' } as const;
    const operationId = uuidv7(a.now.getTime());
    if (a.ledger) {
      try {
        await a.ledger(trx, (await getSale(trx, null, a.saleId))!.row, operationId);
      } catch (err) {
        if (err instanceof PostingRefused) throw new Abort<ActionOutcome>({ kind: 'refused', wallet: err.wallet });
        throw err;
      }
    }

    // The payment's own gateway reference: the sale's first operation made it.
    const first = await trx
      .selectFrom('sale_operations')
      .select('gateway_reference')
      .where('sale_id', '=', a.saleId)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    const gateway = await a.gateway(first?.gateway_reference ?? null, x);
    if (!gateway.ok) throw new Abort<ActionOutcome>({ kind: 'gateway_failed', reason: gateway.reason });
    await addOperation(trx, a.saleId, a.action, x, gateway.reference, a.now, operationId);
    await a.outbox.emit(trx, ACTION_EVENTS[a.action], a.saleId, a.now);
    return { kind: 'done', sale: (await getSale(trx, null, a.saleId))! } as const;
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
  f: { status?: string; transaction_id?: string },
  page: Page,
) {
  let query = db.selectFrom('authorizations').where('environment_id', '=', environmentId);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.transaction_id !== undefined) query = query.where('transaction_id', '=', f.transaction_id);
  return countAndPage<AuthorizationRow>(query, page);
}

export async function insertAuthorization(db: Db, row: AuthorizationRow, outbox: Outbox, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.insertInto('authorizations').values(row).execute();
    await outbox.emit(trx, 'authorization.created', row.id, now);
  });
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
  | { kind: 'not_active' }
  | { kind: 'approved'; sale: StoredSale }
  | { kind: 'declined'; sale: StoredSale; outcome: 'declined' | 'insufficient_funds' };

/**
 * Charges an active authorization: a captured sale, or a declined one that records the
 * attempt. Takes the authorization's row first (a no-op UPDATE that only an active one
 * matches), so a concurrent remove waits for the charge or the charge sees it removed.
 */
export async function chargeAuthorization(
  db: Db,
  c: {
    authorization: AuthorizationRow;
    amount: number;
    currency: string;
    description: string | null;
    now: Date;
    outbox: Outbox;
    gateway: (reference: string) => Promise<Exclude<PayResult, { outcome: 'redirect' }>>;
  },
): Promise<ChargeOutcome> {
  const at = c.now.toISOString();
  const auth = c.authorization;
  return inTransaction(db, async (trx) => {
    const active = await trx
      .updateTable('authorizations')
      .set((eb) => ({ status: eb.ref('status') }))
      .where('id', '=', auth.id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(active.numUpdatedRows) !== 1) return { kind: 'not_active' } as const;

    const result = await c.gateway(auth.gateway_reference);
    const approved = result.outcome === 'approved';
    const sale: SaleRow = {
      id: uuidv7(c.now.getTime()),
      environment_id: auth.environment_id,
      transaction_id: null,
      authorization_id: auth.id,
      gateway_id: auth.gateway_id,
      currency: c.currency,
      amount: c.amount,
      held: 0,
      captured: approved ? c.amount : 0,
      refunded: 0,
      voided: 0,
      description: c.description,
      card_brand: auth.card_brand,
      card_last4: auth.card_last4,
      notify_url: auth.notify_url,
      failure: approved ? null : result.outcome,
      created_at: at,
      updated_at: at,
    };
    await trx.insertInto('sales').values(sale).execute();
    await addOperation(trx, sale.id, approved ? 'charge' : 'decline', c.amount, approved ? result.reference : null, c.now);
    if (approved) {
      await trx.updateTable('authorizations').set({ updated_at: at }).where('id', '=', auth.id).execute();
      await c.outbox.emit(trx, 'sale.created', sale.id, c.now);
      await c.outbox.emit(trx, 'authorization.charged', auth.id, c.now);
    } else {
      await c.outbox.emit(trx, 'sale.declined', sale.id, c.now);
    }
    const stored = (await getSale(trx, null, sale.id))!;
    return approved ? { kind: 'approved', sale: stored } : { kind: 'declined', sale: stored, outcome: result.outcome };
  });
}
