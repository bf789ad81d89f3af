import { uuidv7 } from '../domain/ids';
import { Rollback, rollbackOn } from '../store/db';
import { type GatewayCall, salesOfAction } from '../store/gateway-calls';
import { unrefund } from '../store/sale-aggregate';
import { addOperation, operationsByReference } from '../store/sale-operations';
import { lockSaleRow } from '../store/sales';
import { findCallByReference } from '../store/unknown-outcomes';
import { callOfAccount, salesOfAccount } from './account-sales';
import type { PaymentDeps } from './ask';
import { reverseMovement } from './ledger-posting';
import { applyNotification } from './notification';
import { needsAttention, type ProcessorSource } from './processor-attention';
import type { SeenRefund } from './processor-said';

// Refunds as the processor holds them (its `charge.refunded`, `refund.updated` and
// `refund.failed` events, read again by id: stripe/refund-events.ts), compared with our
// books. Our refunds carry our call's reference; each is judged on what the processor says
// now, so an event delivered again, or late, or before an older one, changes nothing twice:
//
// - our refund call still pending (its answer unknown, or not recorded yet): settled by
//   this, as a lookup's answer would (made, or failed: its amount released);
// - recorded as made, and now failed (a pending refund the bank returned): undone in our
//   books, once: the sale's `refunded` gives it back (refundable again), a `refund_failed`
//   operation and the `sale.refund_failed` event tell the merchant, and what the refund took
//   from the sale's destinations on the ledger is given back;
// - anything else that disagrees with our books (a refund we do not know, made at the
//   processor by someone else; one our books released that the processor made; a failed
//   reversal of a payment of ours): an attention item, never a silent change.

const REVERSAL = '_reversal';

export async function applyRefunds(deps: PaymentDeps, source: ProcessorSource, refunds: SeenRefund[]): Promise<void> {
  for (const refund of refunds) await applyRefund(deps, source, refund);
}

async function applyRefund(deps: PaymentDeps, source: ProcessorSource, r: SeenRefund): Promise<void> {
  const attention = (why: string) => needsAttention(deps, source, { subject: r.id, reference: r.reference, why });
  const reversal = r.reference?.endsWith(REVERSAL) ?? false;
  const reference = reversal ? r.reference!.slice(0, -REVERSAL.length) : r.reference;
  const found = reference ? await findCallByReference(deps.database.db, reference) : undefined;
  // Only the sending account's own call: after a disconnect and a connect of the same type, two accounts' calls share the gateway id.
  const call = found && callOfAccount(await salesOfAccount(deps, source), found) ? found : undefined;
  if (!call) {
    if (r.state === 'failed') return;
    return attention(`a refund we do not know (${amountOf(r)}): not made through this service, so our books do not show it`);
  }
  // A payment of ours reversed at the processor (payments/outcome.ts): kept with its call, unless it failed.
  if (reversal) return r.state === 'failed' ? attention(`the reversal of a payment of ours failed (${r.why}): the customer was charged and not refunded`) : undefined;
  if (call.kind !== 'refund') return attention(`a refund carrying the reference of a ${call.kind}, not of a refund`);
  if (call.state === 'pending') {
    const result = r.state === 'made' ? ({ status: 'succeeded', reference: r.id, card: null } as const) : ({ status: 'failed', reason: 'refused', card: null } as const);
    return applyNotification(deps, source.gateway, call, { reference: call.reference, result });
  }
  if (call.state === 'succeeded' && r.state === 'failed') {
    const undone = await recordRefundFailure(deps, call, r);
    if (undone === 'not_undone') return attention(`our refund failed at the processor (${r.why}), and our books could not take it back: check the sale ${call.subject_id}`);
    return;
  }
  if (call.state === 'failed' && r.state === 'made') return attention(`the processor made a refund (${amountOf(r)}) that our books released as not made: the sale ${call.subject_id} shows it refundable`);
}

const amountOf = (r: SeenRefund) => `${r.amount} ${r.currency.toUpperCase()} minor units`;

/**
 * A refund we recorded as made failed at the processor: undone in our books, once (the
 * operation `refund_failed` with the processor's refund id is its mark). `done`: undone now
 * or before.
 */
async function recordRefundFailure(deps: PaymentDeps, call: GatewayCall, r: SeenRefund): Promise<'done' | 'not_undone'> {
  // A card's part of a refund of a source payment's sale moved two sales: left to a person.
  if (salesOfAction(call).length !== 1) return 'not_undone';
  const now = deps.now();
  const undone = await rollbackOn<'undone' | 'done' | 'not_undone', 'not_undone'>(deps.database.db, async (trx) => {
    const sale = await lockSaleRow(trx, call.subject_id);
    if (!sale) return 'not_undone';
    const ops = await operationsByReference(trx, sale.id, r.id);
    if (ops.some((o) => o.kind === 'refund_failed')) return 'done';
    const made = ops.find((o) => o.kind === 'refund');
    if (!made || made.amount !== r.amount || !(await unrefund(trx, sale.id, made.amount, now))) throw new Rollback('not_undone');
    await addOperation(trx, sale.id, 'refund_failed', made.amount, r.id, now);
    // What the refund took back from the sale's destinations (its movement) goes back to them.
    if (made.movement_id) await reverseMovement(trx, deps.outbox, { movementId: made.movement_id, reversalId: uuidv7(now.getTime()), concept: 'refund failed', now });
    await deps.outbox.emit(trx, 'sale.refund_failed', sale.id, now);
    return 'undone';
  });
  if (undone === 'undone') deps.log.warn({ sale: call.subject_id, call: call.id, refund: r.id, why: r.why }, 'refund failed at the processor: undone in our books');
  return undone === 'not_undone' ? undone : 'done';
}
