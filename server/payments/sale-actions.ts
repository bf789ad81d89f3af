import type { SaleAction } from '../domain/sales';
import type { Tx } from '../store/db';
import { markHoldExpired } from '../store/expiring-holds';
import { newCall, type GatewayCall } from '../store/gateway-calls';
import { getSale, recordSaleAction, releaseSaleAction, reserveSaleAction, type StoredSale } from '../store/sales';
import type { SaleRow } from '../store/schema';
import { getCall } from '../store/unknown-outcomes';
import { askGateway, type PaymentDeps, type Settled } from './ask';
import { type Bound, outcomeUnknown, recordSafely, resumeStep } from './outcome';

// Capture, refund and void: reserve the amount (it moves at once, so concurrent actions
// cannot exceed it), ask the gateway outside any database transaction, record the
// operation or move the amount back. An unknown outcome keeps the amount reserved and
// the sale `pending` until reconciliation proves it.

export type SaleActionOutcome =
  | { kind: 'done'; sale: StoredSale }
  /** The outcome is unknown: the amount stays reserved, the sale `pending`. */
  | { kind: 'pending'; sale: StoredSale }
  /** The amounts no longer allow it: nothing reserved, the gateway not asked. */
  | { kind: 'conflict' }
  /** The gateway refused, or surely did nothing: nothing changed. */
  | { kind: 'gateway_failed'; reason: string }
  /** Another process is sending this key's action now. */
  | { kind: 'in_flight'; retryAfterMs: number };

/** Why an action was taken when the merchant did not ask for it; kept with its call, for whoever records it. */
export type ActionReason = 'hold_expired' | 'late_payment';

export async function moveSaleMoney(
  deps: PaymentDeps,
  a: { sale: StoredSale['row']; action: SaleAction; amount: number; reason?: ActionReason; bound?: Bound },
): Promise<SaleActionOutcome> {
  const gateway = deps.gateways.find(a.sale.gateway_id)!;
  const resume = await resumeStep(deps, a.bound);
  if (resume.kind === 'in_flight') return resume;
  if (resume.kind === 'current') return currentState(deps, resume.call);
  let call: GatewayCall;
  if (resume.kind === 'resend') {
    // The payment's own gateway reference: the sale's first operation made it.
    const first = (await getSale(deps.database.db, null, resume.call.subject_id))?.operations[0];
    call = { ...resume.call, request: { ...resume.call.request, payment: first?.gateway_reference ?? '' } };
  } else {
    // Checked after the key's step: a repeat rolls its reserved action forward whatever the amounts say now.
    if (a.amount <= 0) return { kind: 'conflict' };
    call = newCall({
      environmentId: a.sale.environment_id,
      gatewayId: gateway.id,
      kind: a.action,
      subjectId: a.sale.id,
      amount: a.amount,
      currency: a.sale.currency,
      request: a.reason ? { reason: a.reason } : {},
      now: deps.now(),
      claimMs: deps.config.paymentClaimMs,
      bound: a.bound,
    });
    const reserved = await reserveSaleAction(deps.database.db, { call, action: a.action, now: deps.now(), outbox: deps.outbox });
    if (reserved.kind !== 'reserved') return reserved;
    call.request = { ...call.request, payment: reserved.payment ?? '' };
  }
  const payment = String(call.request.payment ?? '');
  const action = call.kind as SaleAction;
  const answer = await askGateway(deps, gateway, (signal) => gateway[action]({ reference: call.reference, signal, payment, amount: call.amount }));
  if (answer.kind === 'unknown') return currentState(deps, await outcomeUnknown(deps, call));
  if (answer.kind === 'not_acted') {
    await releaseSaleAction(deps.database.db, { call, action, state: 'failed', now: deps.now(), outbox: deps.outbox });
    return { kind: 'gateway_failed', reason: answer.reason };
  }
  const result = answer.value;
  const settled: Settled = result.ok ? { status: 'succeeded', reference: result.reference, card: null } : { status: 'failed', reason: 'refused', card: null };
  const recorded = await recordSafely(deps, call, settled, () => recordSaleActionResult(deps, call, settled));
  if (recorded.kind === 'recorded' && recorded.value) return { kind: 'done', sale: recorded.value };
  if (!result.ok) return { kind: 'gateway_failed', reason: result.reason };
  return currentState(deps, call);
}

/** What an action's call has come to, as the API answers it: for a repeat of its key, or a call settled elsewhere. */
async function currentState(deps: PaymentDeps, call: GatewayCall): Promise<SaleActionOutcome> {
  const db = deps.database.db;
  const fresh = (await getCall(db, call.id)) ?? call;
  const sale = (await getSale(db, null, fresh.subject_id))!;
  switch (fresh.state) {
    case 'succeeded':
      return { kind: 'done', sale };
    case 'pending':
    case 'attention':
      return { kind: 'pending', sale };
    default:
      return { kind: 'gateway_failed', reason: 'the gateway did not do it' };
  }
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
  if (s.status === 'succeeded') {
    const now = deps.now();
    // A void of an expired hold says so on the sale, and in an event of its own.
    const also = call.request.reason === 'hold_expired' ? (trx: Tx) => markHoldExpired(trx, deps.outbox, call.subject_id, now) : undefined;
    return recordSaleAction(db, { call, action, gatewayReference: s.reference, now, outbox: deps.outbox, from, also });
  }
  if (from === 'pending') await releaseSaleAction(db, { call, action, state: 'failed', now: deps.now(), outbox: deps.outbox });
  return null;
}

/**
 * The reversal of a late payment (a checkout payment for a transaction that moved on, or a
 * charge the settle window had failed): the sale's own refund or void, so it is reserved,
 * proven and recorded as any other (an unknown outcome stays pending for reconciliation).
 * Its failure is logged, never thrown: the payment itself is recorded and must stay so.
 */
export async function reverseLatePayment(deps: PaymentDeps, sale: SaleRow): Promise<void> {
  const action = sale.held > 0 ? 'void' : 'refund';
  deps.log.warn({ sale: sale.id, transaction: sale.late_for_transaction_id, action }, 'late payment, told after its settle window: reversing it');
  try {
    const reversed = await moveSaleMoney(deps, { sale, action, amount: sale.amount, reason: 'late_payment' });
    if (reversed.kind !== 'done' && reversed.kind !== 'pending') {
      deps.log.error({ sale: sale.id, outcome: reversed.kind }, 'late payment not reversed: reverse it from the sale');
    }
  } catch (err) {
    deps.log.error({ sale: sale.id, err }, 'late payment not reversed: reverse it from the sale');
  }
}
