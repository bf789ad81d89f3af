// A payment as its customer knows it: the reference the paid screen shows ("Reference
// AA20-78BF", widget/i18n/format.ts `shortReference`), the same on the receipt emails, the
// dashboard and the API's sale (`reference`). It is the last eight hex digits of the sale's
// id (a UUIDv7's random part), so it finds a payment among a shop's own, not among all; and
// why the merchant refunded it.

/** "AA20-78BF": the reference of the sale with this id. */
export function paymentReference(saleId: string): string {
  const hex = saleId.replace(/-/g, '').slice(-8).toUpperCase();
  return `${hex.slice(0, 4)}-${hex.slice(4)}`;
}

/** A reference as a person types it ("AA20-78BF", "aa2078bf", "Reference AA20-78BF"): the id's last eight hex digits, lower case; undefined when it is none. */
export function referenceKey(typed: string): string | undefined {
  const m = /^(?:ref(?:erence|erencia|érence)?\.?:?\s*)?([0-9a-f]{4})[-\s]?([0-9a-f]{4})$/i.exec(typed.trim());
  return m ? `${m[1]}${m[2]}`.toLowerCase() : undefined;
}

/** Why a merchant refunds, captures or voids, as the API and the dashboard take it (Stripe's refund words, and `other`). */
export const OPERATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'other'] as const;
export type OperationReason = (typeof OPERATION_REASONS)[number];
export const isOperationReason = (v: unknown): v is OperationReason => (OPERATION_REASONS as readonly unknown[]).includes(v);
