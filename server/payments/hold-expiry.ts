import { claimExpiredHolds } from '../store/expiring-holds';
import { postponeExpiry } from '../store/sale-aggregate';
import type { PaymentDeps } from './ask';
import { moveSaleMoney } from './sale-actions';

// Holds expire: an issuer drops an uncaptured hold after about seven days, so the service
// voids it first, HOLD_EXPIRY_MS after the sale, through the same void as the API's (a
// reservation, the gateway's void with the payment's reference, the record). The record
// dates the expiry on the sale and emits `sale.hold_expired` with `sale.voided`, also when
// reconciliation records the void after a crash (the reason travels with the call).

/** A void the gateway refused or did not answer is tried again after this long. */
const RETRY_MS = 60 * 60_000;

/** One round: claims up to `limit` expired holds and voids each; resolves with how many it took. */
export async function expireHolds(deps: PaymentDeps, limit = 20): Promise<number> {
  const now = deps.now();
  const sales = await claimExpiredHolds(deps.database.db, {
    now,
    createdBefore: new Date(now.getTime() - deps.config.holdExpiryMs),
    // As long as a payment's claim: the void's gateway call always ends within it.
    leaseMs: deps.config.paymentClaimMs,
    limit,
  });
  for (const sale of sales) {
    const outcome = await moveSaleMoney(deps, { sale, action: 'void', amount: sale.held, reason: 'hold_expired' });
    // A capture or void that moved the amounts meanwhile is a conflict: the next round sees what is
    // left. A void of unknown outcome is reconciliation's, which records the expiry with it.
    if (outcome.kind === 'done') deps.log.info({ sale: sale.id, amount: sale.held }, 'expired hold voided');
    if (outcome.kind !== 'gateway_failed') continue;
    deps.log.warn({ sale: sale.id, reason: outcome.reason }, 'expired hold not voided: tried again later');
    await postponeExpiry(deps.database.db, sale.id, new Date(deps.now().getTime() + RETRY_MS));
  }
  return sales.length;
}
