import type { Deps } from '../deps';
import type { Attention } from '../store/dashboard-figures';
import type { Db } from '../store/db';
import { payoutSettingsOf } from '../store/merchant-payouts';
import { currenciesInUse } from '../store/overview';

// What the service's set-up keeps from working in an environment, for the Overview's
// "Needs attention": no state of any row says it (a refused transaction is not stored, a
// skipped payout is not made), so it is read from the gateways and payout providers of
// the environment's mode, as the API and the payout job choose them.

export interface SetupGaps {
  /** Currencies in use (store/overview.ts) that no gateway of the environment's mode accepts. */
  unpayable: string[];
  /** No gateway of the mode at all and no currency in use yet: nothing can be paid. */
  noMethod: boolean;
  /** A payout schedule the payout job skips: a live environment with no real payout provider. */
  payoutsPaused: boolean;
}

/** The Overview's "Needs attention": the rows waiting for a person, and the set-up's gaps. */
export type HomeAttention = Attention & SetupGaps;

export async function setupGaps(deps: Pick<Deps, 'gateways' | 'payouts'>, db: Db, env: { id: string; live: boolean }, now: Date): Promise<SetupGaps> {
  const [currencies, payouts] = await Promise.all([currenciesInUse(db, env.id, now), payoutSettingsOf(db, env.id)]);
  const unpayable = currencies.filter((c) => deps.gateways.forCurrency(c, env.live).length === 0);
  return {
    unpayable,
    noMethod: currencies.length === 0 && !deps.gateways.usable(env.live).some((g) => g.enabled),
    payoutsPaused: payouts.schedule !== 'manual' && payouts.iban !== null && !deps.payouts.forMode(env.live),
  };
}
