import { newToken, uuidv7 } from '../domain/ids';
import type { Cadence } from '../domain/periods';
import { actionTarget, CHARGEABLE, ACTION_FROM, type SubscriptionAction, type SubscriptionStatus } from '../domain/subscription-states';
import { chargedSchedule, duePeriod, failedSchedule, resumeSchedule, type Schedule, startSchedule } from '../domain/subscription-schedule';
import { type Db, inTransaction, type Tx } from './db';
import { type Merchant, merchantOf } from './environments';
import type { EventType, Outbox } from './events';
import { type GatewayCall, insertCall, settleCall } from './gateway-calls';
import { skipLocked } from './locking';
import { countAndPage, type Page } from './paging';
import type { AuthorizationRow, SaleRow, SubscriptionChargeRow, SubscriptionRow, TransactionRow } from './schema';

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

const iso = (d: Date | null) => d?.toISOString() ?? null;

function scheduleOf(row: SubscriptionRow): Schedule {
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
  a: { subscription: SubscriptionRow; authorizationId: string; now: Date; outbox: Outbox },
): Promise<ActionResult> {
  return inTransaction(db, async (trx) => {
    const { environment_id: environmentId, id } = a.subscription;
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

export interface SignupPage {
  row: SubscriptionRow;
  merchant: Merchant;
}

export async function findSignup(db: Db, token: string): Promise<SignupPage | undefined> {
  const found = await db
    .selectFrom('subscriptions')
    .innerJoin('environments', 'environments.id', 'subscriptions.environment_id')
    .selectAll('subscriptions')
    .select(['environments.name as merchant_name', 'environments.allowed_origins as merchant_origins'])
    .where('subscriptions.token', '=', token)
    .executeTakeFirst();
  if (!found) return undefined;
  const { merchant_name, merchant_origins, ...row } = found;
  return { row, merchant: merchantOf(merchant_name, merchant_origins) };
}

// ——— The scheduler's side: claim, reserve, record ———

/**
 * Claims up to `limit` subscriptions with a period due now, for `leaseMs`. Candidates are
 * selected FOR UPDATE SKIP LOCKED on PostgreSQL, and each claim is a conditional UPDATE,
 * so two processes never hold the same subscription; a dead process's claim expires.
 */
export async function claimDueSubscriptions(db: Db, now: Date, leaseMs: number, limit: number, claimant: string): Promise<SubscriptionRow[]> {
  const at = now.toISOString();
  return db.transaction().execute(async (trx) => {
    const due = await skipLocked(
      trx,
      trx
        .selectFrom('subscriptions')
        .select('id')
        .where('status', 'in', CHARGEABLE)
        .where('next_charge_at', '<=', at)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', at)]))
        .orderBy('next_charge_at')
        .limit(limit),
    ).execute();
    if (!due.length) return [];
    const ids = due.map((r) => r.id);
    await trx
      .updateTable('subscriptions')
      .set({ claimed_until: new Date(now.getTime() + leaseMs).toISOString(), claimed_by: claimant })
      .where('id', 'in', ids)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', at)]))
      .execute();
    return trx.selectFrom('subscriptions').selectAll().where('id', 'in', ids).where('claimed_by', '=', claimant).execute();
  });
}

export async function releaseClaim(db: Db, id: string, claimant: string): Promise<void> {
  await db.updateTable('subscriptions').set({ claimed_until: null, claimed_by: null }).where('id', '=', id).where('claimed_by', '=', claimant).execute();
}

export interface Reservation {
  charge: SubscriptionChargeRow;
  subscription: SubscriptionRow;
  /** The gateway call reserved with it; null when there is no usable payment method to call. */
  call: GatewayCall | null;
  authorization: AuthorizationRow | null;
}

/** What the reservation needs to build the attempt's gateway call. */
export interface AttemptToReserve {
  chargeId: string;
  subscription: SubscriptionRow;
  period: number;
  attempt: number;
  authorization: AuthorizationRow | undefined;
}

/**
 * Reserves the owed period for one gateway attempt, with the attempt's gateway call, in
 * one transaction: the unique (subscription, period) row, created on the first attempt or
 * moved failed → pending for a retry. null: nothing to charge now (stopped, paused, not
 * due, the claim lost, or an attempt still pending: reconciliation records that one).
 */
export async function reserveCharge(
  db: Db,
  r: { subscriptionId: string; claimant: string; now: Date; call: (a: AttemptToReserve) => GatewayCall | null },
): Promise<Reservation | null> {
  const at = r.now.toISOString();
  return db.transaction().execute(async (trx) => {
    // A no-op UPDATE that only a still-chargeable, still-claimed, due row matches: it takes
    // the row's lock, so a concurrent stop or pause commits before this or sees it reserved.
    const held = await trx
      .updateTable('subscriptions')
      .set((eb) => ({ claimed_by: eb.ref('claimed_by') }))
      .where('id', '=', r.subscriptionId)
      .where('claimed_by', '=', r.claimant)
      .where('status', 'in', CHARGEABLE)
      .where('next_charge_at', '<=', at)
      .executeTakeFirst();
    if (Number(held.numUpdatedRows) !== 1) return null;
    const sub = await trx.selectFrom('subscriptions').selectAll().where('id', '=', r.subscriptionId).executeTakeFirstOrThrow();
    const due = duePeriod(scheduleOf(sub), cadenceOf(sub));
    const existing = await trx
      .selectFrom('subscription_charges')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .where('period', '=', sub.period)
      .executeTakeFirst();
    if (existing && existing.status !== 'failed') return null;
    const attempt = (existing?.attempts ?? 0) + 1;
    const authorization = sub.authorization_id
      ? await trx.selectFrom('authorizations').selectAll().where('id', '=', sub.authorization_id).executeTakeFirst()
      : undefined;
    const chargeId = existing?.id ?? uuidv7(r.now.getTime());
    const call = r.call({ chargeId, subscription: sub, period: sub.period, attempt, authorization });
    const reference = call?.reference ?? `subscription:${sub.id}:period:${sub.period}:attempt:${attempt}`;
    let charge: SubscriptionChargeRow;
    if (!existing) {
      charge = {
        id: chargeId,
        subscription_id: sub.id,
        period: sub.period,
        period_start: due.start.toISOString(),
        period_end: due.end.toISOString(),
        amount: sub.amount,
        currency: sub.currency,
        status: 'pending',
        attempts: attempt,
        reference,
        failure: null,
        transaction_id: null,
        sale_id: null,
        created_at: at,
        updated_at: at,
      };
      await trx.insertInto('subscription_charges').values(charge).execute();
    } else {
      const retried = await trx
        .updateTable('subscription_charges')
        .set({ status: 'pending', attempts: attempt, reference, updated_at: at })
        .where('id', '=', existing.id)
        .where('status', '=', 'failed')
        .where('attempts', '=', existing.attempts)
        .executeTakeFirst();
      if (Number(retried.numUpdatedRows) !== 1) return null;
      charge = { ...existing, status: 'pending', attempts: attempt, reference, updated_at: at };
    }
    if (call) await insertCall(trx, call);
    return { charge, subscription: sub, call, authorization: authorization ?? null };
  });
}

/** The reservation a pending gateway call belongs to, for reconciliation to record. */
export async function reservationOfCall(db: Db, call: GatewayCall): Promise<Reservation | undefined> {
  const charge = await db.selectFrom('subscription_charges').selectAll().where('id', '=', call.subject_id).executeTakeFirst();
  if (!charge) return undefined;
  const subscription = await db.selectFrom('subscriptions').selectAll().where('id', '=', charge.subscription_id).executeTakeFirstOrThrow();
  return { charge, subscription, call, authorization: null };
}

/** Marks the reservation's attempt done, once: false when another process recorded it first. */
async function settleReservation(trx: Tx, r: Reservation, to: 'succeeded' | 'failed' | 'abandoned', changes: Partial<SubscriptionChargeRow>, now: Date, resultId?: string): Promise<boolean> {
  if (r.call && !(await settleCall(trx, r.call.id, ['pending'], to, now, { resultId: resultId ?? null, checkAt: to === 'abandoned' ? now : null }))) return false;
  const result = await trx
    .updateTable('subscription_charges')
    .set(changes)
    .where('id', '=', r.charge.id)
    .where('status', '=', 'pending')
    .where('attempts', '=', r.charge.attempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * An attempt that charged nothing through no fault of the card: the gateway never saw it
 * (reconciliation found no trace of a call whose process died) or did not answer in time
 * (`abandoned`: reconciliation refunds it should it have gone through). The period stays
 * owed, on the same schedule, due again at `retryAt`; no failure is counted or notified.
 */
export async function releaseAttempt(
  db: Db,
  r: Reservation & { callState: 'failed' | 'abandoned'; failure: string; retryAt: Date; now: Date },
): Promise<boolean> {
  const at = r.now.toISOString();
  return db.transaction().execute(async (trx) => {
    if (!(await settleReservation(trx, r, r.callState, { status: 'failed', failure: r.failure, updated_at: at }, r.now))) return false;
    await trx
      .updateTable('subscriptions')
      .set({ next_charge_at: r.retryAt.toISOString(), claimed_until: null, claimed_by: null, updated_at: at })
      .where('id', '=', r.subscription.id)
      .where('period', '=', r.charge.period)
      .where('status', 'in', CHARGEABLE)
      .execute();
    return true;
  });
}

/**
 * The gateway took the money: the completed transaction and its sale (linked to the
 * subscription through the charge row), the schedule moved one period on, and the
 * events, in one transaction. A subscription stopped or paused while the gateway answered
 * keeps its state: the period it was charged for had begun before.
 */
export async function recordCharged(
  db: Db,
  r: Reservation & { gatewayReference: string; now: Date; outbox: Outbox },
): Promise<boolean> {
  const at = r.now.toISOString();
  const sub = r.subscription;
  // The card the call charged, which a card update since may have replaced.
  const authorizationId = (r.call!.request.authorization_id as string | undefined) ?? sub.authorization_id;
  const recorded = db.transaction().execute(async (trx) => {
    const transaction: TransactionRow = {
      id: uuidv7(r.now.getTime()),
      environment_id: sub.environment_id,
      token: newToken(),
      order_id: sub.subscription_id,
      currency: r.charge.currency,
      note: `Subscription ${sub.id}, period ${r.charge.period}`,
      extra: null,
      return_url: null,
      cancel_url: null,
      notify_url: null,
      gateway_selected: 0,
      language: sub.language,
      expired_at: at,
      authorize: 0,
      tax_ref: null,
      tax_name: null,
      tax_value: 0,
      shipping_ref: null,
      shipping_name: null,
      shipping_value: 0,
      coupon_ref: null,
      coupon_name: null,
      coupon_value: 0,
      items_price: r.charge.amount,
      total_price: r.charge.amount,
      source: null,
      destination: null,
      status: 'D',
      created_at: at,
      updated_at: at,
    };
    const sale: SaleRow = {
      id: uuidv7(r.now.getTime()),
      environment_id: sub.environment_id,
      transaction_id: transaction.id,
      authorization_id: authorizationId,
      gateway_id: r.call!.gateway_id,
      currency: r.charge.currency,
      amount: r.charge.amount,
      held: 0,
      captured: r.charge.amount,
      refunded: 0,
      voided: 0,
      description: `${sub.plan_name}: ${r.charge.period_start.slice(0, 10)} – ${r.charge.period_end.slice(0, 10)}`,
      card_brand: null,
      card_last4: null,
      // The subscription's notify_url hears of it, as subscription.charged.
      notify_url: null,
      failure: null,
      source_transaction_id: null,
      created_at: at,
      updated_at: at,
    };
    const auth = authorizationId
      ? await trx.selectFrom('authorizations').select(['card_brand', 'card_last4']).where('id', '=', authorizationId).executeTakeFirst()
      : undefined;
    await trx.insertInto('transactions').values(transaction).execute();
    await trx
      .insertInto('transaction_lines')
      .values({
        id: uuidv7(r.now.getTime()),
        transaction_id: transaction.id,
        position: 0,
        product_ref: null,
        product_id: null,
        name: sub.plan_name,
        description: sale.description,
        unit_price: r.charge.amount,
        quantity: '1',
        line_total: r.charge.amount,
      })
      .execute();
    await trx.insertInto('sales').values({ ...sale, card_brand: auth?.card_brand ?? null, card_last4: auth?.card_last4 ?? null }).execute();
    await trx
      .insertInto('sale_operations')
      .values({ id: uuidv7(r.now.getTime()), sale_id: sale.id, kind: 'charge', amount: sale.amount, gateway_reference: r.gatewayReference, created_at: at })
      .execute();
    if (!(await settleReservation(trx, r, 'succeeded', { status: 'charged', transaction_id: transaction.id, sale_id: sale.id, failure: null, updated_at: at }, r.now, sale.id))) {
      throw new AlreadyRecorded();
    }

    const current = await trx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    // Unchanged since the reservation (the usual case): the schedule moves one period on.
    // Paused, stopped or resumed meanwhile: the paid period is recorded, the rest stays.
    const unchanged =
      CHARGEABLE.includes(current.status as SubscriptionStatus) &&
      current.period === r.charge.period &&
      current.anchor_at === sub.anchor_at &&
      current.anchor_index === sub.anchor_index;
    const next = chargedSchedule(scheduleOf(sub), cadenceOf(sub));
    await trx
      .updateTable('subscriptions')
      .set({
        ...(unchanged
          ? { ...scheduleColumns(next), status: 'active' }
          : {
              period: Math.max(current.period, next.period),
              current_period_start: iso(next.currentPeriodStart),
              current_period_end: iso(next.currentPeriodEnd),
            }),
        claimed_until: null,
        claimed_by: null,
        updated_at: at,
      })
      .where('id', '=', sub.id)
      .execute();
    await r.outbox.emit(trx, 'subscription.charged', sub.id, r.now);
    return true;
  });
  // Another process recorded this attempt first: everything written here is rolled back.
  return recorded.catch((err: unknown) => {
    if (err instanceof AlreadyRecorded) return false;
    throw err;
  });
}

class AlreadyRecorded extends Error {}

/**
 * The gateway refused: the attempt is recorded on the period's row, and the subscription
 * goes past_due with its next retry, or is stopped after the last one.
 */
export async function recordFailed(db: Db, r: Reservation & { failure: string; now: Date; outbox: Outbox }): Promise<boolean> {
  const at = r.now.toISOString();
  const sub = r.subscription;
  return db.transaction().execute(async (trx) => {
    if (!(await settleReservation(trx, r, 'failed', { status: 'failed', failure: r.failure, updated_at: at }, r.now))) return false;
    const current = await trx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    const events: EventType[] = ['subscription.charge_failed'];
    if (CHARGEABLE.includes(current.status as SubscriptionStatus) && current.period === r.charge.period) {
      const { schedule, giveUp } = failedSchedule(scheduleOf(current), cadenceOf(current));
      const status = giveUp ? 'stopped' : 'past_due';
      await trx
        .updateTable('subscriptions')
        .set({
          ...scheduleColumns(schedule),
          status,
          ...(giveUp ? { stopped_at: at, stop_reason: 'payment_failed' } : {}),
          claimed_until: null,
          claimed_by: null,
          updated_at: at,
        })
        .where('id', '=', sub.id)
        .execute();
      if (giveUp) events.push('subscription.stopped');
      else if (current.status !== 'past_due') events.push('subscription.past_due');
    }
    for (const type of events) await r.outbox.emit(trx, type, sub.id, r.now);
    return true;
  });
}
