import { type Books, expand } from './books';
import { checkoutSessionOf, createCheckoutSession, expireCheckoutSession } from './checkout-sessions';
import { attachPaymentMethod, createCustomer } from './customers';
import { closeDispute, disputeOf, updateDispute } from './disputes';
import { fileOf } from './files';
import { noSuch } from './errors';
import { listPage, searchPaymentIntents } from './lists';
import { balance, type StripeObject } from './objects';
import type { ENDPOINTS, Params } from './params';
import { cancelPaymentIntent, capturePaymentIntent, confirmPaymentIntent, createPaymentIntent } from './payment-intents';
import { createRefund, retrieveRefund } from './refunds';

// The part of Stripe's API the double answers: method, path, which parameters it takes
// (params.ts) and what it does. Anything else is Stripe's 404 for an unrecognized URL.

export interface Route {
  method: 'GET' | 'POST';
  path: RegExp;
  endpoint: keyof typeof ENDPOINTS;
  run(books: Books, params: Params, id: string): StripeObject;
}

const ID = '([A-Za-z0-9_]+)';
const route = (method: Route['method'], path: string, endpoint: Route['endpoint'], run: Route['run']): Route => ({ method, path: new RegExp(`^${path.replace(':id', ID)}$`), endpoint, run });

/** The object of that id, or Stripe's 404. */
function found(objects: Map<string, StripeObject>, what: string, id: string): StripeObject {
  const object = objects.get(id);
  if (!object) throw noSuch(what, id);
  return object;
}

const retrieveCharge = (books: Books, id: string, params: Params): StripeObject => expand(books, found(books.charges, 'charge', id), params.expand as string[]);

export const ROUTES: Route[] = [
  route('POST', '/v1/payment_intents', 'createPaymentIntent', (b, p) => createPaymentIntent(b, p)),
  // Before `/:id`: `search` is not an id.
  route('GET', '/v1/payment_intents/search', 'searchPaymentIntents', (b, p) => searchPaymentIntents(b, p)),
  route('GET', '/v1/payment_intents', 'listPaymentIntents', (b, p) => listPage(b, b.paymentIntents.values(), '/v1/payment_intents', p, ['customer'])),
  route('GET', '/v1/payment_intents/:id', 'retrieve', (b, p, id) => expand(b, b.paymentIntent(id), p.expand as string[])),
  route('POST', '/v1/payment_intents/:id/confirm', 'confirmPaymentIntent', (b, p, id) => confirmPaymentIntent(b, id, p)),
  route('POST', '/v1/payment_intents/:id/capture', 'capturePaymentIntent', (b, p, id) => capturePaymentIntent(b, id, p)),
  route('POST', '/v1/payment_intents/:id/cancel', 'cancelPaymentIntent', (b, p, id) => cancelPaymentIntent(b, id, p)),
  route('POST', '/v1/refunds', 'createRefund', (b, p) => createRefund(b, p)),
  route('GET', '/v1/refunds', 'listRefunds', (b, p) => listPage(b, b.refunds.values(), '/v1/refunds', p, ['charge', 'payment_intent'])),
  route('GET', '/v1/refunds/:id', 'retrieve', (b, p, id) => retrieveRefund(b, id, p)),
  route('GET', '/v1/charges', 'listCharges', (b, p) => listPage(b, b.charges.values(), '/v1/charges', p, ['customer', 'payment_intent'])),
  route('GET', '/v1/charges/:id', 'retrieve', (b, p, id) => retrieveCharge(b, id, p)),
  route('POST', '/v1/customers', 'createCustomer', (b, p) => createCustomer(b, p)),
  route('POST', '/v1/payment_methods/:id/attach', 'attachPaymentMethod', (b, p, id) => attachPaymentMethod(b, id, p)),
  route('GET', '/v1/payment_methods/:id', 'retrieve', (b, p, id) => expand(b, found(b.paymentMethods, 'payment_method', id), p.expand as string[])),
  route('GET', '/v1/setup_intents/:id', 'retrieve', (b, p, id) => expand(b, found(b.setupIntents, 'setup_intent', id), p.expand as string[])),
  route('GET', '/v1/balance', 'none', () => balance()),
  route('GET', '/v1/disputes', 'listDisputes', (b, p) => listPage(b, b.disputes.values(), '/v1/disputes', p, ['charge', 'payment_intent'])),
  route('GET', '/v1/disputes/:id', 'retrieve', (b, p, id) => expand(b, disputeOf(b, id), p.expand as string[])),
  route('GET', '/v1/payouts', 'listPayouts', (b, p) => listPage(b, b.payouts.values(), '/v1/payouts', p, ['status'])),
  route('GET', '/v1/payouts/:id', 'retrieve', (b, p, id) => expand(b, found(b.payouts, 'payout', id), p.expand as string[])),
  route('POST', '/v1/disputes/:id', 'updateDispute', (b, p, id) => updateDispute(b, id, p)),
  route('POST', '/v1/disputes/:id/close', 'closeDispute', (b, p, id) => closeDispute(b, id, p)),
  // Read on the API host; uploads go to the files host only (files.ts).
  route('GET', '/v1/files/:id', 'retrieve', (b, p, id) => expand(b, fileOf(b, id), p.expand as string[])),
  route('POST', '/v1/checkout/sessions', 'createCheckoutSession', (b, p) => createCheckoutSession(b, p)),
  route('GET', '/v1/checkout/sessions', 'listCheckoutSessions', (b, p) => listPage(b, b.checkoutSessions.values(), '/v1/checkout/sessions', p, ['payment_intent', 'status'])),
  route('GET', '/v1/checkout/sessions/:id', 'retrieve', (b, p, id) => expand(b, checkoutSessionOf(b, id), p.expand as string[])),
  route('POST', '/v1/checkout/sessions/:id/expire', 'expireCheckoutSession', (b, p, id) => expireCheckoutSession(b, id, p)),
];
