import Stripe from 'stripe';
import { stripeClient } from './client';
import { stripeSettingsSchema } from './settings';

// The one call that tells whether a secret key works, made when a merchant connects Stripe
// or replaces the key: `GET /v1/balance`, which every secret key may read and a restricted
// key may read when it has the Balance permission the connector needs anyway. It changes
// nothing at Stripe, so it needs no Idempotency-Key and is safe to repeat.

export type KeyCheck =
  | { ok: true }
  /** Stripe refused the key: unknown, rolled or revoked (401), or a restricted key without the permission (403). */
  | { ok: false; reason: 'refused'; message: string }
  /** Stripe could not be asked or did not answer (network, timeout, 5xx, rate limit): nothing is known about the key. */
  | { ok: false; reason: 'unreachable'; message: string };

export async function checkStripeKey(input: { secretKey: string; apiUrl: string; timeoutMs: number }): Promise<KeyCheck> {
  const stripe = stripeClient(stripeSettingsSchema.parse(input));
  try {
    await stripe.balance.retrieve();
    return { ok: true };
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) return { ok: false, reason: 'unreachable', message: 'Stripe did not answer' };
    const status = error.statusCode ?? 0;
    // The SDK's message is Stripe's, and quotes the key's start (`sk_test_****abcd`): never passed on.
    if (status === 401) return { ok: false, reason: 'refused', message: 'Stripe refused this key (unknown, rolled or revoked)' };
    if (status === 403) return { ok: false, reason: 'refused', message: 'Stripe refused this restricted key: it needs at least the Balance read permission' };
    return { ok: false, reason: 'unreachable', message: status ? `Stripe answered ${status}` : 'Stripe did not answer' };
  }
}
