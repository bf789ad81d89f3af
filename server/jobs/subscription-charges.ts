import { randomUUID } from 'node:crypto';
import { type PaymentDeps } from '../payments/ask';
import { chargeSubscriptionPeriod } from '../payments/subscription-charge';
import { claimDueSubscriptions } from '../store/subscriptions';

// The scheduler, a job of the runner (server/jobs/index.ts): one bounded pass over the
// subscriptions with a period due on the service's clock. Claims are made in the database
// (see claimDueSubscriptions), so any number of processes run passes side by side and
// each due period is charged by one. A claim lasts SUBSCRIPTION_CLAIM_MS (config.ts).

/** Charges up to `limit` due periods; resolves with how many subscriptions it claimed. */
export async function chargeDueSubscriptions(deps: PaymentDeps, limit = 20): Promise<number> {
  const claimant = randomUUID();
  const claimed = await claimDueSubscriptions(deps.database.db, deps.now(), deps.config.subscriptionClaimMs, limit, claimant);
  for (const sub of claimed) await chargeSubscriptionPeriod(deps, sub, claimant);
  return claimed.length;
}
