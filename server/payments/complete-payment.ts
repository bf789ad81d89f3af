import type { Authentication } from '../domain/authentication';
import { uuidv7 } from '../domain/ids';
import type { Outbox } from '../store/events';
import { type Db, Rollback, rollbackOn, type Tx } from '../store/db';
import { creditDestinations } from './destinations';
import { settleCallPlanned } from '../store/gateway-calls';
import { type AttemptRecord, insertPaymentSale, notifyUrlOfTransaction, recordAttempt } from '../store/payments';
import { markTransactionPaidPlanned } from '../store/transaction-aggregate';
import type { Transaction } from '../store/transactions';
import { newSaleRow } from '../store/new-sale';
import { insertAuthorization } from '../store/authorizations';
import { answeredTogether } from '../store/together';
import type { SaleRow, TransactionLineRow } from '../store/schema';

// What an approved checkout payment writes, all or nothing, in one database transaction:
// its call succeeded, the transaction paid (D), the sale (held or captured) with its first
// operation, the stored payment method when the money is only held, the destinations'
// credits, the attempt, and the events that report them. The rules are here; the rows are
// the store's.

export interface ApprovedPayment extends AttemptRecord {
  callId: string;
  /** The processor whose gateway took it (the call's `gateway_account`). */
  gatewayAccount: string | null;
  /** The call's state now: `pending`, or `failed` when the gateway tells after the settle window that it made it after all. */
  callState: 'pending' | 'failed';
  environmentId: string;
  currency: string;
  amount: number;
  /** true: funds held (authorize); false: captured now. */
  hold: boolean;
  gatewayReference: string;
  card: { expMonth: number | null; expYear: number | null } | null;
  /** How the cardholder was authenticated, if the gateway says. */
  authentication: Authentication | null;
}

/** What paying left, as it was written: the customer's answer shows it without reading it back. */
export interface PaidRecord {
  transaction: Transaction;
  lines: TransactionLineRow[];
  sale: SaleRow;
}

export type CompleteOutcome =
  | ({ kind: 'recorded' } & PaidRecord)
  /** Another process (the live request or a reconciler) settled the call first: nothing written. */
  | { kind: 'settled_elsewhere' }
  /**
   * The transaction had moved on (paid by another attempt, cancelled, expired): the payment
   * is a sale of its own naming the transaction (`late_for_transaction_id`), with its
   * `sale.late_payment` event, for the caller to reverse at the gateway.
   */
  | { kind: 'late'; sale: SaleRow };

export function completePayment(db: Db, p: ApprovedPayment, now: Date, outbox: Outbox): Promise<CompleteOutcome> {
  return rollbackOn<CompleteOutcome, CompleteOutcome>(db, async (trx): Promise<CompleteOutcome> => {
    const saleId = uuidv7(now.getTime());
    // The call names what the processor made, as the sale does (its reference), in the same
    // write. The transaction's row as paying it leaves it, with its lines, is what the sale,
    // the split and the events name: read back only by a late payment, whose transaction this
    // one did not change. Both statements sent together (together.ts): the payment is undone
    // when the call was settled elsewhere.
    const [settled, paid] = await answeredTogether(
      trx,
      settleCallPlanned(trx, p.callId, [p.callState], 'succeeded', now, { resultId: saleId, processorId: p.gatewayReference }),
      markTransactionPaidPlanned(trx, p.transactionId, now),
    );
    if (!settled) throw new Rollback({ kind: 'settled_elsewhere' });
    const late = !paid;
    const notifyUrl = paid ? paid.row.notify_url : await notifyUrlOfTransaction(trx, p.transactionId);
    // A late hold is voided at once: nothing to store for later charges.
    const authorizationId = p.hold && !late ? await storeCard(trx, p, notifyUrl, now) : null;
    const sale = paymentSale(p, { id: saleId, late, authorizationId, notifyUrl, now });
    const operation = await insertPaymentSale(trx, sale, { kind: p.hold ? 'authorize' : 'capture', reference: p.gatewayReference }, now);
    // What was just written is the sale's snapshot: its row, its first operation, no fee yet.
    const known = { sale: { row: sale, operations: [operation], fee: 0 } };
    if (!paid) {
      // Not the transaction's: its destinations are not credited, it is not paid again.
      await outbox.emit(trx, 'sale.created', sale.id, now, known);
      await outbox.emit(trx, 'sale.late_payment', sale.id, now, known);
      return { kind: 'late', sale };
    }
    const { row: transaction, lines } = paid;
    await creditDestinations(trx, outbox, sale, transaction.destination, now);
    await recordAttempt(trx, p, now);
    await outbox.emit(trx, 'transaction.paid', p.transactionId, now, { transaction: { row: transaction, lines } });
    if (authorizationId) await outbox.emit(trx, 'authorization.created', authorizationId, now);
    await outbox.emit(trx, 'sale.created', sale.id, now, known);
    return { kind: 'recorded', sale, transaction, lines };
  });
}

/** The card of a held payment, kept for the merchant's later charges. */
async function storeCard(trx: Tx, p: ApprovedPayment, notifyUrl: string | null, now: Date): Promise<string> {
  const at = now.toISOString();
  const id = uuidv7(now.getTime());
  await insertAuthorization(trx, {
    id,
    environment_id: p.environmentId,
    transaction_id: p.transactionId,
    gateway_id: p.gatewayId,
    gateway_account: p.gatewayAccount,
    status: 'active',
    card_brand: p.cardBrand,
    card_last4: p.cardLast4,
    card_exp_month: p.card?.expMonth ?? null,
    card_exp_year: p.card?.expYear ?? null,
    gateway_reference: p.gatewayReference,
    notify_url: notifyUrl,
    created_at: at,
    updated_at: at,
  });
  return id;
}

/** The sale of an approved payment; one per paid transaction: a late one only names it. */
function paymentSale(p: ApprovedPayment, o: { id: string; late: boolean; authorizationId: string | null; notifyUrl: string | null; now: Date }): SaleRow {
  const at = o.now.toISOString();
  return newSaleRow({
    id: o.id,
    environment_id: p.environmentId,
    transaction_id: o.late ? null : p.transactionId,
    authorization_id: o.authorizationId,
    gateway_id: p.gatewayId,
    gateway_account: p.gatewayAccount,
    currency: p.currency,
    amount: p.amount,
    held: p.hold ? p.amount : 0,
    captured: p.hold ? 0 : p.amount,
    card_brand: p.cardBrand,
    card_last4: p.cardLast4,
    notify_url: o.notifyUrl,
    late_for_transaction_id: o.late ? p.transactionId : null,
    authentication_status: p.authentication?.status ?? null,
    authentication_method: p.authentication?.method ?? null,
    created_at: at,
    updated_at: at,
  });
}
