import { capabilitiesOf, missingCapability } from '../domain/gateway-capabilities';
import { isSourceSale, type SaleAction } from '../domain/sales';
import type { OperationReason } from '../domain/payment-reference';
import { newCall } from '../store/gateway-calls';
import { paymentReference, type StoredSale } from '../store/sales';
import { reserveSaleAction } from './sale-reservations';
import type { SaleRow } from '../store/schema';
import { findSaleOfTransaction } from '../store/payments';
import type { PaymentDeps } from './ask';
import { type Bound, startStep } from './outcome';
import { type ActionAmount, actionState, type SaleActionOutcome, sendSaleAction } from './send-action';
import { refundSourceSale } from './source-refunds';

export type { SaleActionOutcome } from './send-action';

// Capture, refund and void: reserve the amount (it moves at once, so concurrent actions
// cannot exceed it), ask the gateway outside any database transaction, record the
// operation or move the amount back (send-action.ts). An unknown outcome keeps the amount
// reserved and the sale `pending` until reconciliation proves it. A source payment's sale
// is refunded part by part (source-refunds.ts); a card charge that paid part of it is
// refunded only through it.

/** Why an action was taken when the merchant did not ask for it; kept with its call, for whoever records it. */
export type ActionReason = 'hold_expired' | 'late_payment';

export async function moveSaleMoney(
  deps: PaymentDeps,
  a: { sale: StoredSale['row']; action: SaleAction; amount: ActionAmount; reason?: ActionReason; bound?: Bound; merchantReason?: OperationReason },
): Promise<SaleActionOutcome> {
  if (isSourceSale(a.sale)) {
    // Captured whole at once: nothing is ever held, so a capture or void has nothing to move.
    return a.action === 'refund' ? refundSourceSale(deps, { sale: a.sale, amount: a.amount, bound: a.bound, reason: a.merchantReason }) : { kind: 'conflict' };
  }
  // Refunded through the transaction's sale, which lists it (a late charge, reversed by the
  // service, is not one of its sources).
  const paidPart = a.action === 'refund' && !a.reason && a.sale.source_transaction_id;
  const whole = paidPart ? await findSaleOfTransaction(deps.database.db, a.sale.source_transaction_id!) : undefined;
  if (whole) return { kind: 'part_of', sale: whole.id, transaction: a.sale.source_transaction_id! };
  const gateway = (await deps.gateways.of(a.sale.environment_id)).find(a.sale)!;
  const step = await startStep<SaleActionOutcome>(deps, a.bound, {
    current: (call) => actionState(deps, call),
    async resend(call) {
      // The payment's own gateway reference: the sale's first operation made it.
      return { ...call, request: { ...call.request, payment: (await paymentReference(deps.database.db, call.subject_id)) ?? '' } };
    },
    async reserve() {
      // Checked after the key's step: a repeat rolls its reserved action forward whatever the amounts say now.
      if (a.amount !== 'all' && a.amount <= 0) return { done: { kind: 'conflict' } };
      const missing = missingCapability(capabilitiesOf(gateway), a.action, a.sale, a.amount);
      if (missing) return { done: { kind: 'unsupported', missing } };
      const call = newCall({
        environmentId: a.sale.environment_id,
        gateway,
        kind: a.action,
        subjectId: a.sale.id,
        // All of it: chosen by the reservation, from the sale's row locked.
        amount: a.amount === 'all' ? 0 : a.amount,
        currency: a.sale.currency,
        // The merchant's reason travels with the call too: whoever records it stores it on the operation.
        request: { ...(a.reason ? { reason: a.reason } : {}), ...(a.merchantReason ? { merchant_reason: a.merchantReason } : {}) },
        now: deps.now(),
        claimMs: deps.config.paymentClaimMs,
        bound: a.bound,
      });
      const reserved = await reserveSaleAction(deps.database.db, { call, action: a.action, now: deps.now(), outbox: deps.outbox, all: a.amount === 'all' });
      if (reserved.kind !== 'reserved') return { done: reserved };
      return { call: { ...reserved.call, request: { ...reserved.call.request, payment: reserved.payment ?? '' } } };
    },
  });
  return 'done' in step ? step.done : sendSaleAction(deps, step.call, gateway);
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
