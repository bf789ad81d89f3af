import type Stripe from 'stripe';

// What this process sent to Stripe for each of our references, so that a lookup knows
// which kind of call a reference was and, for a payment, can send the very same create again
// under its Idempotency-Key (Stripe replays a key's saved answer only for the same
// parameters). Kept in memory like the sandbox's: after a restart a lookup falls back to
// listing (lookup.ts). The oldest are forgotten first.

export type Sent =
  | { kind: 'pay'; params: Stripe.PaymentIntentCreateParams; at: number }
  /** A Checkout Session (checkout.ts): a lookup without its id sends the create again to learn it. */
  | { kind: 'checkout'; params: Stripe.Checkout.SessionCreateParams; at: number }
  /** A PaymentIntent for the Payment Element (element.ts), created without a card: Stripe.js confirms it. */
  | { kind: 'element'; params: Stripe.PaymentIntentCreateParams; at: number }
  | { kind: 'capture' | 'refund' | 'void'; payment: string; at: number };

const MEMORY = 50_000;

export function sentMemory() {
  const sent = new Map<string, Sent>();
  return {
    remember(reference: string, what: Sent): void {
      sent.delete(reference);
      sent.set(reference, what);
      if (sent.size > MEMORY) sent.delete(sent.keys().next().value!);
    },
    get: (reference: string): Sent | undefined => sent.get(reference),
  };
}

export type SentMemory = ReturnType<typeof sentMemory>;
