import type { TransactionStatus } from './transaction-status';

// Who may act on a transaction the checkout pays: the rules of a payment attempt's claim,
// of the customer's cancel and of the expiry, and the card-testing limit, in one place. The
// store locks the transaction's row, reads these facts and asks here (store/payments.ts).
// Times are ISO 8601 strings of one format, compared as the database compares them.

/**
 * Card testing: a public checkout page is a way to try stolen card numbers one after the
 * other. A transaction takes at most this many declined attempts in any hour; then the
 * next attempt waits until the oldest of them is an hour old.
 */
export const FAILED_ATTEMPTS_LIMIT = 10;
export const FAILED_ATTEMPTS_WINDOW_MS = 60 * 60_000;
/** Refused payments (a gateway that failed is recorded as declined too); a customer rejecting a redirect provider's page is not counted. */
export const COUNTED_FAILURES = ['declined', 'insufficient_funds'] as const;

/** What the rules read of a transaction, its row locked. */
export interface TransactionFacts {
  status: TransactionStatus;
  source_state: string | null;
  /** Until when an attempt in progress holds it, or null. */
  processing_until: string | null;
  expired_at: string;
  /** A pay call still pending (being asked, or of unknown outcome until proven) or waiting for a person. */
  payment_in_doubt: boolean;
  /** Its declined attempts within FAILED_ATTEMPTS_WINDOW_MS. */
  recent_failures: number;
}

/**
 * Pending and free: nobody mid-attempt, no payment in doubt (so it is never paid twice nor
 * given up while the first payment may have been made), and not paid from its sources
 * (payments/sources.ts finishes those, never the page). What a payment claim, a cancel and
 * the expiry each require, besides their side of `expired_at`.
 */
function pendingAndFree(f: TransactionFacts, at: string): boolean {
  return f.status === 'N' && f.source_state === null && (f.processing_until === null || f.processing_until < at) && !f.payment_in_doubt;
}

/** One payment attempt may start: pending and free, not expired, fewer than the limit of declines this hour. */
export const mayClaimPayment = (f: TransactionFacts, at: string) => pendingAndFree(f, at) && f.expired_at > at && f.recent_failures < FAILED_ATTEMPTS_LIMIT;

/** The customer may cancel: pending and free, not expired. */
export const mayCancel = (f: TransactionFacts, at: string) => pendingAndFree(f, at) && f.expired_at > at;

/** Due to expire: past its expiry, and no attempt in progress under it. */
export const dueForExpiry = (f: TransactionFacts, at: string) => pendingAndFree(f, at) && f.expired_at <= at;

/**
 * Milliseconds until the transaction takes another attempt, given the times of its latest
 * declines within the window (newest first, at most FAILED_ATTEMPTS_LIMIT); 0 if it does now.
 * Free again when the oldest of the last LIMIT declines leaves the window.
 */
export function failedAttemptsWait(latestFailures: readonly string[], now: Date): number {
  if (latestFailures.length < FAILED_ATTEMPTS_LIMIT) return 0;
  return Math.max(0, Date.parse(latestFailures[FAILED_ATTEMPTS_LIMIT - 1]!) + FAILED_ATTEMPTS_WINDOW_MS - now.getTime());
}
