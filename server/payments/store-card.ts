import { uuidv7 } from '../domain/ids';
import { insertCall, newCall, type GatewayCall } from '../store/gateway-calls';
import type { AuthorizationRow } from '../store/schema';
import { recordStoredCard, settleCallOnly } from '../store/sales';
import { askGateway, type PaymentDeps, type Settled } from './ask';
import type { StoringGateway } from './gateway';

// Storing a card without charging it: an authorization the merchant charges later.

export type StoreCardOutcome =
  | { kind: 'stored'; authorization: AuthorizationRow }
  | { kind: 'declined'; reason: string }
  | { kind: 'gateway_failed' };

export async function storeCard(
  deps: PaymentDeps,
  s: { environmentId: string; gateway: StoringGateway; fields: Record<string, string>; notifyUrl: string | null },
): Promise<StoreCardOutcome> {
  const { gateway } = s;
  const now = deps.now();
  const id = uuidv7(now.getTime());
  const call = newCall({
    environmentId: s.environmentId,
    gatewayId: gateway.id,
    kind: 'store',
    subjectId: id,
    amount: 0,
    currency: '',
    request: { notify_url: s.notifyUrl },
    now,
    claimMs: deps.config.paymentClaimMs,
  });
  await insertCall(deps.database.db, call);
  const answer = await askGateway(deps, gateway, (signal) => gateway.store({ reference: call.reference, signal, fields: s.fields }));
  if (answer.kind === 'lost') {
    await settleCallOnly(deps.database.db, call.id, 'abandoned', deps.now());
    return { kind: 'gateway_failed' };
  }
  const r = answer.value;
  const settled: Settled = r.outcome === 'approved' ? { status: 'succeeded', reference: r.reference, card: r.card } : { status: 'failed', reason: r.outcome, card: r.card };
  const authorization = await recordStoredCardResult(deps, call, settled);
  if (authorization) return { kind: 'stored', authorization };
  return r.outcome === 'approved' ? { kind: 'gateway_failed' } : { kind: 'declined', reason: r.outcome };
}

/** Records what the gateway did for a store call: from the live request, or from reconciliation. */
export async function recordStoredCardResult(deps: PaymentDeps, call: GatewayCall, s: Settled): Promise<AuthorizationRow | null> {
  const now = deps.now();
  if (s.status === 'failed') {
    await settleCallOnly(deps.database.db, call.id, 'failed', now);
    return null;
  }
  const at = now.toISOString();
  const row: AuthorizationRow = {
    // The id chosen at reservation, so a late record names the same object.
    id: call.subject_id,
    environment_id: call.environment_id,
    transaction_id: null,
    gateway_id: call.gateway_id,
    status: 'active',
    card_brand: s.card?.brand ?? null,
    card_last4: s.card?.last4 ?? null,
    card_exp_month: s.card?.expMonth ?? null,
    card_exp_year: s.card?.expYear ?? null,
    gateway_reference: s.reference,
    notify_url: (call.request.notify_url as string | null | undefined) ?? null,
    created_at: at,
    updated_at: at,
  };
  return (await recordStoredCard(deps.database.db, call.id, row, deps.outbox, now)) ? row : null;
}
