import type { ExpressionBuilder } from 'kysely';
import { MERCHANT_INITIATED } from '../domain/authentication';
import { newToken, uuidv7 } from '../domain/ids';
import { CHARGEABLE, type SubscriptionStatus } from '../domain/subscription-states';
import { chargedSchedule, duePeriod, failedSchedule } from '../domain/subscription-schedule';
import { type Db, inTransaction, Rollback, rollbackOn, type Tx } from './db';
import type { EventType, Outbox } from './events';
import { type GatewayCall, insertCall, settleCall } from './gateway-calls';
import { claimBatch } from './locking';
import type { AuthorizationRow, SaleRow, SubscriptionChargeRow, SubscriptionRow, Tables, TransactionRow } from './schema';
import { cadenceOf, iso, scheduleColumns, scheduleOf } from './subscriptions';
import { newSaleRow } from './new-sale';

// The charges of subscription periods: the scheduler's claims, a period's reservation for
// one gateway attempt, and what the attempt's answer records. Each is one database
// transaction guarded by a conditional UPDATE (the claim held, the reservation's state),
// so two processes never charge a period twice.

/**
 * Claims up to `limit` subscriptions with a period due now, for `leaseMs`. Candidates are
 * selected FOR UPDATE SKIP LOCKED on PostgreSQL, and each claim is a conditional UPDATE,
 * so two processes never hold the same subscription; a dead process's claim expires.
 */
export async function claimDueSubscriptions(db: Db, now: Date, leaseMs: number, limit: number, claimant: string): Promise<SubscriptionRow[]> {
  return inTransaction(db, async (trx) => {
    const due = (eb: ExpressionBuilder<Tables, 'subscriptions'>) => eb.and([eb('status', 'in', CHARGEABLE), eb('next_charge_at', '<=', now.toISOString())]);
    const ids = await claimBatch(trx, { table: 'subscriptions', due, order: 'next_charge_at', now, until: new Date(now.getTime() + leaseMs), claimant, limit });
    if (!ids.length) return [];
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
 * due, the claim lost); 'pending': an attempt of the period is still unsettled
 * (reconciliation records that one).
 */
export async function reserveCharge(
  db: Db,
  r: { subscriptionId: string; claimant: string; now: Date; call: (a: AttemptToReserve) => GatewayCall | null },
): Promise<Reservation | 'pending' | null> {
  const at = r.now.toISOString();
  return inTransaction(db, async (trx) => {
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
    if (existing?.status === 'pending') return 'pending';
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
 * An attempt that charged nothing through no fault of the card: the gateway has no trace
 * of it (reconciliation looked its reference up). The period stays owed, on the same
 * schedule, due again at `retryAt`; no failure is counted or notified.
 */
export async function releaseAttempt(db: Db, r: Reservation & { failure: string; retryAt: Date; now: Date }): Promise<boolean> {
  const at = r.now.toISOString();
  return inTransaction(db, async (trx) => {
    if (!(await settleReservation(trx, r, 'failed', { status: 'failed', failure: r.failure, updated_at: at }, r.now))) return false;
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
  // Another process recorded this attempt first: everything written here is rolled back.
  return rollbackOn<boolean, boolean>(db, async (trx) => {
    const transaction = chargeTransaction(r);
    const sale = chargeSale(r, transaction.id, authorizationId);
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
      throw new Rollback(false);
    }
    await moveSchedule(trx, r);
    await r.outbox.emit(trx, 'subscription.charged', sub.id, r.now);
    return true;
  });
}

/** The completed transaction a period's charge is recorded as. */
function chargeTransaction(r: Reservation & { now: Date }): TransactionRow {
  const at = r.now.toISOString();
  const sub = r.subscription;
  return {
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
}

/** Its sale: a merchant-initiated charge of the stored card, captured. */
function chargeSale(r: Reservation & { now: Date }, transactionId: string, authorizationId: string | null): SaleRow {
  const at = r.now.toISOString();
  const sub = r.subscription;
  return newSaleRow({
    id: uuidv7(r.now.getTime()),
    environment_id: sub.environment_id,
    transaction_id: transactionId,
    authorization_id: authorizationId,
    gateway_id: r.call!.gateway_id,
    currency: r.charge.currency,
    amount: r.charge.amount,
    captured: r.charge.amount,
    description: `${sub.plan_name}: ${r.charge.period_start.slice(0, 10)} – ${r.charge.period_end.slice(0, 10)}`,
    // The subscription's notify_url hears of it, as subscription.charged.
    notify_url: null,
    // A subscription's charge is the merchant's, of a stored card: never challenged.
    authentication_status: MERCHANT_INITIATED.status,
    authentication_method: MERCHANT_INITIATED.method,
    created_at: at,
    updated_at: at,
  });
}

/**
 * The schedule after a charge: unchanged since the reservation (the usual case), it moves
 * one period on; paused, stopped or resumed meanwhile, the paid period is recorded and the
 * rest stays.
 */
async function moveSchedule(trx: Tx, r: Reservation & { now: Date }): Promise<void> {
  const at = r.now.toISOString();
  const sub = r.subscription;
  const current = await trx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
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
}

/**
 * The gateway refused: the attempt is recorded on the period's row, and the subscription
 * goes past_due with its next retry, or is stopped after the last one.
 */
export async function recordFailed(db: Db, r: Reservation & { failure: string; now: Date; outbox: Outbox }): Promise<boolean> {
  const at = r.now.toISOString();
  const sub = r.subscription;
  return inTransaction(db, async (trx) => {
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
