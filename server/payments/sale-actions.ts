import type { SaleAction } from '../domain/sales';
import { newCall, type GatewayCall } from '../store/gateway-calls';
import { recordSaleAction, releaseSaleAction, reserveSaleAction, type StoredSale } from '../store/sales';
import { askGateway, type PaymentDeps, type Settled } from './ask';

// Capture, refund and void: reserve the amount (it moves at once, so concurrent actions
// cannot exceed it), ask the gateway outside any database transaction, record the
// operation or move the amount back.

export type SaleActionOutcome =
  | { kind: 'done'; sale: StoredSale }
  /** The amounts no longer allow it: nothing reserved, the gateway not asked. */
  | { kind: 'conflict' }
  /** The gateway refused, failed or did not answer in time: nothing changed. */
  | { kind: 'gateway_failed'; reason: string };

export async function moveSaleMoney(
  deps: PaymentDeps,
  a: { sale: StoredSale['row']; action: SaleAction; amount: number },
): Promise<SaleActionOutcome> {
  const gateway = deps.gateways.find(a.sale.gateway_id)!;
  const now = deps.now();
  const call = newCall({
    environmentId: a.sale.environment_id,
    gatewayId: gateway.id,
    kind: a.action,
    subjectId: a.sale.id,
    amount: a.amount,
    currency: a.sale.currency,
    now,
    claimMs: deps.config.paymentClaimMs,
  });
  const reserved = await reserveSaleAction(deps.database.db, { call, action: a.action, now });
  if (reserved.kind === 'conflict') return reserved;
  const payment = reserved.payment ?? '';
  call.request = { payment };
  const answer = await askGateway(deps, gateway, (signal) =>
    gateway[a.action]({ reference: call.reference, signal, payment, amount: a.amount }),
  );
  if (answer.kind === 'lost') {
    await releaseSaleAction(deps.database.db, { call, action: a.action, state: 'abandoned', now: deps.now() });
    return { kind: 'gateway_failed', reason: 'the gateway did not answer' };
  }
  const result = answer.value;
  const settled: Settled = result.ok ? { status: 'succeeded', reference: result.reference, card: null } : { status: 'failed', reason: 'refused', card: null };
  const sale = await recordSaleActionResult(deps, call, settled);
  if (sale) return { kind: 'done', sale };
  return { kind: 'gateway_failed', reason: result.ok ? 'recorded elsewhere' : result.reason };
}

/** Records what the gateway did for an action call: from the live request, or from reconciliation. */
export async function recordSaleActionResult(
  deps: PaymentDeps,
  call: GatewayCall,
  s: Settled,
  from: 'pending' | 'abandoned' = 'pending',
): Promise<StoredSale | null> {
  const action = call.kind as SaleAction;
  const db = deps.database.db;
  if (s.status === 'succeeded') return recordSaleAction(db, { call, action, gatewayReference: s.reference, now: deps.now(), outbox: deps.outbox, from });
  if (from === 'pending') await releaseSaleAction(db, { call, action, state: 'failed', now: deps.now() });
  return null;
}
