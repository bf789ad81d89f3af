import { manualPeriod, periodKey } from '../domain/merchant-payouts';
import type { Deps } from '../deps';
import type { Db } from '../store/db';
import { claimPendingPayouts, makePayout, payableByCurrency, scheduledEnvironments, settlePayout } from '../store/merchant-payouts';
import type { MerchantPayoutRow } from '../store/schema';
import { askGateway } from './ask';

// Payouts of the merchant's balance to its bank account (docs/balance.md#payouts), through
// the payout gateway the wallets' payouts use (payout-gateway.ts) and under the same rules
// (payouts.ts): the money leaves the balance when the payout is made, in one database
// transaction; the gateway is asked outside any transaction, with the payout's id as the
// reference, by whichever process claimed the payout; an answer is recorded once (a
// conditional update of the status); a call with no answer leaves the payout pending until
// the claim runs out and a later round asks again with the same reference, which the
// provider answers as it did the first time. So a payout is paid, or failed and returned,
// exactly once, across processes and crashes.

type PayoutDeps = Pick<Deps, 'config' | 'database' | 'outbox' | 'payouts' | 'log' | 'now'>;

/** One round of scheduled payouts: each environment's currencies with money available and no payout this period. */
export async function makeScheduledPayouts(deps: PayoutDeps, limit: number): Promise<number> {
  const db = deps.database.db;
  let made = 0;
  for (const s of await scheduledEnvironments(db)) {
    const now = deps.now();
    const period = periodKey(s.schedule, now);
    for (const { currency } of await payableByCurrency(db, s.environment_id, now, period)) {
      const payout = await makePayout(db, deps.outbox, { environmentId: s.environment_id, currency, period, schedule: s.schedule, iban: s.iban, now });
      if (payout) {
        made++;
        deps.log.info({ payout: payout.id, period }, 'merchant payout made');
      }
      if (made >= limit) return made;
    }
  }
  return made;
}

/**
 * A manual payout of what is available in `currency`, on `db` (a keyed request's
 * transaction): null when nothing is available to pay out.
 */
export async function makeManualPayout(db: Db, deps: PayoutDeps, p: { environmentId: string; currency: string; iban: string }): Promise<MerchantPayoutRow | null> {
  return makePayout(db, deps.outbox, { ...p, period: manualPeriod, schedule: 'manual', now: deps.now() });
}

/** One round of sending: up to `limit` pending payouts to the payout gateway; resolves with how many were settled. */
export async function sendMerchantPayouts(deps: PayoutDeps, limit: number): Promise<number> {
  const db = deps.database.db;
  let settled = 0;
  for (const payout of await claimPendingPayouts(db, deps.now(), deps.config.paymentClaimMs, limit)) {
    const answer = await askGateway(deps, deps.payouts, (signal) =>
      deps.payouts.payout({ reference: payout.id, iban: payout.iban, amount: payout.amount, currency: payout.currency, signal }),
    );
    // No answer: the bank may have paid. The payout stays pending and claimed; once the
    // claim runs out a later round asks again with the same reference.
    if (answer.kind !== 'answered') continue;
    const result = answer.value;
    if (await settlePayout(db, deps.outbox, payout, result.ok ? null : result.reason, deps.now())) settled++;
    deps.log.info({ payout: payout.id, paid: result.ok }, 'merchant payout settled');
  }
  return settled;
}

/** The payout job's round: make what the schedules call for, then send what is pending. */
export async function runMerchantPayouts(deps: PayoutDeps, limit: number): Promise<number> {
  return (await makeScheduledPayouts(deps, limit)) + (await sendMerchantPayouts(deps, limit));
}
