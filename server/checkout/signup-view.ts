import type { CheckoutView, GatewayField, GatewayOption, Language, ScreenStatus } from '../../widget/screen/view';
import { exponentOf } from '../domain/currencies';
import { signupOpen } from '../domain/subscription-states';
import { addDays } from '../domain/periods';
import { canStore } from '../payments/gateway';
import type { GatewaySet } from '../payments/registry';
import type { SubscriptionRow } from '../store/schema';
import { embedView } from './view-model';

// A subscription's sign-up page as the payment screen's view: the same screen, model and
// client script, with the plan's terms in place of order lines. Pure: the routes fetch.

export interface SignupViewInput {
  row: SubscriptionRow;
  merchantName: string;
  language: Language;
  csrf: string;
  now: Date;
  embed: { parentOrigin: string } | null;
  /** This answer shows the result of the customer's own action (see EmbedView.justFinished). */
  justFinished?: boolean;
  /** This answer is the customer's own cancel. */
  cancelled?: boolean;
  error?: CheckoutView['error'];
  chosenGateway?: string | null;
  declined?: boolean;
  /** Without JavaScript, a cancel is asked again before it ends the sign-up. */
  confirmCancel?: boolean;
  /** What a failed post may show again (keptValues: never the card number or the CVC). */
  values?: Record<string, string>;
  gateways: GatewayOption[];
  /** return_url and cancel_url as the widget reports them (signed once the sign-up is done or left); the row's when absent. */
  urls?: { return_url: string | null; cancel_url: string | null };
}

/**
 * The sign-up's own field, shown first with every method's: where the confirmation of the
 * terms and the reminder before the first charge go. Optional; never sent to a gateway.
 */
export const SIGNUP_EMAIL_FIELD: GatewayField = {
  name: 'customer_email',
  label: 'signup.email',
  autocomplete: 'email',
  inputMode: 'text',
  validate: 'optional-email',
};

/**
 * Only gateways that store a card can pay for later periods: here (a card form), or on the
 * processor's own page (Stripe Checkout, Redsys), as the save page does (store-away.ts).
 */
export function signupGateways(gateways: GatewaySet, currency: string, live: boolean): GatewayOption[] {
  return gateways
    .forCurrency(currency, live)
    .filter(canStore)
    // The code lets the screen name the method in the page's language ("Tarjeta", not "Card").
    .map((g) => ({ id: g.id, code: g.code, name: g.name, flow: g.flow, fields: [SIGNUP_EMAIL_FIELD, ...g.fields] }));
}

// No expiry: a sign-up link stays valid while the subscription waits for a card.
const NEVER = '9999-12-31T23:59:59.999Z';

function screenStatus(input: SignupViewInput): ScreenStatus {
  const { row } = input;
  if (signupOpen(row)) return input.cancelled ? 'cancelled' : input.declined ? 'declined' : 'pending';
  // Signed up (or given a card by the API): the page confirms; stopped, it is closed.
  return row.status === 'stopped' || row.authorization_id === null ? 'expired' : 'paid';
}

export function buildSignupView(input: SignupViewInput): CheckoutView {
  const { row } = input;
  const status = screenStatus(input);
  const { gateways } = input;
  const pastDue = row.status === 'past_due';
  // Signing up now: charged now, or at the end of the trial; past due: at once with the new card.
  const firstChargeAt =
    row.status === 'waiting' ? addDays(input.now, row.trial_days) : pastDue ? input.now : new Date(row.next_charge_at ?? input.now);
  return {
    // The widget reports it as the result's transaction_id: here, the subscription's id.
    transactionId: row.id,
    language: input.language,
    merchantName: input.merchantName,
    orderId: row.subscription_id,
    currency: row.currency,
    exponent: exponentOf(row.currency),
    lines: [],
    itemsPrice: row.amount,
    tax: null,
    shipping: null,
    coupon: null,
    totalPrice: row.amount,
    expiresAt: NEVER,
    serverNow: input.now.toISOString(),
    status,
    gateways,
    selectedGateway: gateways.find((g) => g.id === input.chosenGateway)?.id ?? gateways[0]?.id ?? null,
    error: input.error ?? null,
    receipt: null,
    confirmCancel: input.confirmCancel ?? false,
    ...(input.values ? { values: input.values } : {}),
    csrf: input.csrf,
    embed: embedView(input.embed, input.urls ?? row, !!input.justFinished && (status === 'paid' || status === 'cancelled')),
    subscription: {
      planName: row.plan_name,
      amount: row.amount,
      interval: row.interval,
      intervalCount: row.interval_count,
      trialDays: row.trial_days,
      firstChargeAt: firstChargeAt.toISOString(),
      pastDue,
    },
  };
}
