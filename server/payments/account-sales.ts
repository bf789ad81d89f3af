import type { AccountSales } from '../store/account-sales';
import type { GatewayCall } from '../store/gateway-calls';
import type { PaymentDeps } from './ask';
import type { ProcessorSource } from './processor-attention';

/**
 * The sales a processor account's own reading may compare or settle (its sweep, its
 * disputes): those it made, never another account's of the same gateway id; and those that
 * name no account (made before migration 138) only when the registry's rule would send them
 * to it (payments/registry.ts `named`), so they keep meeting the account they met before.
 */
export async function salesOfAccount(deps: Pick<PaymentDeps, 'gateways'>, source: Pick<ProcessorSource, 'environmentId' | 'processorId' | 'gateway'>): Promise<AccountSales> {
  const gateways = await deps.gateways.of(source.environmentId);
  const unnamedGoTo = gateways.find({ gateway_id: source.gateway.id, gateway_account: null })?.account;
  return { environmentId: source.environmentId, gatewayId: source.gateway.id, account: source.processorId, unnamed: unnamedGoTo === source.processorId };
}

/**
 * Whether a gateway call of ours is the account's by the same rule as its sales: a webhook
 * of one account must never settle another's call of the same gateway id, whichever route
 * the delivery came to.
 */
export function callOfAccount(a: AccountSales, call: Pick<GatewayCall, 'environment_id' | 'gateway_id' | 'gateway_account'>): boolean {
  const mine = call.gateway_account === a.account || (a.unnamed && call.gateway_account === null);
  return call.environment_id === a.environmentId && call.gateway_id === a.gatewayId && mine;
}
