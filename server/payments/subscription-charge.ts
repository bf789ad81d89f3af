import type { Logger } from 'pino';
import type { Db } from '../store/db';
import type { Outbox } from '../store/events';
import { getAuthorization } from '../store/sales';
import { recordCharged, recordFailed, releaseClaim, reserveCharge } from '../store/subscriptions';
import type { Gateway } from './gateway';

// The charge of one subscription period, by the payments core's rule: reserve with a
// conditional write (the unique (subscription, period) row), call the gateway outside any
// database transaction with the period's idempotency reference, record the result in one
// transaction. A crash between the call and the record leaves the reservation pending;
// the next pass takes it over and asks the gateway again with the same reference.

export interface ChargeDeps {
  db: Db;
  outbox: Outbox;
  now: () => Date;
  log: Logger;
  findGateway(id: string): Gateway | undefined;
}

export type PeriodOutcome = 'charged' | 'failed' | 'skipped';

/** Charges the owed period of a subscription this process has claimed. */
export async function chargeSubscriptionPeriod(d: ChargeDeps, subscriptionId: string, claimant: string): Promise<PeriodOutcome> {
  const reservation = await reserveCharge(d.db, subscriptionId, claimant, d.now());
  if (!reservation) {
    await releaseClaim(d.db, subscriptionId, claimant);
    return 'skipped';
  }
  const { subscription: sub, charge } = reservation;
  const authorization = sub.authorization_id ? await getAuthorization(d.db, null, sub.authorization_id) : undefined;
  const gateway = authorization && d.findGateway(authorization.gateway_id);
  let result: Awaited<ReturnType<Gateway['charge']>>;
  if (!authorization || authorization.status !== 'active' || !gateway) {
    result = { outcome: 'declined', card: null };
  } else {
    try {
      result = await gateway.charge(authorization.gateway_reference, { amount: charge.amount, currency: charge.currency }, charge.reference);
    } catch (err) {
      // Unknown whether money moved: the reservation stays pending and the next pass asks
      // the gateway again with the same reference once the claim has expired.
      d.log.error({ err, subscription: sub.id, period: charge.period }, 'subscription charge: gateway failed');
      return 'skipped';
    }
  }
  const now = d.now();
  if (result.outcome === 'approved') {
    const recorded = await recordCharged(d.db, { ...reservation, gatewayReference: result.reference, gatewayId: gateway!.id, now, outbox: d.outbox });
    if (recorded) d.log.info({ subscription: sub.id, period: charge.period, attempt: charge.attempts }, 'subscription charged');
    return recorded ? 'charged' : 'skipped';
  }
  const failure = authorization?.status === 'active' ? result.outcome : 'authorization_removed';
  const recorded = await recordFailed(d.db, { ...reservation, failure, now, outbox: d.outbox });
  if (recorded) d.log.info({ subscription: sub.id, period: charge.period, attempt: charge.attempts, failure }, 'subscription charge failed');
  return recorded ? 'failed' : 'skipped';
}
