import type { Deps } from '../deps';
import type { Db } from '../store/db';
import { findEnvironment } from '../store/environments';
import type { PayoutGateway } from './payout-gateway';

// Which provider sends an environment's payouts: the one of its mode (payout-gateway.ts).
// The payout jobs ask it per payout, since one round sends the payouts of every
// environment, sandboxes and live ones alike.

/**
 * The payout provider of an environment; null for a live one when no real provider is
 * configured (its payouts wait: none goes through the sandbox and reads as paid).
 */
export async function providerOf(deps: Pick<Deps, 'payouts'>, db: Db, environmentId: string): Promise<PayoutGateway | null> {
  const env = await findEnvironment(db, environmentId);
  return deps.payouts.forMode(env?.mode !== 'sandbox');
}

/** Live environments pay out by SEPA file (PAYOUT_PROVIDER=sepa-file): the payout workers leave their payouts to the file job. */
export const paysByFile = (deps: Pick<Deps, 'payouts'>): boolean => Boolean(deps.payouts.forMode(true)?.files);
