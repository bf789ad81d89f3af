import { type Books, expand } from './books';
import { invalid, noSuch, StripeRefusal } from './errors';
import { checkoutSession, type StripeObject } from './objects';
import type { Params } from './params';
import { answerChallenge, checkDescriptor, createPaymentIntent } from './payment-intents';
import { saveOnSession } from './setup-intents';

// Checkout Sessions in `mode=payment`, and in `mode=setup` to save a card (setup-intents.ts)
// (create, retrieve, expire, list) and what the customer
// does on the double's copy of Stripe's hosted page (checkout-page.ts): pay with a test card,
// fail or pass 3-D Secure, or leave. As Stripe does since API version 2022-08-01, the
// PaymentIntent is made when the customer pays (with `payment_intent_data`), not with the
// session; a decline or a failed 3-D Secure keeps the customer on the page with the session
// open; a payment completes it (`payment_status: paid`, or `unpaid` while a manual capture
// only holds the funds). Each change queues the events Stripe sends (`books.outbox`).

const DAY = 24 * 3600;

/** What the customer does on the page: which test card, and how 3-D Secure goes. */
export type CheckoutAction = 'pay' | 'decline' | '3ds_complete' | '3ds_fail' | 'charge_fail' | 'auth_always';

const CARDS = {
  pay: 'pm_card_visa',
  decline: 'pm_card_chargeDeclined',
  '3ds_complete': 'pm_card_threeDSecure2Required',
  '3ds_fail': 'pm_card_threeDSecure2Required',
  charge_fail: 'pm_card_chargeCustomerFail',
  // Stripe's 4000 0027 6000 3184: 3-D Secure on every payment, off-session ones included (declined `authentication_required`).
  auth_always: 'pm_card_authenticationRequired',
} as const;

/** The actions whose card asks for 3-D Secure, which the customer completes on the page. */
const authenticated = (action: CheckoutAction) => action === '3ds_complete' || action === 'auth_always';

type LineItem = { quantity?: number; price?: string; price_data?: { currency: string; unit_amount?: number; product_data?: { name?: string } } };

function totalOf(items: LineItem[] | undefined): { amount: number; currency: string } {
  if (!items?.length) throw invalid(null, 'You must specify either `line_items` or `prices` in `payment` mode.', 'line_items');
  let amount = 0;
  const currencies = new Set<string>();
  items.forEach((item, i) => {
    if (item.price) throw noSuch('price', item.price, `line_items[${i}][price]`);
    if (!item.price_data) throw invalid(null, 'You must specify either `price` or `price_data` in each line item.', `line_items[${i}]`);
    if (item.price_data.unit_amount === undefined) throw invalid('parameter_missing', 'Missing required param: line_items[0][price_data][unit_amount].', `line_items[${i}][price_data][unit_amount]`);
    if (!item.price_data.product_data?.name) throw invalid('parameter_missing', `Missing required param: line_items[${i}][price_data][product_data][name].`, `line_items[${i}][price_data][product_data][name]`);
    if (item.quantity === undefined) throw invalid('parameter_missing', `Missing required param: line_items[${i}][quantity].`, `line_items[${i}][quantity]`);
    amount += item.quantity * item.price_data.unit_amount;
    currencies.add(item.price_data.currency);
  });
  if (currencies.size > 1) throw invalid(null, 'All line items must use the same currency.', 'line_items');
  if (amount < 50) throw invalid('amount_too_small', 'The Checkout Session’s total amount due must add up to at least 50 cents.', 'line_items');
  return { amount, currency: [...currencies][0]! };
}

function checkUrl(value: unknown, param: string): void {
  try {
    const url = new URL(String(value));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw invalid('url_invalid', 'Not a valid URL', param);
  }
}

/** What a session's mode takes: a payment its lines, a setup (saving a card) none, and neither the other's data. */
function amountsOf(books: Books, params: Params): { amount: number | null; currency: string | null } {
  if (params.mode === 'setup') {
    if (params.line_items !== undefined) throw invalid(null, 'You cannot pass `line_items` in `setup` mode.', 'line_items');
    if (params.payment_intent_data !== undefined) throw invalid(null, 'You cannot pass `payment_intent_data` in `setup` mode.', 'payment_intent_data');
    if (params.customer !== undefined) books.customer(params.customer as string);
    return { amount: null, currency: null };
  }
  if (params.mode !== 'payment') throw invalid(null, 'The double answers `mode=payment` and `mode=setup` only.', 'mode');
  if (params.setup_intent_data !== undefined) throw invalid(null, 'You can only pass `setup_intent_data` in `setup` mode.', 'setup_intent_data');
  checkDescriptor({ allowed_payment_method_types: params.allowed_payment_method_types, ...(params.payment_intent_data as Params | undefined) }, 'payment_intent_data');
  return totalOf(params.line_items as LineItem[] | undefined);
}

export function createCheckoutSession(books: Books, params: Params): StripeObject {
  checkUrl(params.success_url, 'success_url');
  if (params.cancel_url !== undefined) checkUrl(params.cancel_url, 'cancel_url');
  const { amount, currency } = amountsOf(books, params);
  const created = books.now();
  const expiresAt = (params.expires_at as number | undefined) ?? created + DAY;
  if (expiresAt < created + 1800 || expiresAt > created + DAY) throw invalid(null, 'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.', 'expires_at');
  const session = checkoutSession({
    created,
    mode: params.mode,
    customer: params.customer ?? null,
    expires_at: expiresAt,
    amount_subtotal: amount,
    amount_total: amount,
    currency,
    success_url: params.success_url,
    cancel_url: params.cancel_url ?? null,
    client_reference_id: params.client_reference_id ?? null,
    metadata: params.metadata ?? {},
    locale: params.locale ?? null,
    payment_method_types: params.allowed_payment_method_types ?? ['card'],
  });
  session.url = `${books.baseUrl()}/c/pay/${session.id}`;
  books.checkoutSessions.set(session.id, session);
  books.intentData.set(session.id, ((params.payment_intent_data ?? params.setup_intent_data) as StripeObject | undefined) ?? {});
  return expand(books, session, params.expand as string[]);
}

export function checkoutSessionOf(books: Books, id: string): StripeObject {
  const found = books.checkoutSessions.get(id);
  if (!found) throw noSuch('checkout.session', id);
  return found;
}

function end(books: Books, session: StripeObject): void {
  Object.assign(session, { status: 'expired', url: null });
  const pi = session.payment_intent ? books.paymentIntents.get(session.payment_intent) : undefined;
  if (pi && pi.status === 'requires_payment_method') Object.assign(pi, { status: 'canceled', canceled_at: books.now(), cancellation_reason: 'abandoned' });
  books.outbox.push({ type: 'checkout.session.expired', object: structuredClone(session) });
}

export function expireCheckoutSession(books: Books, id: string, params: Params): StripeObject {
  const session = checkoutSessionOf(books, id);
  if (session.status !== 'open') throw invalid(null, `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`);
  end(books, session);
  return expand(books, session, params.expand as string[]);
}

/** The session paid: complete, and the events Stripe sends for it. */
function complete(books: Books, session: StripeObject, pi: StripeObject, threeDSecure: boolean): void {
  const charge = books.charges.get(pi.latest_charge)!;
  charge.payment_method_details.card.three_d_secure = threeDSecure ? { authentication_flow: 'challenge', electronic_commerce_indicator: '05', exemption_indicator: null, result: 'authenticated', result_reason: null, transaction_id: 'b1f2a0c4-3ds0-4e1f-8a6e-000000000001', version: '2.2.0' } : null;
  Object.assign(session, { status: 'complete', payment_status: pi.status === 'succeeded' ? 'paid' : 'unpaid', url: null });
  books.outbox.push({ type: 'checkout.session.completed', object: structuredClone(session) });
  books.outbox.push({ type: pi.status === 'succeeded' ? 'payment_intent.succeeded' : 'payment_intent.amount_capturable_updated', object: structuredClone(pi) });
}

/** The PaymentIntent of one attempt on the page (the double makes one per attempt; the session names the latest). */
function attempt(books: Books, session: StripeObject, card: string): StripeObject {
  const data = books.intentData.get(session.id) ?? {};
  try {
    const pi = createPaymentIntent(books, {
      amount: session.amount_total,
      currency: session.currency,
      payment_method: card,
      confirm: true,
      capture_method: data.capture_method ?? 'automatic_async',
      metadata: data.metadata ?? {},
      ...(data.statement_descriptor_suffix ? { statement_descriptor_suffix: data.statement_descriptor_suffix } : {}),
      return_url: `${books.baseUrl()}/c/pay/${session.id}`,
    });
    session.payment_intent = pi.id;
    return books.paymentIntents.get(pi.id)!;
  } catch (error) {
    if (!(error instanceof StripeRefusal) || error.status !== 402) throw error;
    const declined = error.error.payment_intent as StripeObject;
    session.payment_intent = declined.id;
    books.outbox.push({ type: 'payment_intent.payment_failed', object: structuredClone(declined) });
    return books.paymentIntents.get(declined.id)!;
  }
}

/**
 * The customer's action on the page. `late`: the session was expired meanwhile and the
 * payment still went through (the race Stripe documents between expiring and paying).
 * Returns what the page says next: go to success_url, or stay with a message.
 */
export function actOnSession(books: Books, id: string, action: CheckoutAction, late = false): { done: true } | { done: false; message: string } {
  const session = checkoutSessionOf(books, id);
  if (session.status !== 'open' && !late) return { done: false, message: `This Checkout Session is ${session.status}.` };
  if (session.mode === 'setup') return saveOnSession(books, session, CARDS[action], authenticated(action));
  const pi = attempt(books, session, CARDS[action]);
  if (pi.status === 'requires_action') answerChallenge(books, pi.id, authenticated(action));
  if (pi.status === 'succeeded' || pi.status === 'requires_capture') {
    complete(books, session, pi, authenticated(action));
    return { done: true };
  }
  const failed = action === '3ds_fail' ? 'We are unable to authenticate your payment method.' : 'Your card was declined.';
  return { done: false, message: failed };
}
