import { MERCHANT_INITIATED } from '../domain/authentication';
import { newToken, uuidv7 } from '../domain/ids';
import { CHARGEABLE, type SubscriptionStatus } from '../domain/subscription-states';
import { awaitingCustomerSchedule, chargedSchedule, duePeriod, failedSchedule } from '../domain/subscription-schedule';
import { type Db, inTransaction, Rollback, rollbackOn, type Tx } from '../store/db';
import type { EventType } from '../domain/event-types';
import type { Outbox } from '../store/events';
import { type GatewayCall, insertCall } from '../store/gateway-calls';
import { newSaleRow } from '../store/new-sale';
import { closeConfirmLink, insertSales } from '../store/sale-aggregate';
import { addOperation, operationRow } from '../store/sale-operations';
import { getAuthorization } from '../store/sales';
import { CONFIRM_LINK_MS, newConfirmToken } from './charge-record';
import type { AuthorizationRow, SaleRow, SubscriptionChargeRow, SubscriptionRow, TransactionLineRow, TransactionRow } from '../store/schema';
import { insertCharge, insertChargeRecords, periodCharge, type Reservation, retryCharge, settleAttempt } from '../store/subscription-charges';
import { cadenceOf, holdClaim, lockSubscription, periodDueAgain, readSubscription, recordChargedPeriod, recordFailedPeriod, scheduleOf } from '../store/subscriptions';

// What one attempt at a subscription's period reserves and what its answer records, each
// in one database transaction: the rules of renewal (which period is owed, how many
// attempts, the schedule after a charge or a failure, the records of a charged period).
// The rows and their conditional writes are the store's (store/subscription-charges.ts).

/** What the reservation needs to build the attempt's gateway call. */
export interface AttemptToReserve {
  chargeId: string;
  subscription: SubscriptionRow;
  period: number;
  attempt: number;
  authorization: AuthorizationRow | undefined;
}

/** The first attempt at a period: its charge row. */
function newCharge(sub: SubscriptionRow, id: string, reference: string, now: Date): SubscriptionChargeRow {
  const due = duePeriod(scheduleOf(sub), cadenceOf(sub));
  const at = now.toISOString();
  return {
    id,
    subscription_id: sub.id,
    period: sub.period,
    period_start: due.start.toISOString(),
    period_end: due.end.toISOString(),
    amount: sub.amount,
    currency: sub.currency,
    status: 'pending',
    attempts: 1,
    reference,
    failure: null,
    transaction_id: null,
    sale_id: null,
    created_at: at,
    updated_at: at,
  };
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
  return inTransaction(db, async (trx) => {
    if (!(await holdClaim(trx, r.subscriptionId, r.claimant, r.now))) return null;
    const sub = (await readSubscription(trx, r.subscriptionId))!;
    const existing = await periodCharge(trx, sub.id, sub.period);
    if (existing?.status === 'pending') return 'pending';
    if (existing && existing.status !== 'failed') return null;
    const attempt = (existing?.attempts ?? 0) + 1;
    const authorization = sub.authorization_id ? await getAuthorization(trx, null, sub.authorization_id) : undefined;
    const chargeId = existing?.id ?? uuidv7(r.now.getTime());
    const call = r.call({ chargeId, subscription: sub, period: sub.period, attempt, authorization });
    const reference = call?.reference ?? `subscription:${sub.id}:period:${sub.period}:attempt:${attempt}`;
    let charge: SubscriptionChargeRow;
    if (!existing) {
      charge = newCharge(sub, chargeId, reference, r.now);
      await insertCharge(trx, charge);
    } else {
      const retry = { status: 'pending', attempts: attempt, reference, updated_at: r.now.toISOString() } as const;
      if (!(await retryCharge(trx, existing, retry))) return null;
      // A new attempt (a new card given on payment_url) closes the link of the one that needed the customer: never both paid.
      if (existing.sale_id) await closeConfirmLink(trx, existing.sale_id, r.now);
      charge = { ...existing, ...retry };
    }
    if (call) await insertCall(trx, call);
    return { charge, subscription: sub, call, authorization: authorization ?? null };
  });
}

/**
 * An attempt that charged nothing through no fault of the card: the gateway has no trace
 * of it (reconciliation looked its reference up). The period stays owed, on the same
 * schedule, due again at `retryAt`; no failure is counted or notified.
 */
export async function releaseAttempt(db: Db, r: Reservation & { failure: string; retryAt: Date; now: Date }): Promise<boolean> {
  const at = r.now.toISOString();
  return inTransaction(db, async (trx) => {
    if (!(await settleAttempt(trx, r, 'failed', { status: 'failed', failure: r.failure, updated_at: at }, r.now))) return false;
    await periodDueAgain(trx, r.subscription.id, { period: r.charge.period, dueAt: r.retryAt, now: r.now });
    return true;
  });
}

/**
 * The gateway took the money: the completed transaction and its sale (linked to the
 * subscription through the charge row), the schedule moved one period on, and the
 * events, in one transaction. A subscription stopped or paused while the gateway answered
 * keeps its state: the period it was charged for had begun before. Its row is locked
 * first, as an action locks it: an action still being written finishes before the
 * schedule is judged, and is never written over.
 */
export async function recordCharged(db: Db, r: Reservation & { gatewayReference: string; now: Date; outbox: Outbox }): Promise<boolean> {
  const at = r.now.toISOString();
  const sub = r.subscription;
  // The card the call charged, which a card update since may have replaced.
  const authorizationId = (r.call!.request.authorization_id as string | undefined) ?? sub.authorization_id;
  // Another process recorded this attempt first: everything written here is rolled back.
  return rollbackOn<boolean, boolean>(db, async (trx) => {
    const current = (await lockSubscription(trx, sub.id))!;
    const transaction = chargeTransaction(r);
    const auth = authorizationId ? await getAuthorization(trx, null, authorizationId) : undefined;
    const sale = { ...chargeSale(r, transaction.id, authorizationId), card_brand: auth?.card_brand ?? null, card_last4: auth?.card_last4 ?? null };
    const line = periodLine(r, transaction.id, sale.description);
    const operation = operationRow(sale.id, 'charge', sale.amount, r.gatewayReference, r.now);
    await insertChargeRecords(trx, { transaction, line, sale, operation });
    if (!(await settleAttempt(trx, r, 'succeeded', { status: 'charged', transaction_id: transaction.id, sale_id: sale.id, failure: null, updated_at: at }, r.now, sale.id))) {
      throw new Rollback(false);
    }
    await moveSchedule(trx, r, current);
    await r.outbox.emit(trx, 'subscription.charged', sub.id, r.now);
    return true;
  });
}

/** The one line of a period's transaction: the plan, for the period's dates. */
export function periodLine(r: Reservation & { now: Date }, transactionId: string, description: string | null): TransactionLineRow {
  return {
    id: uuidv7(r.now.getTime()),
    transaction_id: transactionId,
    position: 0,
    product_ref: null,
    product_id: null,
    name: r.subscription.plan_name,
    description,
    unit_price: r.charge.amount,
    quantity: '1',
    line_total: r.charge.amount,
  };
}

/** The completed transaction a period's charge is recorded as. */
export function chargeTransaction(r: Reservation & { now: Date }): TransactionRow {
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

/** What a period's sale and line say: the plan and the period's dates. */
export const periodDescription = (sub: SubscriptionRow, charge: SubscriptionChargeRow) => `${sub.plan_name}: ${charge.period_start.slice(0, 10)} – ${charge.period_end.slice(0, 10)}`;

/** Its sale: a merchant-initiated charge of the stored card, captured. */
function chargeSale(r: Reservation & { now: Date }, transactionId: string | null, authorizationId: string | null): SaleRow {
  const at = r.now.toISOString();
  const sub = r.subscription;
  return newSaleRow({
    id: uuidv7(r.now.getTime()),
    environment_id: sub.environment_id,
    transaction_id: transactionId,
    authorization_id: authorizationId,
    gateway_id: r.call!.gateway_id,
    gateway_account: r.call!.gateway_account,
    currency: r.charge.currency,
    amount: r.charge.amount,
    captured: r.charge.amount,
    description: periodDescription(sub, r.charge),
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
export async function moveSchedule(trx: Tx, r: Reservation & { now: Date }, current: SubscriptionRow): Promise<void> {
  const sub = r.subscription;
  const unchanged =
    CHARGEABLE.includes(current.status as SubscriptionStatus) &&
    current.period === r.charge.period &&
    current.anchor_at === sub.anchor_at &&
    current.anchor_index === sub.anchor_index;
  const next = chargedSchedule(scheduleOf(sub), cadenceOf(sub));
  await recordChargedPeriod(
    trx,
    sub.id,
    unchanged
      ? { kind: 'moved', schedule: next }
      : { kind: 'recorded', period: Math.max(current.period, next.period), start: next.currentPeriodStart, end: next.currentPeriodEnd },
    r.now,
  );
}

/**
 * The gateway refused: the attempt is recorded on the period's row, and the subscription
 * goes past_due with its next retry, or is stopped after the last one; judged on the row
 * locked first (see recordCharged), so a stop or pause being written is kept. Refused
 * until the customer authenticates (`confirm`, the processor's payment) with retries
 * left, the attempt's declined sale gets the link the customer pays it on
 * (subscription-confirm.ts) and no retry is made while the link is open.
 */
export async function recordFailed(db: Db, r: Reservation & { failure: string; now: Date; outbox: Outbox; confirm?: { processor: string } }): Promise<boolean> {
  const at = r.now.toISOString();
  const sub = r.subscription;
  return rollbackOn<boolean, boolean>(db, async (trx) => {
    const current = (await lockSubscription(trx, sub.id))!;
    const charging = CHARGEABLE.includes(current.status as SubscriptionStatus) && current.period === r.charge.period;
    const failed = charging ? failedSchedule(scheduleOf(current), cadenceOf(current)) : null;
    const link = r.confirm && failed && !failed.giveUp ? await insertLinkedSale(trx, r) : null;
    const row = { status: 'failed', failure: r.failure, updated_at: at, ...(link ? { sale_id: link.id } : {}) } as const;
    if (!(await settleAttempt(trx, r, 'failed', row, r.now, link?.id, r.confirm?.processor))) throw new Rollback(false);
    const events: EventType[] = ['subscription.charge_failed'];
    if (failed) {
      const { giveUp } = failed;
      const schedule = link ? awaitingCustomerSchedule(scheduleOf(current), new Date(link.confirm_expires_at!)) : failed.schedule;
      await recordFailedPeriod(trx, sub.id, { schedule, giveUp, now: r.now });
      if (giveUp) events.push('subscription.stopped');
      else if (current.status !== 'past_due') events.push('subscription.past_due');
    }
    for (const type of events) await r.outbox.emit(trx, type, sub.id, r.now);
    return true;
  });
}

/** The declined sale of an attempt that needs the customer, with its confirm link (7 days), as an authorization's charge has (charge-record.ts). */
async function insertLinkedSale(trx: Tx, r: Reservation & { now: Date }): Promise<SaleRow> {
  const authorizationId = (r.call!.request.authorization_id as string | undefined) ?? r.subscription.authorization_id;
  const auth = authorizationId ? await getAuthorization(trx, null, authorizationId) : undefined;
  const sale = {
    ...chargeSale(r, null, authorizationId),
    captured: 0,
    card_brand: auth?.card_brand ?? null,
    card_last4: auth?.card_last4 ?? null,
    failure: 'authentication_required' as const,
    confirm_token: newConfirmToken(),
    confirm_expires_at: new Date(r.now.getTime() + CONFIRM_LINK_MS).toISOString(),
  };
  const [stored] = await insertSales(trx, [sale]);
  await addOperation(trx, sale.id, 'decline', sale.amount, null, r.now);
  return stored!;
}
