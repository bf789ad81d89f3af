import { newCall, type GatewayCall } from '../store/gateway-calls';
import type { AuthorizationRow } from '../store/schema';
import { type ChargeOutcome, recordCharge, reserveCharge, settleCallOnly } from '../store/sales';
import { askGateway, type PaymentDeps, type Settled } from './ask';

// Charging a stored payment method (an authorization): what the API's charge does today,
// and what a subscription's periodic charge will do.

export type ChargeResult =
  | ChargeOutcome
  /** Removed: nothing reserved, the gateway not asked. */
  | { kind: 'not_active' }
  /** The gateway failed or did not answer in time: no sale. */
  | { kind: 'gateway_failed' };

export async function chargeAuthorization(
  deps: PaymentDeps,
  c: { authorization: AuthorizationRow; amount: number; currency: string; description: string | null },
): Promise<ChargeResult> {
  const auth = c.authorization;
  const gateway = deps.gateways.find(auth.gateway_id)!;
  const now = deps.now();
  const call = newCall({
    environmentId: auth.environment_id,
    gatewayId: gateway.id,
    kind: 'charge',
    subjectId: auth.id,
    amount: c.amount,
    currency: c.currency,
    request: { description: c.description },
    now,
    claimMs: deps.config.paymentClaimMs,
  });
  if (!(await reserveCharge(deps.database.db, call))) return { kind: 'not_active' };
  const answer = await askGateway(deps, gateway, (signal) =>
    gateway.charge({ reference: call.reference, signal, method: auth.gateway_reference, amount: c.amount, currency: c.currency }),
  );
  if (answer.kind === 'lost') {
    await settleCallOnly(deps.database.db, call.id, 'abandoned', deps.now());
    return { kind: 'gateway_failed' };
  }
  const r = answer.value;
  const settled: Settled = r.outcome === 'approved' ? { status: 'succeeded', reference: r.reference, card: r.card } : { status: 'failed', reason: r.outcome, card: r.card };
  return (await recordChargeResult(deps, call, settled)) ?? { kind: 'gateway_failed' };
}

/** Records what the gateway did for a charge call: from the live request, or from reconciliation. */
export function recordChargeResult(deps: PaymentDeps, call: GatewayCall, s: Settled): Promise<ChargeOutcome | null> {
  const result =
    s.status === 'succeeded'
      ? ({ outcome: 'approved', reference: s.reference } as const)
      : ({ outcome: s.reason === 'insufficient_funds' ? 'insufficient_funds' : 'declined' } as const);
  return recordCharge(deps.database.db, { call, result, now: deps.now(), outbox: deps.outbox });
}
