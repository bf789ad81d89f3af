import type { Tx } from '../store/db';
import type { Outbox } from '../store/events';
import { chargeById, chargeConfirmedPeriod } from '../store/subscription-charges';
import { insertPeriodTransaction } from '../store/transaction-aggregate';
import { lockSubscription } from '../store/subscriptions';
import type { PaymentDeps } from './ask';
import { chargeTransaction, moveSchedule, periodDescription, periodLine } from './subscription-period';

// A renewal the issuer declined until the customer authenticates (subscription-period.ts
// recordFailed) paid by the customer on its confirm page (confirm-payment.ts): inside the
// transaction that marked its sale captured, once, the period is recorded as a renewal's
// charge is (its completed transaction and line, the schedule moved one period on, the
// subscription `active` again, `subscription.charged`). The subscription's row is locked
// first, as the renewal job's record locks it.

/**
 * The period of a confirmed sale charged. false: the period is no longer waiting for that
 * sale (it was charged otherwise meanwhile): the money the processor took stays on the
 * sale, for the merchant to refund, and is logged.
 */
export async function recordConfirmedPeriod(trx: Tx, c: { chargeId: string; saleId: string; now: Date; outbox: Outbox; log: PaymentDeps['log'] }): Promise<boolean> {
  const found = await chargeById(trx, c.chargeId);
  const current = found && (await lockSubscription(trx, found.subscription_id));
  // Read again under the subscription's lock: the renewal job writes the period's row under it.
  const charge = found && (await chargeById(trx, found.id));
  if (!current || !charge || charge.sale_id !== c.saleId || charge.status !== 'failed') {
    c.log.warn({ sale: c.saleId, charge: c.chargeId }, 'confirmed renewal whose period is no longer owed: the sale keeps the payment');
    return false;
  }
  const r = { charge, subscription: current, call: null, authorization: null, now: c.now };
  const transaction = chargeTransaction(r);
  await insertPeriodTransaction(trx, { transaction, line: periodLine(r, transaction.id, periodDescription(current, charge)) });
  if (!(await chargeConfirmedPeriod(trx, charge, transaction.id, c.now.toISOString()))) return false;
  await moveSchedule(trx, r, current);
  await c.outbox.emit(trx, 'subscription.charged', current.id, c.now);
  return true;
}
