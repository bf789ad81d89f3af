import { type Books, expand } from './books';
import { checkAmountUnits, invalid, StripeRefusal, unexpectedState } from './errors';
import { charge, paymentIntent, settle, type StripeObject } from './objects';
import type { Params } from './params';

// PaymentIntents: create (and confirm), confirm again, retrieve, capture, cancel, and what
// a customer's 3-D Secure answer does (authentication-page.ts is the page that answers). Card payments only, as Stripe behaves in test mode with its test
// PaymentMethods (books.ts): approved, declined (402 `card_declined` with the issuer's
// decline code), or `requires_action` for 3-D Secure (an off-session payment cannot ask:
// 402 `authentication_required`).

const CANCELABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];

/** A decline: the PaymentIntent goes back to `requires_payment_method`, and the 402 carries it. */
function decline(books: Books, pi: StripeObject, pm: StripeObject, failure: { code: string; decline_code: string; message: string }, withCharge: boolean): never {
  const ch = withCharge ? charge({ pi, pm, created: books.now(), status: 'failed', captured: false, failure }) : null;
  if (ch) books.charges.set(ch.id, ch);
  const error = { type: 'card_error' as const, ...failure, doc_url: `https://stripe.com/docs/error-codes/${failure.code.replaceAll('_', '-')}`, ...(ch ? { charge: ch.id } : {}) };
  Object.assign(pi, { status: 'requires_payment_method', payment_method: null, latest_charge: ch?.id ?? pi.latest_charge, last_payment_error: { ...error, payment_method: pm } });
  throw new StripeRefusal(402, { ...error, payment_method: pm, payment_intent: structuredClone(pi) });
}

/** The card is charged (captured at once, or only authorized for `capture_method: manual`). */
function approve(books: Books, pi: StripeObject, pm: StripeObject): void {
  const captured = pi.capture_method !== 'manual';
  const ch = charge({ pi, pm, created: books.now(), status: 'succeeded', captured, holdSeconds: books.holdSeconds });
  books.charges.set(ch.id, ch);
  if (captured) {
    const bt = settle(ch, pi.amount, books.now());
    books.balanceTransactions.set(bt.id, bt);
  }
  Object.assign(pi, {
    status: captured ? 'succeeded' : 'requires_capture',
    amount_received: captured ? pi.amount : 0,
    amount_capturable: captured ? 0 : pi.amount,
    latest_charge: ch.id,
    payment_method: pm.id,
    next_action: null,
    last_payment_error: null,
  });
  if (pi.customer && pi.setup_future_usage) Object.assign(pm, { customer: pi.customer });
  // Used once without a Customer: Stripe never lets it be used again.
  if (!pm.customer) books.spent.add(pm.id);
}

function confirm(books: Books, pi: StripeObject, params: Params): void {
  const pm = books.usePaymentMethod(pi.payment_method);
  if (pm.customer && pm.customer !== pi.customer) throw invalid(null, `The provided PaymentMethod belongs to a Customer, but you did not provide that Customer.`, 'customer');
  const behaviour = books.behaviours.get(pm.id) ?? { kind: 'succeed' };
  if (behaviour.kind === 'decline' || behaviour.kind === 'decline_charges') return decline(books, pi, pm, { code: 'card_declined', decline_code: behaviour.decline_code, message: behaviour.message }, true);
  if (behaviour.kind === 'succeed') return approve(books, pi, pm);
  if (offSession(params) || params.error_on_requires_action) {
    return decline(books, pi, pm, { code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.' }, false);
  }
  const returnUrl = params.return_url as string | undefined;
  Object.assign(pi, {
    status: 'requires_action',
    payment_method: pm.id,
    next_action: returnUrl
      ? { type: 'redirect_to_url', redirect_to_url: { url: `${books.baseUrl()}/test/3ds/${pi.id}`, return_url: returnUrl } }
      : { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: `${books.baseUrl()}/test/3ds/${pi.id}` } },
  });
}

/**
 * Stripe's rules for a card payment's descriptor: `statement_descriptor` is refused (a card
 * charge takes the suffix only), and the suffix is at most 22 Latin characters with a letter
 * and none of < > \\ ' " *. `within` names the object they are in, as Stripe's errors do
 * (`payment_intent_data` in a Checkout Session).
 */
export function checkDescriptor(params: Params, within?: string): void {
  const named = (field: string) => (within ? `${within}[${field}]` : field);
  const cards = !params.allowed_payment_method_types || (params.allowed_payment_method_types as string[]).includes('card');
  if (params.statement_descriptor !== undefined && cards) {
    throw invalid(null, 'The `statement_descriptor` parameter is not supported for the `card` payment method type. Use `statement_descriptor_suffix` instead.', named('statement_descriptor'));
  }
  const suffix = params.statement_descriptor_suffix as string | undefined;
  if (suffix === undefined) return;
  const param = named('statement_descriptor_suffix');
  if (suffix.length > 22) throw invalid(null, 'The statement descriptor suffix must be at most 22 characters.', param);
  if (!/^[\x20-\x7e]*$/.test(suffix) || /[<>\\'"*]/.test(suffix)) throw invalid(null, 'The statement descriptor suffix contains characters that are not allowed: < > \\ \' " * or non-Latin ones.', param);
  if (!/[A-Za-z]/.test(suffix)) throw invalid(null, 'The statement descriptor suffix must contain at least one letter.', param);
}

const offSession = (params: Params) => params.off_session !== undefined && params.off_session !== 'false';

function checkCreate(params: Params): void {
  checkDescriptor(params);
  if ((params.amount as number) < 50) throw invalid('amount_too_small', 'Amount must be at least 50 cents', 'amount');
  if (!/^[a-z]{3}$/.test(params.currency as string)) throw invalid(null, `Invalid currency: ${String(params.currency)}.`, 'currency');
  checkAmountUnits(params.amount as number, params.currency as string, 'amount');
  if (params.allowed_payment_method_types && params.automatic_payment_methods) {
    throw invalid(null, 'You may only specify one of these parameters: allowed_payment_method_types, automatic_payment_methods.', 'allowed_payment_method_types');
  }
  if (offSession(params) && !params.confirm) throw invalid(null, 'off_session can only be used when confirm=true', 'off_session');
  if (!params.confirm) return;
  if (!params.payment_method) throw unexpectedState("You cannot confirm this PaymentIntent because it's missing a payment method.");
  const automatic = params.automatic_payment_methods as { enabled?: boolean; allow_redirects?: string } | undefined;
  if (automatic?.enabled && automatic.allow_redirects !== 'never' && !params.return_url) {
    throw invalid(null, 'This PaymentIntent is configured to accept payment methods enabled in your Dashboard, some of which may require a full page redirect to succeed. To confirm it, you must provide a `return_url`.', 'return_url');
  }
}

export function createPaymentIntent(books: Books, params: Params): StripeObject {
  checkCreate(params);
  if (params.customer) books.customer(params.customer as string);
  // Parameters that steer the confirmation are not fields of the object.
  const { confirm: confirmNow, expand: _expand, off_session: _off, error_on_requires_action: _error, return_url: _return, allowed_payment_method_types: allowed, ...fields } = params;
  const pi = paymentIntent({
    amount: params.amount as number,
    currency: params.currency as string,
    created: books.now(),
    capture_method: 'automatic_async',
    confirmation_method: 'automatic',
    allowed_payment_method_types: allowed ?? null,
    payment_method_types: allowed ?? ['card'],
    status: params.payment_method ? 'requires_confirmation' : 'requires_payment_method',
    ...fields,
    metadata: (params.metadata as Record<string, string>) ?? {},
  });
  books.paymentIntents.set(pi.id, pi);
  if (confirmNow) confirm(books, pi, params);
  return expand(books, pi, params.expand as string[]);
}

/** Statuses a PaymentIntent can be confirmed from. */
const CONFIRMABLE = ['requires_payment_method', 'requires_confirmation', 'requires_action'];

/**
 * Confirms a PaymentIntent again: Stripe's way to finish, with the customer present, a saved
 * card's off-session charge declined with `authentication_required` (its PaymentMethod is
 * given again, with a `return_url` for 3-D Secure).
 */
export function confirmPaymentIntent(books: Books, id: string, params: Params): StripeObject {
  const pi = books.paymentIntent(id);
  if (!CONFIRMABLE.includes(pi.status)) {
    throw unexpectedState(`You cannot confirm this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be acted upon: ${CONFIRMABLE.join(', ')}.`);
  }
  if (params.payment_method) pi.payment_method = params.payment_method;
  if (!pi.payment_method) {
    throw unexpectedState("You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.");
  }
  confirm(books, pi, params);
  return expand(books, pi, params.expand as string[]);
}

export function capturePaymentIntent(books: Books, id: string, params: Params): StripeObject {
  const pi = books.paymentIntent(id);
  if (pi.status !== 'requires_capture') {
    throw unexpectedState(`This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be acted upon: requires_capture.`);
  }
  const amount = (params.amount_to_capture as number | undefined) ?? pi.amount_capturable;
  if (amount > pi.amount_capturable) {
    throw invalid('amount_too_large', `The amount to capture (${amount}) must be less than or equal to the amount capturable (${pi.amount_capturable}).`, 'amount_to_capture');
  }
  checkAmountUnits(amount, pi.currency, 'amount_to_capture');
  const ch = books.charges.get(pi.latest_charge)!;
  // A partial capture releases the rest of the hold: Stripe counts it as refunded on the charge.
  Object.assign(ch, { captured: true, amount_captured: amount, amount_refunded: ch.amount - amount });
  // The balance transaction is of what was captured: the released rest never reached the account.
  const bt = settle(ch, amount, books.now());
  books.balanceTransactions.set(bt.id, bt);
  delete ch.payment_method_details.card.capture_before;
  Object.assign(pi, { status: 'succeeded', amount_received: amount, amount_capturable: 0, metadata: { ...pi.metadata, ...(params.metadata as object) } });
  return expand(books, pi, params.expand as string[]);
}

export function cancelPaymentIntent(books: Books, id: string, params: Params): StripeObject {
  const pi = books.paymentIntent(id);
  if (!CANCELABLE.includes(pi.status)) {
    throw unexpectedState(`You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`);
  }
  const ch = pi.latest_charge ? books.charges.get(pi.latest_charge) : undefined;
  // The hold is released: the uncaptured charge shows as refunded.
  if (ch?.status === 'succeeded') Object.assign(ch, { amount_refunded: ch.amount, refunded: true });
  Object.assign(pi, { status: 'canceled', canceled_at: books.now(), cancellation_reason: params.cancellation_reason ?? null, amount_capturable: 0, next_action: null });
  return expand(books, pi, params.expand as string[]);
}

/** The customer's answer to the 3-D Secure page (a test hook: the page itself is the browser slices'). */
export function answerChallenge(books: Books, id: string, completed: boolean): void {
  const pi = books.paymentIntent(id);
  if (pi.status !== 'requires_action') throw new Error(`${id} is ${pi.status}, not requires_action`);
  const pm = books.paymentMethods.get(pi.payment_method)!;
  if (completed) {
    approve(books, pi, pm);
    // Stripe records on the charge what 3-D Secure came to.
    books.charges.get(pi.latest_charge)!.payment_method_details.card.three_d_secure = { authentication_flow: 'challenge', result: 'authenticated', result_reason: null, version: '2.2.0' };
    return;
  }
  const failure = { type: 'invalid_request_error', code: 'payment_intent_authentication_failure', message: 'The provided PaymentMethod has failed authentication.', payment_method: pm };
  Object.assign(pi, { status: 'requires_payment_method', payment_method: null, next_action: null, last_payment_error: failure });
}
