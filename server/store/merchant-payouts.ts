import type { ExpressionBuilder } from 'kysely';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../domain/ids';
import { PAYOUT_TYPES } from '../domain/merchant-payouts';
import type { PayoutState } from '../domain/sepa/states';
import { insertBalanceTransaction, takePayoutLines } from './balance';
import type { Db, Tx } from './db';
import { claimEach, forUpdate } from './locking';
import { countAndPage, type Page } from './paging';
import type { BalanceTransactionRow, MerchantPayoutRow, MerchantPayoutSettingsRow, Tables } from './schema';

// The rows of the merchant's payouts (docs/balance.md#payouts; made and settled by
// payments/merchant-payouts.ts): a payout's row (unique per environment, currency and
// period), its lines (the available balance transactions nobody has paid out, marked with
// its id by one conditional UPDATE, so two payouts never share a line), its own balance
// transactions (both written by store/balance.ts, their table's one writer), and its
// settlement, once (a conditional update of the status).

export type PayoutSettings = Pick<MerchantPayoutSettingsRow, 'iban' | 'schedule' | 'account_holder_name' | 'payouts_held_until'> & { updated_at: string | null };

export async function payoutSettingsOf(db: Db, environmentId: string): Promise<PayoutSettings> {
  const row = await db.selectFrom('merchant_payout_settings').selectAll().where('environment_id', '=', environmentId).executeTakeFirst();
  return row ?? { iban: null, schedule: 'manual', account_holder_name: null, payouts_held_until: null, updated_at: null };
}

/** When a new bank account's hold ends by itself, while it holds payouts at `now`; null: none holds them. */
export const heldUntil = (s: Pick<PayoutSettings, 'payouts_held_until'>, now: Date): string | null =>
  s.payouts_held_until !== null && s.payouts_held_until > now.toISOString() ? s.payouts_held_until : null;

/** Sets the settings; a hold left out (`payouts_held_until` undefined) stays as it is. */
export async function setPayoutSettings(
  db: Db,
  environmentId: string,
  s: Pick<MerchantPayoutSettingsRow, 'iban' | 'schedule' | 'account_holder_name'> & { payouts_held_until?: string | null },
  now: Date,
): Promise<PayoutSettings> {
  const set = { ...s, updated_at: now.toISOString() };
  await db
    .insertInto('merchant_payout_settings')
    .values({ environment_id: environmentId, payouts_held_until: null, ...set })
    .onConflict((oc) => oc.column('environment_id').doUpdateSet(set))
    .execute();
  return payoutSettingsOf(db, environmentId);
}

/** The hold `heldUntil` of the environment's bank account ended (a confirm link's, store/payout-account-links.ts); a newer hold stays. */
export async function endPayoutHold(trx: Tx, environmentId: string, heldUntil: string): Promise<void> {
  await trx
    .updateTable('merchant_payout_settings')
    .set({ payouts_held_until: null })
    .where('environment_id', '=', environmentId)
    .where('payouts_held_until', '=', heldUntil)
    .execute();
}

/** Environments whose schedule pays out by itself, with their bank account; those whose new account is held at `now` left out. */
export function scheduledEnvironments(db: Db, now: Date): Promise<{ environment_id: string; iban: string; schedule: 'daily' | 'weekly'; account_holder_name: string | null }[]> {
  return db
    .selectFrom('merchant_payout_settings')
    .select(['environment_id', 'iban', 'schedule', 'account_holder_name'])
    .where('schedule', '!=', 'manual')
    .where('iban', 'is not', null)
    .where((eb) => eb.or([eb('payouts_held_until', 'is', null), eb('payouts_held_until', '<=', now.toISOString())]))
    .orderBy('environment_id')
    .$narrowType<{ iban: string; schedule: 'daily' | 'weekly' }>()
    .execute();
}

/** Balance transactions that are due in a payout: available by `at` and not paid out yet. */
const payable = (environmentId: string, currency: string | null, at: string) => (eb: ExpressionBuilder<Tables, 'balance_transactions'>) =>
  eb.and([
    eb('environment_id', '=', environmentId),
    ...(currency ? [eb('currency', '=', currency)] : []),
    eb('payout_id', 'is', null),
    eb('available_on', '<=', at),
  ]);

/** Per currency, what a payout made now would pay (only positive sums), leaving out currencies with a payout in `period`. */
export async function payableByCurrency(db: Db, environmentId: string, now: Date, period?: string): Promise<{ currency: string; amount: bigint }[]> {
  let query = db
    .selectFrom('balance_transactions')
    .select((eb) => ['currency', eb.fn.sum<number | string>('net').as('amount')])
    .where(payable(environmentId, null, now.toISOString()));
  if (period !== undefined) {
    query = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('merchant_payouts as p')
            .select('p.id')
            .where('p.environment_id', '=', environmentId)
            .where('p.period', '=', period)
            .whereRef('p.currency', '=', 'balance_transactions.currency'),
        ),
      ),
    );
  }
  const rows = await query.groupBy('currency').orderBy('currency').execute();
  return rows.map((r) => ({ currency: r.currency, amount: BigInt(r.amount) })).filter((r) => r.amount > 0n);
}

/**
 * Inserts a payout's row, unique per environment, currency and period; false when the
 * period has its payout already. Written first in its transaction: on SQLite that takes the
 * one write lock at once (a transaction that read first could not take it while another
 * process writes); on PostgreSQL a second payout of the period waits for the first.
 */
export async function insertPayout(trx: Tx, row: MerchantPayoutRow): Promise<boolean> {
  const inserted = await trx
    .insertInto('merchant_payouts')
    .values(row)
    .onConflict((oc) => oc.columns(['environment_id', 'currency', 'period']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** The balance transactions a payout in `currency` would pay, read FOR UPDATE: a payout made at the same time waits, then finds them taken. */
export function payableLines(trx: Tx, environmentId: string, currency: string, now: Date): Promise<{ id: string; net: number }[]> {
  return forUpdate(trx, trx.selectFrom('balance_transactions').select(['id', 'net']).where(payable(environmentId, currency, now.toISOString())).orderBy('id')).execute();
}

/** Removes a payout that pays nothing. By hand rather than by a rollback: under an Idempotency-Key it runs inside the key's transaction. */
export async function deletePayout(trx: Tx, id: string): Promise<void> {
  await trx.deleteFrom('merchant_payouts').where('id', '=', id).execute();
}

/** A payout's amount and lines, with its lines marked as its own. */
export async function fillPayout(trx: Tx, payout: MerchantPayoutRow, lineIds: string[]): Promise<void> {
  await trx.updateTable('merchant_payouts').set({ amount: payout.amount, line_count: payout.line_count }).where('id', '=', payout.id).execute();
  await takePayoutLines(trx, payout.id, lineIds);
}

/** The payout's own balance transaction: its money leaving the balance, or coming back. */
export async function recordPayoutBalance(trx: Tx, payout: MerchantPayoutRow, type: (typeof PAYOUT_TYPES)[number], net: bigint, now: Date) {
  const at = now.toISOString();
  const row: BalanceTransactionRow = {
    ...{ id: uuidv7(now.getTime()), environment_id: payout.environment_id, type, sale_id: null, dispute_id: null, payout_id: payout.id, operation_id: null },
    ...{ currency: payout.currency, amount: Number(net), fee: 0, net: Number(net), available_on: at, created_at: at },
  };
  await insertBalanceTransaction(trx, row);
}

/**
 * Claims up to `limit` pending payouts until `now + leaseMs`, as the wallets' payouts are
 * claimed (store/transfers.ts): candidates read with SKIP LOCKED, then one conditional
 * UPDATE each outside any transaction, so of two processes racing for a payout exactly one
 * gets it, and on SQLite no transaction has to turn a read into a write while another
 * process writes. A process that dies holding one loses it when the lease runs out.
 * `sandboxOnly`: as for the wallets' payouts, live ones wait for a payout file instead.
 */
export async function claimPendingPayouts(db: Db, now: Date, leaseMs: number, limit: number, sandboxOnly = false): Promise<MerchantPayoutRow[]> {
  const at = now.toISOString();
  const free = (eb: ExpressionBuilder<Tables, 'merchant_payouts'>) =>
    eb.and([
      eb('status', '=', 'pending'),
      eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]),
      ...(sandboxOnly ? [eb('environment_id', 'in', eb.selectFrom('environments').select('id').where('mode', '=', 'sandbox'))] : []),
    ]);
  return claimEach(db, db.selectFrom('merchant_payouts').select('id').where(free).orderBy('id').limit(limit), ({ id }) =>
    db
      .updateTable('merchant_payouts')
      .set({ locked_until: new Date(now.getTime() + leaseMs).toISOString(), claimed_by: randomUUID() })
      .where('id', '=', id)
      .where(free)
      .returningAll()
      .executeTakeFirst(),
  );
}

/** pending → paid, or → failed, once: false when it was settled already. */
export async function markPayoutSettled(trx: Tx, payoutId: string, failure: string | null, now: Date): Promise<boolean> {
  const done = await trx
    .updateTable('merchant_payouts')
    .set({ status: failure ? 'failed' : 'paid', failure, locked_until: null, claimed_by: null, updated_at: now.toISOString() })
    .where('id', '=', payoutId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** Why a pending payout is not in a file yet, or null (store/payout-files.ts setWaitingReason). */
export async function setMerchantPayoutWaitingReason(db: Db, id: string, reason: string | null, now: Date): Promise<void> {
  await db
    .updateTable('merchant_payouts')
    .set({ failure: reason, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('failure', reason === null ? 'is not' : 'is', null)
    .execute();
}

/** A payout's status changed by its file, from the state its reader saw: false when it had changed meanwhile (store/payout-files.ts changePayoutStatus). */
export async function changeMerchantPayoutStatus(trx: Tx, id: string, from: PayoutState, to: PayoutState, failure: string | null, now: Date): Promise<boolean> {
  const done = await trx
    .updateTable('merchant_payouts')
    .set({ status: to, failure, locked_until: null, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

export function getMerchantPayout(db: Db, environmentId: string | null, id: string): Promise<MerchantPayoutRow | undefined> {
  let query = db.selectFrom('merchant_payouts').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  return query.executeTakeFirst();
}

export type PayoutFilters = Partial<Pick<MerchantPayoutRow, 'status' | 'currency'>>;

export function listMerchantPayouts(db: Db, environmentId: string, f: PayoutFilters, page: Page) {
  let query = db.selectFrom('merchant_payouts').where('environment_id', '=', environmentId);
  for (const [column, value] of Object.entries(f)) {
    if (value !== undefined) query = query.where(column as keyof PayoutFilters, '=', value);
  }
  return countAndPage<MerchantPayoutRow>(query, page);
}

/** A payout's lines: the balance transactions it paid out (not its own), newest first. */
export function payoutLines(db: Db, payoutId: string, page: Page) {
  const query = db.selectFrom('balance_transactions').where('payout_id', '=', payoutId).where('type', 'not in', [...PAYOUT_TYPES]);
  return countAndPage<BalanceTransactionRow>(query, page);
}

export interface SettlementRange {
  environmentId: string;
  /** One payout's lines… */
  payoutId?: string;
  /** … or those of the payouts made in [from, to) (ISO times), failed ones left out (their lines went back). */
  from?: string;
  to?: string;
  batch?: number;
}

export type SettlementLine = BalanceTransactionRow & { payout: MerchantPayoutRow };

/**
 * The settlement report's lines, payout by payout (oldest first) and by id within one,
 * read in batches that each start after the last id of the one before, as the dashboard
 * exports are (store/exports.ts): one batch in memory, no cursor held open.
 */
export async function* settlementLines(db: Db, r: SettlementRange): AsyncGenerator<SettlementLine[]> {
  const batch = r.batch ?? 500;
  let payouts = db.selectFrom('merchant_payouts').selectAll().where('environment_id', '=', r.environmentId);
  if (r.payoutId) payouts = payouts.where('id', '=', r.payoutId);
  else payouts = payouts.where('created_at', '>=', r.from!).where('created_at', '<', r.to!).where('status', '!=', 'failed');
  let afterPayout = '';
  for (;;) {
    const some = await payouts.where('id', '>', afterPayout).orderBy('id').limit(50).execute();
    for (const payout of some) {
      let after = '';
      for (;;) {
        const rows = await db
          .selectFrom('balance_transactions')
          .selectAll()
          .where('payout_id', '=', payout.id)
          .where('type', 'not in', [...PAYOUT_TYPES])
          .where('id', '>', after)
          .orderBy('id')
          .limit(batch)
          .execute();
        if (rows.length) yield rows.map((row) => ({ ...row, payout }));
        if (rows.length < batch) break;
        after = rows[rows.length - 1]!.id;
      }
    }
    if (some.length < 50) return;
    afterPayout = some[some.length - 1]!.id;
  }
}
