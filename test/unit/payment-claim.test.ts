import { describe, expect, it } from 'vitest';
import { dueForExpiry, FAILED_ATTEMPTS_LIMIT, FAILED_ATTEMPTS_WINDOW_MS, failedAttemptsWait, mayCancel, mayClaimPayment, type TransactionFacts } from '../../server/domain/payment-claim';

// Who may act on a transaction the checkout pays (domain/payment-claim.ts): a payment
// attempt, the customer's cancel and the expiry each need it pending and free, on their
// side of `expired_at`; the attempt also under the card-testing limit.

const at = '2026-12-02T12:00:00.000Z';
const later = '2026-12-02T13:00:00.000Z';
const earlier = '2026-12-02T11:00:00.000Z';
const free: TransactionFacts = { status: 'N', source_state: null, processing_until: null, expired_at: later, payment_in_doubt: false, recent_failures: 0 };

describe('the claim of a payment attempt, the cancel and the expiry', () => {
  it('a pending, free, unexpired transaction takes an attempt or a cancel, and does not expire', () => {
    expect(mayClaimPayment(free, at)).toBe(true);
    expect(mayCancel(free, at)).toBe(true);
    expect(dueForExpiry(free, at)).toBe(false);
    expect(dueForExpiry({ ...free, expired_at: at }, at)).toBe(true);
    expect(mayClaimPayment({ ...free, expired_at: at }, at)).toBe(false);
  });

  it('nothing happens under an attempt in progress, a payment in doubt, a source payment, or once it is not pending', () => {
    const busy: TransactionFacts[] = [
      { ...free, processing_until: later },
      { ...free, payment_in_doubt: true },
      { ...free, source_state: 'reserved' },
      { ...free, status: 'D' },
      { ...free, status: 'C' },
    ];
    for (const f of busy) {
      expect(mayClaimPayment(f, at)).toBe(false);
      expect(mayCancel(f, at)).toBe(false);
      expect(dueForExpiry({ ...f, expired_at: earlier }, at)).toBe(false);
    }
    // A claim whose time ran out (its process died mid-attempt) frees the transaction.
    expect(mayClaimPayment({ ...free, processing_until: earlier }, at)).toBe(true);
  });

  it('card testing: the attempt after the limit of declines this hour waits until the oldest of them is an hour old', () => {
    expect(mayClaimPayment({ ...free, recent_failures: FAILED_ATTEMPTS_LIMIT - 1 }, at)).toBe(true);
    expect(mayClaimPayment({ ...free, recent_failures: FAILED_ATTEMPTS_LIMIT }, at)).toBe(false);
    expect(mayCancel({ ...free, recent_failures: FAILED_ATTEMPTS_LIMIT }, at)).toBe(true);
    const now = new Date(at);
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000).toISOString();
    const latest = Array.from({ length: FAILED_ATTEMPTS_LIMIT }, (_, i) => minutesAgo(i + 1));
    expect(failedAttemptsWait(latest.slice(1), now)).toBe(0);
    expect(failedAttemptsWait(latest, now)).toBe(FAILED_ATTEMPTS_WINDOW_MS - FAILED_ATTEMPTS_LIMIT * 60_000);
  });
});
