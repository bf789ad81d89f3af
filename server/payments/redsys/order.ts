import { createHash } from 'node:crypto';

// Redsys order numbers (Ds_Merchant_Order): 4 digits, then up to 8 letters or digits, 12 at
// most; Redsys refuses a second *payment* with an order number the terminal has used
// (SIS0051), and confirmations, cancellations and refunds name the payment's order. One
// terminal may serve several environments, so the numbers must be unique per (merchant
// code, terminal), not per environment.
//
// A payment's order number is derived from our reference, deterministically, so a resend of
// the same call (the same reference after a crash) names the same order, and Redsys's
// SIS0051 on it means "already sent", never a second payment. Twelve characters cannot hold
// a UUID, so the derivation is a hash: 4 digits and 8 of 62 letters and digits, about 61
// bits. Uniqueness then holds by (1) the hash: with a million orders on one terminal the
// chance of any collision is about 2 × 10⁻⁷; (2) Redsys itself: a colliding payment is
// refused with SIS0051, and the connector then asks the query service, which must show our
// amount and currency or the call goes to `attention` (pay.ts, lookup.ts); (3) the
// service's persistent guard (docs/processors.md "Order numbers"): before a payment's
// number is sent, it is claimed for the reference in `redsys_orders`, whose primary key is
// (merchant code, terminal, order number) (migration 109); a number another reference holds
// takes the next `attempt`, and when ORDER_ATTEMPTS are all taken the payment is refused
// before Redsys is asked. A notification is matched against every attempt's number.

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const ORDER_PATTERN = /^\d{4}[A-Za-z0-9]{0,8}$/;

/** How many numbers a reference may try: a second collision on one terminal is already about 10⁻¹⁴. */
export const ORDER_ATTEMPTS = 4;

/** Claims `order` for `reference` on the terminal: false when another reference holds it. */
export type ClaimOrder = (reference: string, order: string) => Promise<boolean>;

/** The order number of a payment of ours: the same for the same reference and attempt. */
export function orderNumber(reference: string, attempt = 0): string {
  const digest = createHash('sha256').update(`redsys-order\u0000${attempt}\u0000${reference}`, 'utf8').digest();
  const digits = String(digest.readUInt32BE(0) % 10_000).padStart(4, '0');
  let rest = '';
  // One byte per character; 256 is 62 × 4 + 8, a bias too small to matter for uniqueness.
  for (let i = 4; i < 12; i++) rest += ALPHANUMERIC[digest[i]! % ALPHANUMERIC.length];
  return digits + rest;
}

/** The first of the reference's numbers it could claim (the same one again on a resend), or null: all taken, nothing may be sent. */
export async function claimedOrderNumber(claim: ClaimOrder, reference: string): Promise<string | null> {
  for (let attempt = 0; attempt < ORDER_ATTEMPTS; attempt++) {
    const order = orderNumber(reference, attempt);
    if (await claim(reference, order)) return order;
  }
  return null;
}
