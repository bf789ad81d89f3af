import { saleStatus, type SaleAmounts } from './sales';
import { effectiveStatus, type TransactionStatus } from './transaction-status';

// A payment's status in the merchant's words (the dashboard's list and page): one reading of
// the transaction, its sale and its last payment attempt. Pure.

export type PaymentStatus =
  | 'paid'
  | 'partially_refunded'
  | 'refunded'
  | 'disputed'
  | 'uncaptured'
  | 'processing'
  | 'voided'
  | 'failed'
  | 'incomplete'
  | 'cancelled'
  | 'expired';

/** What the checkout's attempts record (store/payments.ts): a refusal of the bank, or of the customer at a redirect. */
const FAILED_ATTEMPTS = new Set(['declined', 'insufficient_funds', 'rejected']);

export interface PaymentFacts {
  tx: { status: TransactionStatus; expired_at: string };
  /** The sale that paid it (not a failed one), or null. */
  sale: (SaleAmounts & { dispute_id: string | null }) | null;
  /** The outcome of its last payment attempt, or null when there was none. */
  lastAttempt: string | null;
}

/** How a sale stands in the same words: the one that paid a payment, or any sale of an export. */
export function paymentStatusOfSale(sale: NonNullable<PaymentFacts['sale']>): PaymentStatus {
  if (sale.dispute_id !== null) return 'disputed';
  switch (saleStatus(sale)) {
    case 'pending':
      return 'processing';
    case 'held':
    case 'partially_captured':
      return 'uncaptured';
    case 'voided':
      return 'voided';
    case 'partially_refunded':
      return 'partially_refunded';
    case 'refunded':
      return 'refunded';
    case 'failed':
    case 'declined':
      return 'failed';
    default:
      return 'paid';
  }
}

export function paymentStatus(f: PaymentFacts, now: Date): PaymentStatus {
  if (f.sale) return paymentStatusOfSale(f.sale);
  const status = effectiveStatus(f.tx.status, f.tx.expired_at, now);
  if (status === 'D') return 'paid';
  if (status === 'C') return 'cancelled';
  if (status === 'E') return 'expired';
  return f.lastAttempt !== null && FAILED_ATTEMPTS.has(f.lastAttempt) ? 'failed' : 'incomplete';
}
