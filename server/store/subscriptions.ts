import { newToken, uuidv7 } from '../domain/ids';
import type { Cadence } from '../domain/periods';
import { actionTarget, ACTION_FROM, type SubscriptionAction, type SubscriptionStatus } from '../domain/subscription-states';
import { resumeSchedule, type Schedule, startSchedule } from '../domain/subscription-schedule';
import { type Db, inTransaction } from './db';
import { type Merchant, MERCHANT_COLUMNS, splitMerchant } from './environments';
import type { EventType, Outbox } from './events';
import { countAndPage, type Page } from './paging';
import type { AuthorizationRow, SubscriptionChargeRow, SubscriptionRow } from './schema';

// Subscriptions and their charges. Every change is one database transaction guarded by a
// conditional UPDATE whose condition is the rule (the states an action starts from, the
// claim a scheduler holds), so it holds across processes on both engines.

export interface StoredSubscription {
  row: SubscriptionRow;
  charges: SubscriptionChargeRow[];
}

const chargesOf = (db: Db, ids: string[]) =>
  ids.length
    ? db.selectFrom('subscription_charges').selectAll().where('subscription_id', 'in', ids).orderBy('period').execute()
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
  return { count, items: rows.map((row) => ({ row, charges: charges.filter((c) => c.subscription_id === row.id) })) };
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

export async function insertSubscription(db: Db, s: NewSubscription, now: Date): Promise<SubscriptionRow> {
  const at = now.toISOString();
  const row: SubscriptionRow = {
    ...s,
    id: uuidv7(now.getTime()),
    // `sub_` keeps the hosted sign-up's tokens apart from transactions' (32 characters, no prefix).
    token: `sub_${newToken()}`,
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

export const iso = (d: Date | null) => d?.toISOString() ?? null;

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

export function scheduleColumns(s: Schedule) {
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

const ACTION_EVENTS: Record<SubscriptionAction, EventType> = {
  start: 'subscription.started',
  pause: 'subscription.paused',
  active: 'subscription.resumed',
  stop: 'subscription.stopped',
};

export type ActionResult =
  | { kind: 'done'; subscription: StoredSubscription }
  | { kind: 'not_found' }
  | { kind: 'conflict'; status: SubscriptionStatus }
  | { kind: 'no_payment_method' };

/**
 * Applies one of the spec's actions, or nothing. The UPDATE's condition is the set of
 * states the action may start from, and the new values are computed from the row as read
 * in the same transaction: a concurrent action or charge makes the UPDATE match nothing,
 * and the caller is told the state that refused it.
 */
export async function applyAction(
  db: Db,
  a: { environmentId: string; id: string; action: SubscriptionAction; now: Date; outbox: Outbox; authorizationId?: string },
): Promise<ActionResult> {
  const at = a.now.toISOString();
  return inTransaction(db, async (trx) => {
    const current = await trx
      .selectFrom('subscriptions')
      .selectAll()
      .where('environment_id', '=', a.environmentId)
      .where('id', '=', a.id)
      .executeTakeFirst();
    if (!current) return { kind: 'not_found' } as const;
    const status = current.status as SubscriptionStatus;
    if (!ACTION_FROM[a.action].includes(status)) return { kind: 'conflict', status } as const;
    const authorizationId = a.authorizationId ?? current.authorization_id;
    if (a.action === 'start' && authorizationId === null) return { kind: 'no_payment_method' } as const;

    const target = actionTarget(a.action, current.trial_days);
    let changes: Partial<SubscriptionRow> = { status: target, updated_at: at };
    switch (a.action) {
      case 'start': {
        const { trialEnd, ...schedule } = startSchedule(a.now, current.trial_days, current.period);
        changes = { ...changes, ...scheduleColumns(schedule), started_at: at, trial_end: iso(trialEnd), authorization_id: authorizationId };
        break;
      }
      case 'pause':
        changes = { ...changes, next_charge_at: null, paused_at: at };
        break;
      case 'active':
        changes = { ...changes, ...scheduleColumns(resumeSchedule(a.now, scheduleOf(current))), paused_at: null };
        break;
      case 'stop':
        changes = { ...changes, next_charge_at: null, stopped_at: at, stop_reason: 'requested' };
        break;
    }
    const result = await trx
      .updateTable('subscriptions')
      .set(changes)
      .where('id', '=', a.id)
      .where('status', '=', status)
      .where('updated_at', '=', current.updated_at)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      const now = await trx.selectFrom('subscriptions').select('status').where('id', '=', a.id).executeTakeFirstOrThrow();
      return { kind: 'conflict', status: now.status as SubscriptionStatus } as const;
    }
    await a.outbox.emit(trx, ACTION_EVENTS[a.action], a.id, a.now);
    return { kind: 'done', subscription: (await getSubscription(trx, null, a.id))! } as const;
  });
}

/**
 * The hosted sign-up's card (an authorization just stored) made the subscription's payment
 * method, then `start` (waiting) or, for a subscription whose charges fail (past_due), the
 * owed period due again at once: in one transaction.
 */
export async function attachPaymentMethod(
  db: Db,
  a: { subscription: SubscriptionRow; authorizationId: string; customerEmail?: string | null; now: Date; outbox: Outbox },
): Promise<ActionResult> {
  return inTransaction(db, async (trx) => {
    const { environment_id: environmentId, id } = a.subscription;
    // Before the start, so its confirmation email finds the address.
    if (a.customerEmail) await trx.updateTable('subscriptions').set({ customer_email: a.customerEmail }).where('id', '=', id).execute();
    if (a.subscription.status === 'waiting') {
      const started = await applyAction(trx, { environmentId, id, action: 'start', now: a.now, outbox: a.outbox, authorizationId: a.authorizationId });
      if (started.kind !== 'done') throw new Rollback(started);
      return started;
    }
    const at = a.now.toISOString();
    const result = await trx
      .updateTable('subscriptions')
      .set({ authorization_id: a.authorizationId, next_charge_at: at, updated_at: at })
      .where('id', '=', id)
      .where('status', '=', 'past_due')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      const now = await trx.selectFrom('subscriptions').select('status').where('id', '=', id).executeTakeFirstOrThrow();
      throw new Rollback({ kind: 'conflict', status: now.status as SubscriptionStatus });
    }
    return { kind: 'done', subscription: (await getSubscription(trx, null, id))! } as const;
  }).catch((err: unknown) => {
    if (err instanceof Rollback) return err.result;
    throw err;
  });
}

class Rollback extends Error {
  constructor(readonly result: ActionResult) {
    super('rolled back');
  }
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
