import { SALE_STATUSES, saleStatus, type SaleAmounts, type SaleStatus } from './sales';
import { effectiveStatus, type TransactionStatus } from './transaction-status';

// A payment's status in the merchant's words (the dashboard's list and page): one reading of
// the transaction, its sale and its last payment attempt. Pure.

export const PAYMENT_STATUSES = [
  'paid',
  'partially_refunded',
  'refunded',
  'disputed',
  'uncaptured',
  'processing',
  'voided',
  'failed',
  'incomplete',
  'cancelled',
  'expired',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** What the checkout's attempts record (store/payments.ts): a refusal of the bank, or of the customer at a redirect. */
export const FAILED_ATTEMPT_OUTCOMES = ['declined', 'insufficient_funds', 'rejected'] as const;
const FAILED_ATTEMPTS = new Set<string>(FAILED_ATTEMPT_OUTCOMES);

export interface PaymentFacts {
  tx: { status: TransactionStatus; expired_at: string };
  /** The sale that paid it (not a failed one), or null. */
  sale: (SaleAmounts & { dispute_id: string | null }) | null;
  /** The outcome of its last payment attempt, or null when there was none. */
  lastAttempt: string | null;
}

/** How a sale stands in the same words: the one that paid a payment, or any sale of an export. */
export const paymentStatusOfSale = (sale: NonNullable<PaymentFacts['sale']>): PaymentStatus => statusOfSale(saleStatus(sale), sale.dispute_id !== null);

function statusOfSale(status: SaleStatus, disputed: boolean): PaymentStatus {
  if (disputed) return 'disputed';
  switch (status) {
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

/**
 * Where a filter by status looks (the payments list's): with a sale, whether it has a dispute
 * and which of its stored statuses read so; without one, which transaction status and, for
 * an unpaid one, whether its last attempt was refused. Read off the rules above, so the
 * list's filter and its words never disagree.
 */
export interface PaymentStatusWhere {
  sale: { disputed: true } | { disputed: false; statuses: SaleStatus[] } | null;
  unpaid: { status: TransactionStatus; lastAttemptFailed?: boolean } | null;
}

/** How a transaction without a sale reads: its status, and for an unpaid one its last attempt. */
const UNPAID: [PaymentStatus, NonNullable<PaymentStatusWhere['unpaid']>][] = [
  ['paid', { status: 'D' }],
  ['cancelled', { status: 'C' }],
  ['expired', { status: 'E' }],
  ['failed', { status: 'N', lastAttemptFailed: true }],
  ['incomplete', { status: 'N', lastAttemptFailed: false }],
];

export function paymentStatusWhere(wanted: PaymentStatus): PaymentStatusWhere {
  const statuses = SALE_STATUSES.filter((s) => statusOfSale(s, false) === wanted);
  const sale = wanted === 'disputed' ? { disputed: true as const } : statuses.length ? { disputed: false as const, statuses } : null;
  return { sale, unpaid: UNPAID.find(([status]) => status === wanted)?.[1] ?? null };
}

export function paymentStatus(f: PaymentFacts, now: Date): PaymentStatus {
  if (f.sale) return paymentStatusOfSale(f.sale);
  const status = effectiveStatus(f.tx.status, f.tx.expired_at, now);
  const failed = f.lastAttempt !== null && FAILED_ATTEMPTS.has(f.lastAttempt);
  return UNPAID.find(([, u]) => u.status === status && (u.lastAttemptFailed ?? failed) === failed)![0];
}
