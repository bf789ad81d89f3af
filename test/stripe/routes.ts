import { type Books, expand } from './books';
import { attachPaymentMethod, createCustomer } from './customers';
import { noSuch } from './errors';
import { listPage, searchPaymentIntents } from './lists';
import { balance, type StripeObject } from './objects';
import type { ENDPOINTS, Params } from './params';
import { cancelPaymentIntent, capturePaymentIntent, createPaymentIntent } from './payment-intents';
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

function retrieveCharge(books: Books, id: string, params: Params): StripeObject {
  const found = books.charges.get(id);
  if (!found) throw noSuch('charge', id);
  return expand(books, found, params.expand as string[]);
}

export const ROUTES: Route[] = [
  route('POST', '/v1/payment_intents', 'createPaymentIntent', (b, p) => createPaymentIntent(b, p)),
  // Before `/:id`: `search` is not an id.
  route('GET', '/v1/payment_intents/search', 'searchPaymentIntents', (b, p) => searchPaymentIntents(b, p)),
  route('GET', '/v1/payment_intents', 'listPaymentIntents', (b, p) => listPage(b, b.paymentIntents.values(), '/v1/payment_intents', p, ['customer'])),
  route('GET', '/v1/payment_intents/:id', 'retrieve', (b, p, id) => expand(b, b.paymentIntent(id), p.expand as string[])),
  route('POST', '/v1/payment_intents/:id/capture', 'capturePaymentIntent', (b, p, id) => capturePaymentIntent(b, id, p)),
  route('POST', '/v1/payment_intents/:id/cancel', 'cancelPaymentIntent', (b, p, id) => cancelPaymentIntent(b, id, p)),
  route('POST', '/v1/refunds', 'createRefund', (b, p) => createRefund(b, p)),
  route('GET', '/v1/refunds', 'listRefunds', (b, p) => listPage(b, b.refunds.values(), '/v1/refunds', p, ['charge', 'payment_intent'])),
  route('GET', '/v1/refunds/:id', 'retrieve', (b, p, id) => retrieveRefund(b, id, p)),
  route('GET', '/v1/charges', 'listCharges', (b, p) => listPage(b, b.charges.values(), '/v1/charges', p, ['customer', 'payment_intent'])),
  route('GET', '/v1/charges/:id', 'retrieve', (b, p, id) => retrieveCharge(b, id, p)),
  route('POST', '/v1/customers', 'createCustomer', (b, p) => createCustomer(b, p)),
  route('POST', '/v1/payment_methods/:id/attach', 'attachPaymentMethod', (b, p, id) => attachPaymentMethod(b, id, p)),
  route('GET', '/v1/balance', 'none', () => balance()),
];
