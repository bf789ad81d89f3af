import { MERCHANT_INITIATED } from '../domain/authentication';
import { isSourceSale, NOT_PROCESSED, type SaleStatus } from '../domain/sales';
import { sql } from 'kysely';
import { uuidv7 } from '../domain/ids';
import { insertRows } from './compiled';
import { forUpdate } from './locking';
import { type Db, inTransaction, type Tx } from './db';
import { feesOfSales } from './balance';
import type { Outbox } from './events';
import { type GatewayCall, insertCall, settleCall, settleCallWithResult } from './gateway-calls';
import { countAndPage, type Page } from './paging';
import { addOperation } from './sale-amounts';
import type { AuthorizationRow, SaleOperationRow, SaleRow } from './schema';
import { type SourceOfSale, sourcesOfSales } from './source-sales';
import { settlePendingSale } from './unknown-outcomes';
import { newSaleRow } from './new-sale';

// Sales and authorizations after the payment. Every money movement is two database
// transactions around a gateway call made outside both (server/payments/): a reservation
// that starts with a conditional UPDATE (the condition is the action's rule, so it holds
// under any concurrency, on both engines and across processes) and a record of the
// answer, each settling the call's row exactly once.

export interface StoredSale {
  row: SaleRow;
  operations: SaleOperationRow[];
  /** The fees its balance transactions took so far, minor units (store/balance.ts). */
  fee: number;
  /** A source payment's sale: its sources, in the transaction's order. */
  sources?: SourceOfSale[];
}

export async function getSale(db: Db, environmentId: string | null, id: string): Promise<StoredSale | undefined> {
  let query = db.selectFrom('sales').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const operations = await db.selectFrom('sale_operations').selectAll().where('sale_id', '=', id).orderBy('id').execute();
  const sources = isSourceSale(row) ? ((await sourcesOfSales(db, [id])).get(id) ?? []) : undefined;
  return { row, operations, fee: (await feesOfSales(db, [id])).get(id) ?? 0, ...(sources ? { sources } : {}) };
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
  // saleStatus() in SQL: each status is the conjunction of the rules before it failing;
  // `held` is what is still held (stillHeld: the free hold and what is being captured or voided).
  if (f.status !== undefined) {
    const settled = query.where('pending', '=', 0);
    const ok = (q: typeof query) => q.where('pending', '=', 0).where('failure', 'is', null);
    const held = sql<number>`(held + capturing + voiding)`;
    switch (f.status) {
      case 'pending':
        query = query.where('pending', '>', 0);
        break;
      case 'failed':
        query = settled.where('failure', '=', NOT_PROCESSED);
        break;
      case 'declined':
        query = settled.where('failure', 'is not', null).where('failure', '!=', NOT_PROCESSED);
        break;
      case 'held':
        query = ok(query).where(held, '>', 0).where('captured', '=', 0);
        break;
      case 'partially_captured':
        query = ok(query).where(held, '>', 0).where('captured', '>', 0);
        break;
      case 'voided':
        query = ok(query).where(held, '=', 0).where('captured', '=', 0).where('voided', '>', 0);
        break;
      case 'captured':
        query = ok(query)
          .where(held, '=', 0)
          .where('refunded', '=', 0)
          .where((eb) => eb.or([eb('captured', '>', 0), eb('voided', '=', 0)]));
        break;
      case 'partially_refunded':
        query = ok(query).where(held, '=', 0).where('refunded', '>', 0).where((eb) => eb('refunded', '<', eb.ref('captured')));
        break;
      case 'refunded':
        query = ok(query).where(held, '=', 0).where('refunded', '>', 0).where((eb) => eb('refunded', '=', eb.ref('captured')));
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
  const fees = await feesOfSales(
    db,
    rows.map((r) => r.id),
  );
  const sources = await sourcesOfSales(db, rows.filter(isSourceSale).map((r) => r.id));
  const item = (row: SaleRow): StoredSale => ({
    row,
    operations: operations.filter((o) => o.sale_id === row.id),
    fee: fees.get(row.id) ?? 0,
    ...(isSourceSale(row) ? { sources: sources.get(row.id) ?? [] } : {}),
  });
  return { count, rows: rows.map(item) };
}

/** A sale's row alone. */
export function saleRow(db: Db, id: string): Promise<SaleRow | undefined> {
  return db.selectFrom('sales').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The payment's own gateway reference: the one the sale's first operation made. */
export async function paymentReference(db: Db, saleId: string): Promise<string | null> {
  const first = await db.selectFrom('sale_operations').select('gateway_reference').where('sale_id', '=', saleId).orderBy('id').limit(1).executeTakeFirst();
  return first?.gateway_reference ?? null;
}

export async function insertAuthorization(trx: Tx, row: AuthorizationRow): Promise<void> {
  await trx.insertInto('authorizations').values(row).execute();
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
    // Shown as pending while the outcome was unknown: the same id becomes the stored card.
    const { id, created_at: _, ...stored } = row;
    // Or waiting for its customer on the hosted page, or for the issuer's challenge (store/saved-cards.ts).
    // Or a hosted page that expired while this store was sent: the gateway stored the card, so the record says so.
    const waiting = ['pending', 'requires_action', 'expired'] as const;
    const filled = await trx.updateTable('authorizations').set(stored).where('id', '=', id).where('status', 'in', waiting).executeTakeFirst();
    if (Number(filled.numUpdatedRows) === 0) await trx.insertInto('authorizations').values(row).execute();
    await outbox.emit(trx, 'authorization.created', row.id, now);
    return true;
  });
}

/**
 * The gateway did not store the card: the call failed and, if it was shown as a pending
 * authorization (or one waiting for its challenge), that one ends `failed` with its event;
 * a hosted page's goes back to `pending` for another card. false when settled elsewhere.
 */
export async function failStoredCard(db: Db, call: { id: string; subject_id: string }, now: Date, outbox: Outbox): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await settleCall(trx, call.id, ['pending'], 'failed', now))) return false;
    const at = now.toISOString();
    const failed = await trx
      .updateTable('authorizations')
      .set({ status: 'failed', gateway_challenge: null, updated_at: at })
      .where('id', '=', call.subject_id)
      .where('status', 'in', ['pending', 'requires_action'])
      .where('hosted_page', '=', 0)
      .executeTakeFirst();
    if (Number(failed.numUpdatedRows) === 1) await outbox.emit(trx, 'authorization.failed', call.subject_id, now);
    // A hosted page's authorization stays open: its customer may give another card.
    else await trx.updateTable('authorizations').set({ status: 'pending', gateway_challenge: null, updated_at: at }).where('id', '=', call.subject_id).where('status', '=', 'requires_action').execute();
    return true;
  });
}

/** A call that moved nothing in our books (a store, a charge): only its state changes. */
export async function settleCallOnly(db: Db, callId: string, state: 'failed' | 'abandoned', now: Date): Promise<boolean> {
  return inTransaction(db, (trx) => settleCall(trx, callId, ['pending'], state, now, { checkAt: state === 'abandoned' ? now : null }));
}

/**
 * active → removed, once. The row is locked before the clock is read: a charge reserved
 * first (reserveCharge takes the same row) is then dated no later than the removal, so
 * `updated` of a removed authorization bounds every sale it will ever have.
 */
export async function removeAuthorization(db: Db, environmentId: string, id: string, clock: () => Date, outbox: Outbox) {
  return inTransaction(db, async (trx) => {
    const current = await forUpdate(trx, trx.selectFrom('authorizations').select('status').where('environment_id', '=', environmentId).where('id', '=', id)).executeTakeFirst();
    if (current?.status !== 'active') return false;
    const now = clock();
    await trx.updateTable('authorizations').set({ status: 'removed', updated_at: now.toISOString() }).where('id', '=', id).execute();
    await outbox.emit(trx, 'authorization.removed', id, now);
    return true;
  });
}

export type ChargeOutcome =
  | { kind: 'approved'; sale: StoredSale }
  | { kind: 'declined'; sale: StoredSale; outcome: 'declined' | 'insufficient_funds' }
  /** Its outcome was unknown (a pending sale) and the gateway never made it: the sale ends `failed`. */
  | { kind: 'not_processed'; sale: StoredSale };

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
    result: { outcome: 'approved'; reference: string } | { outcome: 'declined' | 'insufficient_funds' | 'not_processed' };
    now: Date;
    outbox: Outbox;
  },
): Promise<ChargeOutcome | null> {
  const at = c.now.toISOString();
  const approved = c.result.outcome === 'approved';
  // A success told after the settle window had failed the call (a notification): recorded into its failed sale, for the caller to reverse.
  const late = approved && c.call.state === 'failed';
  return inTransaction(db, async (trx) => {
    // A charge whose outcome was unknown already has its (pending, or since failed) sale: recorded
    // into it. Never made, and nothing shown for it yet: the call ends, and no sale.
    const newSale = c.result.outcome === 'not_processed' ? null : uuidv7(c.now.getTime());
    const settled = await settleCallWithResult(trx, c.call.id, [late ? 'failed' : 'pending'], approved ? 'succeeded' : 'failed', c.now, newSale);
    if (!settled?.resultId) return null;
    const saleId = settled.resultId;
    const pendingSale = saleId === newSale ? null : saleId;
    // Approved, the authorization moves on (updated_at): its row as that leaves it names the
    // sale's card and is the event's snapshot, one statement rather than a read and an update.
    const auth = approved
      ? (await trx.updateTable('authorizations').set({ updated_at: at }).where('id', '=', c.call.subject_id).returningAll().executeTakeFirst())!
      : (await getAuthorization(trx, null, c.call.subject_id))!;
    const sale = newSaleRow({
      id: saleId,
      environment_id: auth.environment_id,
      authorization_id: auth.id,
      gateway_id: auth.gateway_id,
      currency: c.call.currency,
      amount: c.call.amount,
      captured: approved ? c.call.amount : 0,
      description: (c.call.request.description as string | null | undefined) ?? null,
      card_brand: auth.card_brand,
      card_last4: auth.card_last4,
      notify_url: auth.notify_url,
      failure: c.result.outcome === 'approved' ? null : c.result.outcome,
      // A charge for a transaction's `source` is linked to it as it is recorded (live or by reconciliation).
      source_transaction_id: (c.call.request.source_transaction_id as string | undefined) ?? null,
      // The merchant starts every charge of a stored card: never challenged (the cardholder
      // authenticated when it was stored), and marked so for the issuer.
      authentication_status: MERCHANT_INITIATED.status,
      authentication_method: MERCHANT_INITIATED.method,
      // Dated when the charge was reserved and sent, not when its answer was recorded: a
      // charge reserved before a removal (or recorded late by reconciliation) happened then.
      created_at: c.call.created_at,
      updated_at: at,
    });
    if (late && pendingSale) await trx.updateTable('sales').set({ captured: sale.captured, failure: null, updated_at: at }).where('id', '=', saleId).execute();
    else if (pendingSale) await settlePendingSale(trx, saleId, { captured: sale.captured, failure: sale.failure }, c.now);
    else await insertRows(trx, 'sales', [sale]);
    const reference = c.result.outcome === 'approved' ? c.result.reference : null;
    const operation = c.result.outcome === 'not_processed' ? null : await addOperation(trx, sale.id, approved ? 'charge' : 'decline', c.call.amount, reference, c.now);
    // The sale as it is now is both the answer and its event's snapshot. One inserted here
    // is what was just written: its row, this operation and no fee yet (a balance
    // transaction follows the operation later), so it is not read back.
    const stored = pendingSale || !operation ? (await getSale(trx, null, sale.id))! : { row: sale, operations: [operation], fee: 0 };
    if (approved) {
      await c.outbox.emit(trx, late && pendingSale ? 'sale.late_payment' : 'sale.created', sale.id, c.now, { sale: stored });
      await c.outbox.emit(trx, 'authorization.charged', auth.id, c.now, { authorization: auth });
    } else {
      await c.outbox.emit(trx, c.result.outcome === 'not_processed' ? 'sale.failed' : 'sale.declined', sale.id, c.now, { sale: stored });
    }
    if (c.result.outcome === 'approved') return { kind: 'approved', sale: stored };
    if (c.result.outcome === 'not_processed') return { kind: 'not_processed', sale: stored };
    return { kind: 'declined', sale: stored, outcome: c.result.outcome };
  });
}
