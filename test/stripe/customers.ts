import { type Books, expand, SPENT_MESSAGE } from './books';
import { invalid } from './errors';
import { customer, type StripeObject } from './objects';
import type { Params } from './params';

// Customers, and PaymentMethods attached to them: the only way Stripe lets a card be used
// more than once. A PaymentMethod already used without a Customer cannot be attached.

function attach(books: Books, pmId: string, customerId: string): StripeObject {
  books.customer(customerId);
  const pm = books.usePaymentMethod(pmId);
  if (pm.customer === customerId) return pm;
  if (pm.customer) throw invalid(null, 'The payment method you provided has already been attached to a customer.', 'payment_method');
  // Stripe refuses to attach a PaymentMethod that a payment already consumed.
  if ([...books.paymentIntents.values()].some((pi) => pi.payment_method === pm.id && pi.status !== 'requires_payment_method')) {
    throw invalid('payment_method_unexpected_state', SPENT_MESSAGE, 'payment_method');
  }
  pm.customer = customerId;
  return pm;
}

export function createCustomer(books: Books, params: Params): StripeObject {
  const { payment_method: pm, expand: paths, ...fields } = params;
  const cus = customer({ created: books.now(), email: null, name: null, description: null, ...fields, metadata: (params.metadata as Record<string, string>) ?? {} });
  books.customers.set(cus.id, cus);
  if (pm) attach(books, pm as string, cus.id);
  return expand(books, cus, paths as string[]);
}

export const attachPaymentMethod = (books: Books, pmId: string, params: Params): StripeObject =>
  expand(books, attach(books, pmId, params.customer as string), params.expand as string[]);
