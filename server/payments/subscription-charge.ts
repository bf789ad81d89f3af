import { newCall, type GatewayCall } from '../store/gateway-calls';
import { type Reservation, reservationOfCall } from '../store/subscription-charges';
import { releaseClaim } from '../store/subscriptions';
import { type AttemptToReserve, recordCharged, recordFailed, releaseAttempt, reserveCharge } from './subscription-period';
import { chargeSettled, type PaymentDeps, type Settled } from './ask';
import { CALL_KINDS } from './call-kinds';
import type { GatewaySet } from './registry';

// The charge of one subscription period, by the payments core's rule: reserve with a
// conditional write (the unique (subscription, period) row, with the attempt's gateway
// call), call the gateway outside any database transaction with a reference naming the
// period and attempt, record the result in one transaction. A process that dies between
// the call and the record leaves the call pending: reconciliation asks the gateway by
// that reference and records its answer here (recordSubscriptionCharge). A call whose
// answer is lost (thrown, timed out) is left the same way: the gateway may have charged,
// so the attempt is settled by looking its reference up, never by a new attempt (which
// would charge again and then refund the first).

export type PeriodOutcome = 'charged' | 'failed' | 'skipped';

function attemptCall(deps: PaymentDeps, gateways: GatewaySet, a: AttemptToReserve): GatewayCall | null {
  const auth = a.authorization;
  const gateway = auth && gateways.find(auth);
  if (!auth || auth.status !== 'active' || !gateway) return null;
  const call = newCall({
    environmentId: a.subscription.environment_id,
    gateway,
    kind: 'subscription',
    subjectId: a.chargeId,
    amount: a.subscription.amount,
    currency: a.subscription.currency,
    request: { authorization_id: auth.id },
    now: deps.now(),
    claimMs: deps.config.paymentClaimMs,
  });
  // The period is the idempotency reference: the same attempt at it never charges twice.
  return { ...call, reference: `subscription:${a.subscription.id}:period:${a.period}:attempt:${a.attempt}` };
}

/** Charges the owed period of a subscription this process has claimed. */
export async function chargeSubscriptionPeriod(deps: PaymentDeps, subscription: { id: string; environment_id: string }, claimant: string): Promise<PeriodOutcome> {
  const db = deps.database.db;
  const subscriptionId = subscription.id;
  const gateways = await deps.gateways.of(subscription.environment_id);
  const reservation = await reserveCharge(db, { subscriptionId, claimant, now: deps.now(), call: (a) => attemptCall(deps, gateways, a) });
  // An attempt still being settled keeps the claim until it runs out, so the subscription
  // is looked at again once per SUBSCRIPTION_CLAIM_MS, not on every pass.
  if (reservation === 'pending') return 'skipped';
  if (!reservation) {
    await releaseClaim(db, subscriptionId, claimant);
    return 'skipped';
  }
  const { call, authorization } = reservation;
  if (!call || !authorization) return record(deps, reservation, { status: 'failed', reason: 'declined', card: null }, 'authorization_removed');
  const gateway = gateways.find(call)!;
  const answer = await CALL_KINDS.subscription.send(deps, gateway, call, { method: authorization.gateway_reference });
  // Outcome unknown: the call stays pending, for reconciliation to look up once its claim runs out.
  if (answer.kind === 'unknown') return 'skipped';
  // The gateway surely did nothing: as a lookup that finds nothing (the period is due again at once).
  if (answer.kind === 'not_acted') {
    await CALL_KINDS.subscription.release(deps, call);
    return 'skipped';
  }
  return record(deps, reservation, chargeSettled(answer.value));
}

/** The failure an attempt records: the issuer wanting the cardholder says so (with the link the customer pays it on, and no retry while it is open). */
const failureOf = (s: Settled) => (s.status === 'succeeded' ? '' : s.confirm ? 'authentication_required' : s.reason);

async function record(deps: PaymentDeps, reservation: Reservation, s: Settled, failure = failureOf(s)): Promise<PeriodOutcome> {
  const db = deps.database.db;
  const now = deps.now();
  const { subscription: sub, charge } = reservation;
  const log = { subscription: sub.id, period: charge.period, attempt: charge.attempts };
  if (s.status === 'succeeded') {
    const recorded = await recordCharged(db, { ...reservation, gatewayReference: s.reference, now, outbox: deps.outbox });
    if (recorded) deps.log.info(log, 'subscription charged');
    return recorded ? 'charged' : 'skipped';
  }
  if (s.reason === 'refused') {
    // Reconciliation found no trace of the call at the gateway: nothing happened, and the
    // period is due again at once, as if this attempt had never been made.
    await releaseAttempt(db, { ...reservation, failure: 'not_processed', retryAt: now, now });
    return 'skipped';
  }
  const recorded = await recordFailed(db, { ...reservation, failure, now, outbox: deps.outbox, ...(s.confirm ? { confirm: { processor: s.confirm } } : {}) });
  if (recorded) deps.log.info({ ...log, failure }, 'subscription charge failed');
  return recorded ? 'failed' : 'skipped';
}

/** Reconciliation's recorder for a subscription call whose process died before recording it. */
export async function recordSubscriptionCharge(deps: PaymentDeps, call: GatewayCall, s: Settled): Promise<PeriodOutcome | null> {
  const reservation = await reservationOfCall(deps.database.db, call);
  return reservation ? record(deps, reservation, s) : null;
}
