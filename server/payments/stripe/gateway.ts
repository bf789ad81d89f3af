import { type ActionInput, type CallContext, type Gateway, GATEWAY_INTERFACE_VERSION, type NotActed } from '../gateway';
import { capture, holdExpiry, refund, voidHold } from './actions';
import { stripeClient, withSignal } from './client';
import type { StripeContext } from './context';
import { lookup } from './lookup';
import { pay, type StripePayResult } from './pay';
import { notActed } from './refusals';
import { sentMemory } from './sent';
import { stripeSettingsSchema, type StripeSettingsInput } from './settings';

// The Stripe connector's server-side core: a card gateway of the `Gateway` interface that
// pays with a PaymentMethod made by Stripe.js in the customer's browser (the page's part is
// a later slice: until then the gateway declares no field, and refuses card numbers), and
// captures, refunds, voids and looks up by our reference. Every call runs under the
// caller's AbortSignal. Not in any registry yet: the processors API connects it per
// environment (docs/processors.md).

/** The same in every environment, like the seeded gateways' ids. */
export const STRIPE_CARD_ID = '0190f5a0-0000-7000-8000-000000057001';

export interface StripeCardGateway extends Gateway {
  pay(input: Parameters<Gateway['pay']>[0]): Promise<StripePayResult | NotActed>;
  /** When the hold of a payment (its PaymentIntent id) expires, from Stripe's `capture_before`; null when Stripe does not say. */
  holdExpiry(input: CallContext & { payment: string }): Promise<Date | null>;
}

export function stripeGateways(input: StripeSettingsInput, options: { now?: () => Date } = {}): StripeCardGateway[] {
  const settings = stripeSettingsSchema.parse(input);
  const ctx: StripeContext = { stripe: stripeClient(settings), settings, sent: sentMemory(), now: options.now ?? (() => new Date()) };
  // An action whose request Stripe refused (a 4xx) surely did nothing.
  const action = (fn: (ctx: StripeContext, input: ActionInput) => Promise<Awaited<ReturnType<Gateway['capture']>>>) => (i: ActionInput) =>
    withSignal(i.signal, () => fn(ctx, i)).catch((error: unknown) => notActed(error) ?? Promise.reject(error));
  return [
    {
      version: GATEWAY_INTERFACE_VERSION,
      id: STRIPE_CARD_ID,
      code: 'stripe-card',
      name: 'Card',
      flow: 'form',
      fields: [],
      currencies: null,
      enabled: true,
      sandbox: settings.secretKey.includes('_test_'),
      pay: (i) => withSignal(i.signal, () => pay(ctx, i)),
      capture: action(capture),
      refund: action(refund),
      void: action(voidHold),
      // Charges of stored cards come with saved cards (SetupIntents on a Customer), a later slice.
      charge: async () => ({ outcome: 'not_acted', reason: 'saved cards are not connected to Stripe yet' }),
      lookup: (i) => withSignal(i.signal, () => lookup(ctx, i.reference)),
      holdExpiry: (i) => withSignal(i.signal, () => holdExpiry(ctx, i.payment)),
    },
  ];
}
