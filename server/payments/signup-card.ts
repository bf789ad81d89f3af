import { signupOpen } from '../domain/subscription-states';
import type { AuthorizationRow, SubscriptionRow } from '../store/schema';
import { signupAwaiting } from '../store/subscriptions';
import type { PaymentDeps } from './ask';
import { type ActionResult, attachPaymentMethod } from './subscription-actions';

// A card saved for a subscription's sign-up (/pay/sub_…/) becomes the subscription's: it
// starts (or, past due, the owed period is charged to it), whether the card was given on
// the page, at the issuer's challenge, or on the processor's own page, whose notification
// may save it before the customer is back (Redsys: it alone saves the card). Whoever comes
// first signs up, once: attachPaymentMethod writes only while the sign-up is as it read it.

/** The stored card starts the subscription (or pays the owed period); the email given with it is kept first. */
export async function signUpWith(
  deps: PaymentDeps,
  s: { subscription: SubscriptionRow; authorization: AuthorizationRow; customerEmail: string | null },
): Promise<ActionResult> {
  const { subscription, authorization } = s;
  const result = await attachPaymentMethod(deps.database.db, { subscription, authorizationId: authorization.id, customerEmail: s.customerEmail, now: deps.now(), outbox: deps.outbox });
  if (result.kind === 'done') deps.log.info({ subscription: subscription.id, gateway: authorization.gateway_id, brand: authorization.card_brand }, 'subscription signed up');
  return result;
}

/** The open sign-up that waits for this card, signed up with it now it is stored; null when none waits (a save page's card, or signed up meanwhile). */
export async function signUpAwaiting(deps: PaymentDeps, authorization: AuthorizationRow): Promise<ActionResult | null> {
  const subscription = await signupAwaiting(deps.database.db, authorization);
  if (!subscription || !signupOpen(subscription) || authorization.status !== 'active') return null;
  // Its email was kept when the sign-up began to wait (awaitSignupChallenge).
  return signUpWith(deps, { subscription, authorization, customerEmail: null });
}
