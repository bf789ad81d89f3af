import type { Gateway } from './gateway';
import { PROCESSOR_GATEWAY_IDS } from './processors';

// Who settles a gateway's money (docs/balance.md "Who settles the money"): the platform,
// whose account it reaches (the merchant's balance, payouts, dispute fees and `destination`
// splits follow it), or the merchant's own processor account, which pays the merchant
// itself. Every connected processor's gateway is the merchant's own account: settled by it
// whatever it declares; a shared gateway (the sandbox's, GATEWAY_MODULES') says which.

/** Whether `g`, one of `shared` (the gateways every environment has) or a processor's, is settled by the merchant's processor. */
export function settledByProcessor(g: Pick<Gateway, 'id' | 'settlement'>, shared: readonly Pick<Gateway, 'id'>[]): boolean {
  return g.settlement === 'processor' || !shared.some((s) => s.id === g.id);
}

/**
 * The ids of every gateway whose money a processor settles, in any environment: those of
 * the processor types (stable, the same in every environment) and the shared ones that
 * declare it. What the balance job leaves out.
 */
export function processorSettledIds(shared: readonly Pick<Gateway, 'id' | 'settlement'>[]): string[] {
  return [...Object.values(PROCESSOR_GATEWAY_IDS).flat(), ...shared.filter((g) => g.settlement === 'processor').map((g) => g.id)];
}
