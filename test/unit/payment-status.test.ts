import { describe, expect, it } from 'vitest';
import { paymentReference, referenceKey } from '../../server/domain/payment-reference';
import { type PaymentFacts, paymentStatus } from '../../server/domain/payment-status';
import { searchTerms } from '../../server/domain/transaction-search';
import { shortReference } from '../../widget/i18n/format';

// A payment's status in the merchant's words, and the reference its customer was given.

const NOW = new Date('2026-12-01T12:00:00.000Z');
const LATER = '2026-12-08T12:00:00.000Z';
const EARLIER = '2026-11-30T12:00:00.000Z';
/** A captured sale of €10.00 with nothing else done to it, changed by `over`. */
const sale = (over: Partial<NonNullable<PaymentFacts['sale']>> = {}): NonNullable<PaymentFacts['sale']> => {
  const untouched = { held: 0, refunded: 0, voided: 0, capturing: 0, refunding: 0, voiding: 0, pending: 0, disputed: 0 };
  return { amount: 1000, captured: 1000, failure: null, dispute_id: null, ...untouched, ...over };
};
const status = (f: Partial<PaymentFacts>) => paymentStatus({ tx: { status: 'D', expired_at: LATER }, sale: null, lastAttempt: null, ...f }, NOW);

describe('paymentStatus', () => {
  it('reads a paid sale: paid, partially refunded, refunded, disputed', () => {
    expect(status({ sale: sale() })).toBe('paid');
    expect(status({ sale: sale({ refunded: 250 }) })).toBe('partially_refunded');
    expect(status({ sale: sale({ refunded: 1000 }) })).toBe('refunded');
    // A refund not yet confirmed by the processor does not count yet.
    expect(status({ sale: sale({ refunding: 1000 }) })).toBe('paid');
    expect(status({ sale: sale({ refunded: 250, disputed: 750, dispute_id: 'd' }) })).toBe('disputed');
  });

  it('reads a hold, an unknown outcome and a void', () => {
    expect(status({ sale: sale({ held: 1000, captured: 0 }) })).toBe('uncaptured');
    expect(status({ sale: sale({ held: 400, captured: 600 }) })).toBe('uncaptured');
    expect(status({ sale: sale({ pending: 1 }) })).toBe('processing');
    expect(status({ sale: sale({ captured: 0, voided: 1000 }) })).toBe('voided');
  });

  it('reads a transaction without a sale: incomplete, failed, cancelled, expired', () => {
    const waiting = { status: 'N' as const, expired_at: LATER };
    expect(status({ tx: waiting })).toBe('incomplete');
    expect(status({ tx: waiting, lastAttempt: 'declined' })).toBe('failed');
    expect(status({ tx: waiting, lastAttempt: 'insufficient_funds' })).toBe('failed');
    expect(status({ tx: waiting, lastAttempt: 'rejected' })).toBe('failed');
    // Sent to the provider's page and not back yet: not a failure.
    expect(status({ tx: waiting, lastAttempt: 'redirected' })).toBe('incomplete');
    expect(status({ tx: { status: 'C', expired_at: LATER } })).toBe('cancelled');
    expect(status({ tx: { status: 'E', expired_at: EARLIER } })).toBe('expired');
    // Past its expiry, swept or not.
    expect(status({ tx: { status: 'N', expired_at: EARLIER }, lastAttempt: 'declined' })).toBe('expired');
    // Paid from wallets: no card sale to read.
    expect(status({ tx: { status: 'D', expired_at: LATER } })).toBe('paid');
  });
});

describe('the customer-facing reference', () => {
  const id = '01943a6e-7d3e-7e5c-a14a-3c4d5e6f7a8b';

  it('is the paid screen’s, read back however it is typed', () => {
    expect(paymentReference(id)).toBe('5E6F-7A8B');
    expect(paymentReference(id)).toBe(shortReference(id));
    for (const typed of ['5E6F-7A8B', '5e6f7a8b', ' 5e6f 7a8b ', 'Reference 5E6F-7A8B', 'Ref. 5E6F-7A8B', 'Referencia: 5E6F-7A8B']) expect(referenceKey(typed), typed).toBe('5e6f7a8b');
    for (const typed of ['5E6F-7A8', '5E6G-7A8B', '5E6F--7A8B', 'xReference 5E6F-7A8B', '']) expect(referenceKey(typed), typed).toBeUndefined();
  });

  it('is one reading of the search box; two words are a statement line', () => {
    expect(searchTerms('5E6F-7A8B', 'UTC')).toMatchObject({ reference: '5e6f7a8b', statement: undefined });
    const [last4, amount] = searchTerms('4444 37.50', 'UTC')!.statement!;
    expect(last4).toMatchObject({ last4: '4444', day: undefined });
    expect(amount).toMatchObject({ last4: undefined, day: undefined });
    expect(amount!.amounts.map((a) => a.units)).toContain(3750);
    expect(searchTerms('4444', 'UTC')?.statement).toBeUndefined();
    expect(searchTerms('ana@example.com', 'UTC')).toMatchObject({ email: 'ana@example.com', reference: undefined, statement: undefined });
  });
});
