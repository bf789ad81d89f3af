import type { Deps } from '../deps';
import type { Readiness } from '../domain/live-readiness';
import type { Attention } from '../store/dashboard-figures';
import type { Db } from '../store/db';
import { heldUntil, payoutSettingsOf } from '../store/merchant-payouts';
import { currenciesInUse } from '../store/overview';
import { oldestUnsentFile } from '../store/payout-files';
import { readinessOf } from './live-readiness';

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
  /** A new bank account awaiting an owner's confirmation (docs/balance.md): payouts held until then, or `until`; null when none is held. */
  payoutsHeld: { last4: string; until: string } | null;
  /** The oldest payout file written and never downloaded (PAYOUT_PROVIDER=sepa-file): its payouts wait for it to reach the bank. */
  unsentFileSince: string | null;
  /** A live environment's readiness (live-readiness.ts): warned of while an item is missing or webhooks stopped; null in a sandbox. */
  readiness: Readiness | null;
}

/** The Overview's "Needs attention": the rows waiting for a person, and the set-up's gaps. */
export type HomeAttention = Attention & SetupGaps;

export async function setupGaps(deps: Pick<Deps, 'gateways' | 'payouts'>, db: Db, env: { id: string; live: boolean }, now: Date): Promise<SetupGaps> {
  const [currencies, payouts, gateways, unsent, readiness] = await Promise.all([
    currenciesInUse(db, env.id, now),
    payoutSettingsOf(db, env.id),
    deps.gateways.of(env.id),
    oldestUnsentFile(db, env.id),
    env.live ? readinessOf(db, env.id, now) : null,
  ]);
  const unpayable = currencies.filter((c) => gateways.forCurrency(c, env.live).length === 0);
  const held = heldUntil(payouts, now);
  return {
    unpayable,
    noMethod: currencies.length === 0 && !gateways.usable(env.live).some((g) => g.enabled),
    payoutsPaused: payouts.schedule !== 'manual' && payouts.iban !== null && !deps.payouts.forMode(env.live),
    payoutsHeld: held && payouts.iban ? { last4: payouts.iban.slice(-4), until: held } : null,
    unsentFileSince: unsent?.created_at ?? null,
    readiness,
  };
}
