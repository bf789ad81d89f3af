import type { Books } from './books';
import { badKey, invalid, invalidParams, noSuch, StripeRefusal } from './errors';
import type { Form } from './form';
import type { StripeObject } from './objects';
import { confirmPaymentIntent } from './payment-intents';

// What Stripe.js asks of Stripe's API in the customer's browser, under the account's
// publishable key (`pk_test_…`, sent in the form body as `key`, as Stripe.js does, so that
// no preflight is needed; answers carry `Access-Control-Allow-Origin`): make a card
// PaymentMethod from the numbers typed in Stripe's fields, and confirm a PaymentIntent
// with its client_secret. Nothing else is open to a publishable key, and a client_secret
// of another PaymentIntent is refused, as Stripe refuses them. The stand-in Stripe.js
// (stripe-js.ts) is the only caller in tests.

const PUBLISHABLE = /^pk_test_[A-Za-z0-9_]+$/;

/** Stripe's test card numbers the stand-in's fields take, and the test PaymentMethod each is (books.ts). */
const TEST_NUMBERS: Record<string, string> = {
  '4242424242424242': 'pm_card_visa',
  '5555555555554444': 'pm_card_mastercard',
  '4000000000000002': 'pm_card_chargeDeclined',
  '4000000000009995': 'pm_card_chargeDeclinedInsufficientFunds',
  '4000002760003184': 'pm_card_authenticationRequired',
};

/** The publishable key of a browser's request, or null when the request is not one (a secret key's). */
export const publishableKeyOf = (form: Form | null): string | null => (typeof form?.key === 'string' && form.key.startsWith('pk_') ? form.key : null);

function only(form: Form, allowed: string[]): void {
  for (const name of Object.keys(form)) if (!allowed.includes(name)) throw invalidParams('parameter_unknown', `Received unknown parameter: ${name}`, name);
}

function createCardMethod(books: Books, form: Form): StripeObject {
  only(form, ['key', 'type', 'card']);
  const card = (form.card ?? {}) as Record<string, unknown>;
  if (form.type !== 'card') throw invalid(null, 'Invalid type: must be card', 'type');
  const test = TEST_NUMBERS[String(card.number ?? '').replace(/\s/g, '')];
  if (!test) throw new StripeRefusal(402, { type: 'card_error', code: 'incorrect_number', message: 'Your card number is incorrect.', param: 'card[number]' });
  return books.newPaymentMethod(test as Parameters<Books['newPaymentMethod']>[0]);
}

/** The events Stripe sends for a confirmation: paid, held (a manual capture), or failed. */
function confirmed(books: Books, id: string, form: Form): StripeObject {
  only(form, ['key', 'client_secret', 'payment_method', 'return_url']);
  const pi = books.paymentIntents.get(id);
  if (!pi) throw noSuch('payment_intent', id);
  if (form.client_secret !== pi.client_secret) throw invalid(null, 'The client_secret provided does not match the client_secret associated with the PaymentIntent.', 'client_secret');
  try {
    const answer = confirmPaymentIntent(books, id, { payment_method: form.payment_method, return_url: form.return_url });
    if (pi.status === 'succeeded' || pi.status === 'requires_capture') {
      books.outbox.push({ type: pi.status === 'succeeded' ? 'payment_intent.succeeded' : 'payment_intent.amount_capturable_updated', object: structuredClone(pi) });
    }
    return answer;
  } catch (error) {
    if (error instanceof StripeRefusal && error.status === 402) books.outbox.push({ type: 'payment_intent.payment_failed', object: structuredClone(pi) });
    throw error;
  }
}

/** Carries out a publishable key's request: what Stripe.js may ask, nothing else. */
export function publishableRequest(books: Books, method: string, path: string, form: Form, revoked: ReadonlySet<string>): StripeObject {
  const key = String(form.key);
  if (!PUBLISHABLE.test(key) || revoked.has(key)) throw badKey(key);
  if (method === 'POST' && path === '/v1/payment_methods') return createCardMethod(books, form);
  const confirm = method === 'POST' ? /^\/v1\/payment_intents\/(pi_[A-Za-z0-9]+)\/confirm$/.exec(path) : null;
  if (confirm) return confirmed(books, confirm[1]!, form);
  throw new StripeRefusal(401, { type: 'invalid_request_error', message: 'This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.' }, true);
}
