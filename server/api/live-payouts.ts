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
