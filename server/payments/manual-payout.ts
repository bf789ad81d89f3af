import type { Deps } from '../deps';
import type { Db } from '../store/db';
import { heldUntil, payableByCurrency, payoutSettingsOf } from '../store/merchant-payouts';
import type { MerchantPayoutRow } from '../store/schema';
import { makeManualPayout } from './merchant-payouts';

// "Pay out now": a manual payout of what is available in one currency, with every reason
// to refuse it checked first (docs/balance.md#payouts). POST /v1/merchant_payout/ and the
// dashboard's Balance page both call it, so both refuse and pay out alike.

export type ManualPayoutRefusal =
  /** The payouts follow the daily or weekly schedule. */
  | { reason: 'scheduled'; schedule: 'daily' | 'weekly' }
  | { reason: 'no_iban' }
  /** A new bank account (`iban`) holds the payouts until an owner confirms it, or `until` (payout-account.ts). */
  | { reason: 'held'; iban: string; until: string }
  /** A live environment with no real payout provider. */
  | { reason: 'no_provider' }
  /** A live payout by SEPA file names its creditor: no account holder name set. */
  | { reason: 'no_holder' }
  /** Nothing positive available in the currency; `available` the currencies that have some. */
  | { reason: 'nothing_available'; available: string[] };

export type ManualPayoutOutcome = { ok: true; payout: MerchantPayoutRow } | ({ ok: false } & ManualPayoutRefusal);

/** What a payout made now would pay, and where to; or why none can be made. */
export type ManualPayoutCheck = { ok: true; amount: bigint; iban: string; holder: string | null } | ({ ok: false } & ManualPayoutRefusal);

type PayoutDeps = Parameters<typeof makeManualPayout>[1] & Pick<Deps, 'payouts'>;

interface Request {
  environmentId: string;
  live: boolean;
  currency: string;
}

/** Whether a manual payout in `currency` can be made now, and of how much: the dashboard's confirmation step asks it first. */
export async function checkManualPayout(db: Db, deps: Pick<Deps, 'payouts' | 'now'>, p: Request): Promise<ManualPayoutCheck> {
  const settings = await payoutSettingsOf(db, p.environmentId);
  if (settings.schedule !== 'manual') return { ok: false, reason: 'scheduled', schedule: settings.schedule };
  if (!settings.iban) return { ok: false, reason: 'no_iban' };
  const until = heldUntil(settings, deps.now());
  if (until) return { ok: false, reason: 'held', iban: settings.iban, until };
  const provider = deps.payouts.forMode(p.live);
  if (!provider) return { ok: false, reason: 'no_provider' };
  if (p.live && provider.files && !settings.account_holder_name) return { ok: false, reason: 'no_holder' };
  const payable = await payableByCurrency(db, p.environmentId, deps.now());
  const amount = payable.find((a) => a.currency === p.currency)?.amount;
  if (!amount) return { ok: false, reason: 'nothing_available', available: payable.map((a) => a.currency) };
  return { ok: true, amount, iban: settings.iban, holder: settings.account_holder_name };
}

/** Pays out what is available in `currency` now, on `db` (a keyed request's transaction), or says why not. */
export async function requestManualPayout(db: Db, deps: PayoutDeps, p: Request): Promise<ManualPayoutOutcome> {
  const check = await checkManualPayout(db, deps, p);
  if (!check.ok) return check;
  const payout = await makeManualPayout(db, deps, { environmentId: p.environmentId, currency: p.currency, iban: check.iban, holder: check.holder });
  if (payout) return { ok: true, payout };
  // Paid out by another request since the check.
  const available = (await payableByCurrency(db, p.environmentId, deps.now())).map((a) => a.currency);
  return { ok: false, reason: 'nothing_available', available };
}
