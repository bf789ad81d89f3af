import type { ExpressionBuilder } from 'kysely';
import { newToken, uuidv7 } from '../domain/ids';
import type { Cadence } from '../domain/periods';
import { actionTarget, ACTION_FROM, CHARGEABLE, type SubscriptionAction, type SubscriptionStatus } from '../domain/subscription-states';
import { resumeSchedule, type Schedule, startSchedule } from '../domain/subscription-schedule';
import { type Db, inTransaction, type Tx } from './db';
import { claimBatch, forUpdate } from './locking';
import { type Merchant, MERCHANT_COLUMNS, splitMerchant } from './environments';
import { countAndPage, type Page } from './paging';
import type { AuthorizationRow, SaleRow, SubscriptionChargeRow, SubscriptionRow, Tables } from './schema';

// Subscriptions' rows: reads, and the one module that writes them (a lint rule keeps it so,
// eslint.config.js): the new row, the spec's actions (row locked, domain/subscription-states.ts
// and subscription-schedule.ts asked, written: actOnSubscription), a period's answer (what
// it changes decided in payments/subscription-period.ts, named and written here: due
// again, charged, failed), a new card's, the scheduler's claim and the trial reminder's mark.

/** A period's charge, with the confirm link of its sale when the issuer wanted the customer (payments/subscription-period.ts). */
export type PeriodCharge = SubscriptionChargeRow & Pick<SaleRow, 'confirm_token' | 'confirm_expires_at'>;

export interface StoredSubscription {
  row: SubscriptionRow;
  charges: PeriodCharge[];
}

const chargesOf = (db: Db, ids: string[]): Promise<PeriodCharge[]> =>
  ids.length
    ? db
        .selectFrom('subscription_charges')
        .leftJoin('sales', 'sales.id', 'subscription_charges.sale_id')
        .selectAll('subscription_charges')
        .select(['sales.confirm_token', 'sales.confirm_expires_at'])
        .where('subscription_charges.subscription_id', 'in', ids)
        .orderBy('subscription_charges.period')
        .execute()
    : Promise.resolve([]);

export async function getSubscription(db: Db, environmentId: string | null, id: string): Promise<StoredSubscription | undefined> {
  let query = db.selectFrom('subscriptions').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  const row = await query.executeTakeFirst();
  return row && { row, charges: await chargesOf(db, [id]) };
}

export interface SubscriptionFilters {
  status?: string;
  plan?: string;
  client?: string;
  subscription_id?: string;
}

export async function listSubscriptions(db: Db, environmentId: string, f: SubscriptionFilters, page: Page) {
  let query = db.selectFrom('subscriptions').where('environment_id', '=', environmentId);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.plan !== undefined) query = query.where('plan_ref', '=', f.plan);
  if (f.client !== undefined) query = query.where('client_ref', '=', f.client);
  if (f.subscription_id !== undefined) query = query.where('subscription_id', '=', f.subscription_id);
  const { count, rows } = await countAndPage<SubscriptionRow>(query, page);
  const charges = await chargesOf(db, rows.map((r) => r.id));
  return { count, rows: rows.map((row) => ({ row, charges: charges.filter((c) => c.subscription_id === row.id) })) };
}

export type NewSubscription = Pick<
  SubscriptionRow,
  | 'environment_id'
  | 'plan_ref'
  | 'plan_name'
  | 'amount'
  | 'currency'
  | 'interval'
  | 'interval_count'
  | 'trial_days'
  | 'client_ref'
  | 'subscription_id'
  | 'authorization_id'
  | 'notify_url'
  | 'return_url'
  | 'cancel_url'
  | 'language'
>;

/** What begins a sign-up page's token: it keeps them apart from transactions' (no prefix) on `/pay/`. */
export const SIGNUP_TOKEN_PREFIX = 'sub_';

export async function insertSubscription(db: Db, s: NewSubscription, now: Date): Promise<SubscriptionRow> {
  const at = now.toISOString();
  const row: SubscriptionRow = {
    ...s,
    id: uuidv7(now.getTime()),
    token: `${SIGNUP_TOKEN_PREFIX}${newToken()}`,
    status: 'waiting',
    started_at: null,
    trial_end: null,
    period: 1,
    anchor_at: null,
    anchor_index: 0,
    failures: 0,
    next_charge_at: null,
    current_period_start: null,
    current_period_end: null,
    paused_at: null,
    stopped_at: null,
    stop_reason: null,
    claimed_until: null,
    claimed_by: null,
    created_at: at,
    updated_at: at,
  };
  await db.insertInto('subscriptions').values(row).execute();
  return row;
}

export const cadenceOf = (row: SubscriptionRow): Cadence => ({ interval: row.interval, intervalCount: row.interval_count });

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function scheduleOf(row: SubscriptionRow): Schedule {
  const date = (s: string | null) => (s === null ? null : new Date(s));
  return {
    period: row.period,
    anchorAt: date(row.anchor_at),
    anchorIndex: row.anchor_index,
    failures: row.failures,
    nextChargeAt: date(row.next_charge_at),
    currentPeriodStart: date(row.current_period_start),
    currentPeriodEnd: date(row.current_period_end),
  };
}

function scheduleColumns(s: Schedule) {
  return {
    period: s.period,
    anchor_at: iso(s.anchorAt),
    anchor_index: s.anchorIndex,
    failures: s.failures,
    next_charge_at: iso(s.nextChargeAt),
    current_period_start: iso(s.currentPeriodStart),
    current_period_end: iso(s.currentPeriodEnd),
  };
}

/** The row as it is now; inside a transaction, as that transaction sees it. */
export function readSubscription(db: Db, id: string, environmentId?: string): Promise<SubscriptionRow | undefined> {
  let query = db.selectFrom('subscriptions').selectAll().where('id', '=', id);
  if (environmentId !== undefined) query = query.where('environment_id', '=', environmentId);
  return query.executeTakeFirst();
}

/** The row, locked until the transaction ends (FOR UPDATE; SQLite has one writer): a charge being recorded finishes first. */
export function lockSubscription(trx: Tx, id: string, environmentId?: string): Promise<SubscriptionRow | undefined> {
  let query = trx.selectFrom('subscriptions').selectAll().where('id', '=', id);
  if (environmentId !== undefined) query = query.where('environment_id', '=', environmentId);
  return forUpdate(trx, query).executeTakeFirst();
}

/** What a conditional update of a subscription expects to find. */
interface SubscriptionExpected {
  status?: SubscriptionStatus | readonly SubscriptionStatus[];
  updatedAt?: string;
  period?: number;
}

/**
 * Writes `changes` only while the row is as expected (its status, its last update, its
 * period): false when another change came first, and nothing is written.
 */
async function updateSubscription(db: Db, id: string, changes: Partial<SubscriptionRow>, expected: SubscriptionExpected = {}): Promise<boolean> {
  let query = db.updateTable('subscriptions').set(changes).where('id', '=', id);
  if (typeof expected.status === 'string') query = query.where('status', '=', expected.status);
  else if (expected.status) query = query.where('status', 'in', expected.status);
  if (expected.updatedAt !== undefined) query = query.where('updated_at', '=', expected.updatedAt);
  if (expected.period !== undefined) query = query.where('period', '=', expected.period);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The scheduler's claim, given back as a period's answer is written. */
const UNCLAIMED = { claimed_until: null, claimed_by: null } as const;

/**
 * An attempt at `period` charged nothing through no fault of the card: the period stays
 * owed, due again at `dueAt`, while the subscription still charges that period.
 */
export function periodDueAgain(trx: Tx, id: string, r: { period: number; dueAt: Date; now: Date }): Promise<boolean> {
  return updateSubscription(trx, id, { next_charge_at: r.dueAt.toISOString(), ...UNCLAIMED, updated_at: r.now.toISOString() }, { period: r.period, status: CHARGEABLE });
}

/** What a charged period changes (payments/subscription-period.ts decides which). */
export type ChargedPeriod =
  /** The schedule as it was reserved: it moves on to `schedule`, and the subscription is active. */
  | { kind: 'moved'; schedule: Schedule }
  /** Paused, stopped or resumed meanwhile: the paid period is recorded, the rest stays. */
  | { kind: 'recorded'; period: number; start: Date | null; end: Date | null };

/** A period charged: written on the row the caller locked. */
export async function recordChargedPeriod(trx: Tx, id: string, charged: ChargedPeriod, now: Date): Promise<void> {
  const changes =
    charged.kind === 'moved'
      ? { ...scheduleColumns(charged.schedule), status: 'active' }
      : { period: charged.period, current_period_start: iso(charged.start), current_period_end: iso(charged.end) };
  await updateSubscription(trx, id, { ...changes, ...UNCLAIMED, updated_at: now.toISOString() });
}

/**
 * A period's attempt refused: the subscription past due on `schedule` (its next retry), or
 * stopped for failed payment when `giveUp`; written on the row the caller locked.
 */
export async function recordFailedPeriod(trx: Tx, id: string, r: { schedule: Schedule; giveUp: boolean; now: Date }): Promise<void> {
  const at = r.now.toISOString();
  const stop = r.giveUp ? { stopped_at: at, stop_reason: 'payment_failed' as const } : {};
  await updateSubscription(trx, id, { ...scheduleColumns(r.schedule), status: r.giveUp ? 'stopped' : 'past_due', ...stop, ...UNCLAIMED, updated_at: at });
}

/** The email the customer gave with a card (a sign-up's, or a new card's): the subscription's own from now on. */
export async function setCustomerEmail(trx: Tx, id: string, email: string): Promise<void> {
  await updateSubscription(trx, id, { customer_email: email });
}

/** A past-due subscription's new card: charged at once. false when it is no longer past due. */
export function chargeNewCard(trx: Tx, id: string, authorizationId: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  return updateSubscription(trx, id, { authorization_id: authorizationId, next_charge_at: at, updated_at: at }, { status: 'past_due' });
}

/** What an allowed action writes, from the row as it is. */
function actionChanges(action: SubscriptionAction, current: SubscriptionRow, now: Date, authorizationId: string | null): Partial<SubscriptionRow> {
  const at = now.toISOString();
  const changes = { status: actionTarget(action, current.trial_days), updated_at: at };
  switch (action) {
    case 'start': {
      const { trialEnd, ...schedule } = startSchedule(now, current.trial_days, current.period);
      return { ...changes, ...scheduleColumns(schedule), started_at: at, trial_end: iso(trialEnd), authorization_id: authorizationId };
    }
    case 'pause':
      return { ...changes, next_charge_at: null, paused_at: at };
    case 'active':
      return { ...changes, ...scheduleColumns(resumeSchedule(now, scheduleOf(current))), paused_at: null };
    case 'stop':
      return { ...changes, next_charge_at: null, stopped_at: at, stop_reason: 'requested' };
  }
}

/** What an action did: `changed` (at `at`, by the clock read after the lock), or why not. */
export type ActionOutcome =
  | { kind: 'changed'; at: Date }
  | { kind: 'not_found' }
  | { kind: 'conflict'; status: SubscriptionStatus }
  | { kind: 'no_payment_method' };

/**
 * One of the spec's actions: the row locked before the clock is read (a period's charge
 * being recorded, or any other change, finishes first, so the action judges the row as that
 * leaves it and is dated after it), domain/subscription-states.ts asked whether the action
 * may move it, domain/subscription-schedule.ts what its schedule becomes, the change written.
 */
export async function actOnSubscription(
  trx: Tx,
  a: { environmentId: string; id: string; action: SubscriptionAction; clock: () => Date; authorizationId?: string },
): Promise<ActionOutcome> {
  const current = await lockSubscription(trx, a.id, a.environmentId);
  if (!current) return { kind: 'not_found' };
  const status = current.status as SubscriptionStatus;
  if (!ACTION_FROM[a.action].includes(status)) return { kind: 'conflict', status };
  const authorizationId = a.authorizationId ?? current.authorization_id;
  if (a.action === 'start' && authorizationId === null) return { kind: 'no_payment_method' };
  const at = a.clock();
  if (!(await updateSubscription(trx, a.id, actionChanges(a.action, current, at, authorizationId), { status, updatedAt: current.updated_at }))) {
    return { kind: 'conflict', status: (await readSubscription(trx, a.id))!.status as SubscriptionStatus };
  }
  return { kind: 'changed', at };
}

/**
 * The card given on the sign-up page waits for its issuer's challenge: the sign-up
 * remembers which authorization (and the email given with the card) until the answer
 * starts it. false when the sign-up was no longer open.
 */
export async function awaitSignupChallenge(
  db: Db,
  a: { subscription: SubscriptionRow; authorizationId: string; customerEmail: string | null; now: Date },
): Promise<boolean> {
  const email = a.customerEmail ? { customer_email: a.customerEmail } : {};
  const set = await inTransaction(db, (trx) =>
    trx
      .updateTable('subscriptions')
      .set({ signup_authorization_id: a.authorizationId, ...email, updated_at: a.now.toISOString() })
      .where('id', '=', a.subscription.id)
      .where((eb) => eb.or([eb.and([eb('status', '=', 'waiting'), eb('authorization_id', 'is', null)]), eb('status', '=', 'past_due')]))
      .executeTakeFirst(),
  );
  return Number(set.numUpdatedRows) === 1;
}

/** The authorization whose challenge the sign-up waits for (awaitSignupChallenge), if any. */
export async function signupChallenge(db: Db, row: SubscriptionRow): Promise<AuthorizationRow | undefined> {
  if (!row.signup_authorization_id) return undefined;
  return db.selectFrom('authorizations').selectAll().where('id', '=', row.signup_authorization_id).where('environment_id', '=', row.environment_id).executeTakeFirst();
}

/** The sign-up that waits for this authorization (awaitSignupChallenge), whatever became of it since. */
export function signupAwaiting(db: Db, authorization: Pick<AuthorizationRow, 'id' | 'environment_id'>): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('signup_authorization_id', '=', authorization.id).where('environment_id', '=', authorization.environment_id).executeTakeFirst();
}

export interface SignupPage {
  row: SubscriptionRow;
  merchant: Merchant;
}

export async function findSignup(db: Db, token: string): Promise<SignupPage | undefined> {
  const found = await db
    .selectFrom('subscriptions')
    .innerJoin('environments', 'environments.id', 'subscriptions.environment_id')
    .selectAll('subscriptions')
    .select(MERCHANT_COLUMNS)
    .where('subscriptions.token', '=', token)
    .executeTakeFirst();
  if (!found) return undefined;
  return splitMerchant(found);
}

// ——— The scheduler's side: claim, reserve, record ———

// ——— The scheduler's claim and the trial reminder's mark ———

/**
 * Claims up to `limit` subscriptions with a period due now, for `leaseMs` (store/locking.ts
 * claimBatch: candidates FOR UPDATE SKIP LOCKED on PostgreSQL, each claim conditional), so
 * two processes never hold the same subscription; a dead process's claim expires.
 */
export function claimDueSubscriptions(db: Db, now: Date, leaseMs: number, limit: number, claimant: string): Promise<SubscriptionRow[]> {
  const due = (eb: ExpressionBuilder<Tables, 'subscriptions'>) => eb.and([eb('status', 'in', CHARGEABLE), eb('next_charge_at', '<=', now.toISOString())]);
  return claimBatch(db, { table: 'subscriptions', due, order: 'next_charge_at', now, until: new Date(now.getTime() + leaseMs), claimant, limit });
}

/**
 * The open sign-up held by `claimant` while it sends one card, until `until` (a process that
 * dies lets it go then): of two posts sent at once one holds it and stores its card, the
 * other finds it held and stores nothing. The scheduler's claim, so a past-due retry and a
 * new card are not sent at the same time either. Given back with releaseClaim.
 */
export async function claimSignup(db: Db, a: { subscription: SubscriptionRow; claimant: string; now: Date; until: Date }): Promise<boolean> {
  const claimed = await inTransaction(db, (trx) =>
    trx
      .updateTable('subscriptions')
      .set({ claimed_until: a.until.toISOString(), claimed_by: a.claimant })
      .where('id', '=', a.subscription.id)
      .where((eb) => eb.or([eb.and([eb('status', '=', 'waiting'), eb('authorization_id', 'is', null)]), eb('status', '=', 'past_due')]))
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', a.now.toISOString())]))
      .executeTakeFirst(),
  );
  return Number(claimed.numUpdatedRows) === 1;
}

export async function releaseClaim(db: Db, id: string, claimant: string): Promise<void> {
  await db.updateTable('subscriptions').set({ claimed_until: null, claimed_by: null }).where('id', '=', id).where('claimed_by', '=', claimant).execute();
}

/**
 * A no-op UPDATE that only a still-chargeable, still-claimed, due row matches: it takes
 * the row's lock, so a concurrent stop or pause commits before this transaction or sees
 * its reservation. false: nothing to charge now (stopped, paused, not due, the claim lost).
 */
export async function holdClaim(trx: Tx, id: string, claimant: string, now: Date): Promise<boolean> {
  const held = await trx
    .updateTable('subscriptions')
    .set((eb) => ({ claimed_by: eb.ref('claimed_by') }))
    .where('id', '=', id)
    .where('claimed_by', '=', claimant)
    .where('status', 'in', CHARGEABLE)
    .where('next_charge_at', '<=', now.toISOString())
    .executeTakeFirst();
  return Number(held.numUpdatedRows) === 1;
}

/** The trial reminder marked sent, once: false when another process marked it first (store/mails.ts claimTrialReminders). */
export async function markReminded(trx: Tx, id: string, at: string): Promise<boolean> {
  const claimed = await trx.updateTable('subscriptions').set({ reminded_at: at }).where('id', '=', id).where('reminded_at', 'is', null).executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
