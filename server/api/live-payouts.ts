import type { Deps } from '../deps';
import { ApiError } from '../http/problem';
import { NO_LIVE_PAYOUTS } from '../payments/payout-gateway';

/**
 * A payout (a wallet's to an IBAN, or the merchant's) needs a provider of the environment's
 * mode: in a live environment with no real one configured, a 409 before anything is
 * reserved, rather than a payout the sandbox would record as paid while no money leaves.
 */
export function refuseWithoutPayouts(deps: Pick<Deps, 'payouts'>, live: boolean): void {
  if (!deps.payouts.forMode(live)) throw new ApiError('conflict', `${NO_LIVE_PAYOUTS}. Nothing was moved.`);
}

/**
 * A live payout paid by SEPA file (PAYOUT_PROVIDER=sepa-file) names its creditor, whose
 * name banks check against the account: without an account holder name, a 409 naming
 * where to give it, before anything is reserved (docs/balance.md#payout-files).
 */
export function refuseWithoutHolder(deps: Pick<Deps, 'payouts'>, live: boolean, holder: string | null, where: string): void {
  if (!live || holder || !deps.payouts.forMode(true)?.files) return;
  throw new ApiError('conflict', `A payout by SEPA file names the account's holder: set account_holder_name on ${where} first. Nothing was moved.`);
}
