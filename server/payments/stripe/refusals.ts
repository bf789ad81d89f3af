import Stripe from 'stripe';
import type { NotActed } from '../gateway';

// Which of Stripe's errors prove that nothing happened. A definite 4xx answer (a refused
// parameter or state, a bad key, a rate limit, a card error on an action) did nothing; a
// 5xx, a broken connection or a timeout may have, and so may two cases of 4xx: 409 (another
// request with the same Idempotency-Key is running) and `idempotency_error` (the key was
// used before for another request, which may have acted). Those are thrown on: the outcome
// is unknown, and only a lookup can tell.

export function notActed(error: unknown): NotActed | null {
  if (!(error instanceof Stripe.errors.StripeError) || error instanceof Stripe.errors.StripeIdempotencyError) return null;
  const status = error.statusCode ?? 0;
  if (status < 400 || status >= 500 || status === 409) return null;
  return { outcome: 'not_acted', reason: `Stripe refused it (${status} ${error.code ?? error.rawType ?? error.type}): ${error.message}` };
}

/** A 5xx that Stripe keeps for an Idempotency-Key: replaying the key answers it again, so a lookup looks elsewhere. */
export const isServerError = (error: unknown) => error instanceof Stripe.errors.StripeError && (error.statusCode ?? 0) >= 500;
