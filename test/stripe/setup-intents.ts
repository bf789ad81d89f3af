import type { Books } from './books';
import { setupIntent, type StripeObject } from './objects';

// Saving a card on the double's Checkout page in `mode=setup`: the customer gives a card
// once, a SetupIntent confirms it, and the PaymentMethod is attached to the session's
// Customer (the only way Stripe lets it be charged again, off-session). A card the issuer
// declines keeps the customer on the page, as a payment's does; one that asks for 3-D
// Secure is saved once the customer passes it there, and not when they fail it.

export type SaveOutcome = { done: true } | { done: false; message: string };

export function saveOnSession(books: Books, session: StripeObject, card: string, authenticated: boolean): SaveOutcome {
  const data = books.intentData.get(session.id) ?? {};
  const pm = books.usePaymentMethod(card);
  const behaviour = books.behaviours.get(pm.id) ?? { kind: 'succeed' };
  const seti = setupIntent({ created: books.now(), customer: session.customer, metadata: data.metadata ?? {}, payment_method: pm.id });
  books.setupIntents.set(seti.id, seti);
  session.setup_intent = seti.id;
  const failure =
    behaviour.kind === 'decline'
      ? { type: 'card_error', code: 'card_declined', decline_code: behaviour.decline_code, message: behaviour.message }
      : behaviour.kind === 'authenticate' && !authenticated
        ? { type: 'invalid_request_error', code: 'setup_intent_authentication_failure', message: 'We are unable to authenticate your payment method.' }
        : null;
  if (failure) {
    Object.assign(seti, { status: 'requires_payment_method', payment_method: null, last_setup_error: { ...failure, payment_method: pm } });
    books.outbox.push({ type: 'setup_intent.setup_failed', object: structuredClone(seti) });
    return { done: false, message: failure.message };
  }
  Object.assign(seti, { status: 'succeeded' });
  if (session.customer) pm.customer = session.customer;
  Object.assign(session, { status: 'complete', payment_status: 'no_payment_required', url: null });
  books.outbox.push({ type: 'checkout.session.completed', object: structuredClone(session) });
  books.outbox.push({ type: 'setup_intent.succeeded', object: structuredClone(seti) });
  return { done: true };
}
