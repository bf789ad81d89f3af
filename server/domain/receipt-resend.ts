import type { TransactionStatus } from './transaction-status';

// When a merchant may send a payment's receipt again from the dashboard: only for a paid
// payment with a customer email, and not more often than once a minute per payment, so a
// repeated click (or a taken-over session) cannot flood a customer's inbox.

/** The shortest time between two receipts of one payment (the first one, or a resend). */
const RECEIPT_RESEND_INTERVAL_MS = 60_000;

export type ReceiptRefusal = 'not_paid' | 'no_email' | 'too_soon';

export function receiptResendRefusal(p: { status: TransactionStatus; customerEmail: string | null; lastQueuedAt: string | null; now: Date }): ReceiptRefusal | null {
  if (p.status !== 'D') return 'not_paid';
  if (!p.customerEmail) return 'no_email';
  if (p.lastQueuedAt !== null && p.now.getTime() - Date.parse(p.lastQueuedAt) < RECEIPT_RESEND_INTERVAL_MS) return 'too_soon';
  return null;
}
