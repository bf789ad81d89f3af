import { STRIPE_CARD_ID } from '../../domain/processor-gateway-ids';
import { STRIPE_TEST_DATA } from '../../domain/test-cards';
import { type ActionInput, type CallContext, type Gateway, GATEWAY_INTERFACE_VERSION, type HostedFieldsRequired, type NotActed, type RedirectRequired } from '../gateway';
import { capture, holdExpiry, refund, voidHold } from './actions';
import { checkoutPay, checkoutReturn } from './checkout';
import { elementPay, elementReturn, HOSTED_FIELDS, STRIPE_API_ORIGIN, STRIPE_JS_ORIGIN, STRIPE_JS_SUBDOMAINS } from './element';
import { stripeClient, withSignal } from './client';
import type { StripeContext } from './context';
import { readEvent } from './events';
import { lookup } from './lookup';
import { pay, type StripePayResult } from './pay';
import type { ProcessorEventRead, ProcessorRecent, SeenDispute } from '../processor-said';
import { recentAtStripe } from './sweep';
import { payoutsAtStripe } from './payouts';
import { settlementAtStripe } from './settlement';
import { answerDispute, type DisputeAnswer, type DisputeAnswered, readDispute } from './disputes';
import { chargeSaved } from './off-session';
import { confirmedPayment, confirmPayment, STRIPE_AUTHENTICATION_ORIGIN } from './confirm';
import { notActed } from './refusals';
import { createCustomer, lookupSetup, setupResume, setupStore } from './setup';
import { sentMemory } from './sent';
import { STRIPE_API_DEFAULT, stripeSettingsSchema, type StripeSettingsInput } from './settings';
import { stripeUnits, unchargeable } from './units';

// The Stripe connector: a card gateway of the `Gateway` interface. On the payment page the
// card is entered in Stripe's Payment Element in our page when the processor has a
// publishable key and the page runs JavaScript (element.ts, `hosted-fields`), else on Stripe
// Checkout's page, by redirect (checkout.ts: `flow: 'redirect'`, no fields); a PaymentMethod
// made by Stripe.js (`fields.payment_method`) is paid with a PaymentIntent (pay.ts). It captures, refunds,
// voids and looks up by our reference; it saves cards on a Customer and charges them
// off-session (setup.ts, off-session.ts), and a charge that needs the customer is confirmed
// with them on our hosted page (confirm.ts). Every call runs under the caller's AbortSignal. The
// processors API connects it per environment (docs/processors.md).

/** Where Stripe Checkout's page is: the only origin its redirects may send the customer to. */
export const STRIPE_CHECKOUT_ORIGIN = 'https://checkout.stripe.com';

/** The same in every environment, like the seeded gateways' ids (domain/processor-gateway-ids.ts). */
export { STRIPE_CARD_ID };

export interface StripeCardGateway extends Gateway {
  pay(input: Parameters<Gateway['pay']>[0]): Promise<StripePayResult | RedirectRequired | HostedFieldsRequired | NotActed>;
  /** When the hold of a payment (its PaymentIntent id) expires, from Stripe's `capture_before`; null when Stripe does not say. */
  holdExpiry(input: CallContext & { payment: string }): Promise<Date | null>;
  /** A webhook delivery, verified under the processor's signing secret and read again from Stripe (events.ts). */
  processorEvent(input: { body: Buffer; signature: string | undefined; signal: AbortSignal }): Promise<ProcessorEventRead>;
  /** A dispute as Stripe holds it now (disputes.ts). */
  dispute(input: { id: string; signal: AbortSignal }): Promise<SeenDispute>;
  /** The merchant's evidence staged or submitted, or the dispute accepted, at Stripe (disputes.ts). */
  answerDispute(input: DisputeAnswer & { signal: AbortSignal }): Promise<DisputeAnswered>;
  /** The account's charges and refunds created in a window, for the daily sweep (sweep.ts). */
  recent(input: { since: Date; until: Date; signal: AbortSignal }): Promise<ProcessorRecent>;
}

export function stripeGateways(input: StripeSettingsInput, options: { now?: () => Date } = {}): StripeCardGateway[] {
  const settings = stripeSettingsSchema.parse(input);
  const sandbox = settings.secretKey.includes('_test_');
  const ctx: StripeContext = { stripe: stripeClient(settings), files: stripeClient(settings, 'files'), settings, sent: sentMemory(), now: options.now ?? (() => new Date()) };
  // An action whose request Stripe refused (a 4xx) surely did nothing.
  const action = (fn: (ctx: StripeContext, input: ActionInput) => Promise<Awaited<ReturnType<Gateway['capture']>>>) => (i: ActionInput) =>
    withSignal(i.signal, () => fn(ctx, i)).catch((error: unknown) => notActed(error) ?? Promise.reject(error));
  return [
    {
      version: GATEWAY_INTERFACE_VERSION,
      id: STRIPE_CARD_ID,
      code: 'stripe-card',
      name: 'Card',
      flow: 'redirect',
      fields: [],
      currencies: null,
      enabled: true,
      sandbox,
      // Stripe's test cards work in its test mode only: a live account declares none.
      ...(sandbox ? { testData: STRIPE_TEST_DATA } : {}),
      // Checkout's page, and the issuer's authentication of a charge the customer confirms (confirm.ts).
      // With a publishable key, Stripe.js in the page too: its script, its frames (3-D Secure's included) and its API.
      origins: {
        redirect: [STRIPE_CHECKOUT_ORIGIN, STRIPE_AUTHENTICATION_ORIGIN],
        // Stripe's CSP guide lists js.stripe.com's subdomains beside it, for the script and its frames.
        ...(settings.publishableKey ? { script: [STRIPE_JS_ORIGIN, STRIPE_JS_SUBDOMAINS], frame: [STRIPE_JS_ORIGIN, STRIPE_JS_SUBDOMAINS, STRIPE_AUTHENTICATION_ORIGIN], connect: [STRIPE_API_ORIGIN] } : {}),
      },
      // Only while a test double stands in for Stripe (STRIPE_API_URL): its checkout page is on its own origin.
      ...(settings.apiUrl === STRIPE_API_DEFAULT ? {} : { replacedOrigin: new URL(settings.apiUrl).origin }),
      ...(settings.publishableKey ? { hostedFields: { script: settings.jsUrl, key: settings.publishableKey, units: stripeUnits } } : {}),
      // The pay post with Stripe's fields mounted: the Payment Element. With a return route and no fields: Checkout. A PaymentMethod from Stripe.js: a PaymentIntent.
      // An amount Stripe cannot express in its currency's units is refused before any flow sends it.
      pay: (i) =>
        withSignal<StripePayResult | RedirectRequired | HostedFieldsRequired | NotActed>(i.signal, async () =>
          unchargeable(i.amount, i.currency) ?? (i.fields[HOSTED_FIELDS] !== undefined ? elementPay(ctx, i) : i.fields.payment_method === undefined && i.returnUrl ? checkoutPay(ctx, i) : pay(ctx, i)),
        ),
      // A call of the Payment Element recorded its PaymentIntent; Checkout's, its session.
      return: (i) => withSignal(i.signal, () => (i.processorId?.startsWith('pi_') && !i.challenge ? elementReturn(ctx, i) : checkoutReturn(ctx, i))),
      // One capture per PaymentIntent: a partial one releases the rest, and a second is refused before Stripe is asked.
      capabilities: { repeatedCapture: false },
      capture: action(capture),
      refund: action(refund),
      void: action(voidHold),
      // Saved cards: a SetupIntent on a Customer, on Checkout's page (setup.ts); charged off-session (off-session.ts).
      store: (i) => withSignal(i.signal, () => setupStore(ctx, i)),
      resume: (i) => withSignal(i.signal, () => setupResume(ctx, i.challenge)),
      customer: (i) => withSignal(i.signal, () => createCustomer(ctx, i.reference, { client: i.client })),
      charge: (i) => withSignal(i.signal, async () => unchargeable(i.amount, i.currency) ?? chargeSaved(ctx, i)),
      // A charge that needs the customer, confirmed on our hosted page (confirm.ts).
      confirm: (i) => withSignal(i.signal, () => confirmPayment(ctx, i)),
      confirmed: (i) => withSignal(i.signal, () => confirmedPayment(ctx, i)),
      // A resumed store is read from its setup session; anything else as lookup.ts says.
      lookup: (i) => withSignal(i.signal, () => (i.kind === 'store' && i.processorId?.startsWith('cs_') ? lookupSetup(ctx, i.processorId) : lookup(ctx, i.reference, i.processorId, i))),
      holdExpiry: (i) => withSignal(i.signal, () => holdExpiry(ctx, i.payment)),
      // The merchant's Stripe account settles its payments: Stripe's fee and net from the charge's balance transaction (settlement.ts).
      processorFigures: (i) => withSignal(i.signal, () => settlementAtStripe(ctx, i.payment)),
      processorEvent: (i) => withSignal(i.signal, () => readEvent(ctx, i)),
      dispute: (i) => withSignal(i.signal, () => readDispute(ctx, i.id)),
      answerDispute: (i) => withSignal(i.signal, () => answerDispute(ctx, i)),
      recent: (i) => withSignal(i.signal, () => recentAtStripe(ctx, i)),
      // Stripe's own payouts to the merchant's bank, for the Balance page (payouts.ts).
      processorPayouts: (i) => withSignal(i.signal, () => payoutsAtStripe(ctx, i)),
    },
  ];
}
