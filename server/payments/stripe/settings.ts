import { z } from 'zod';

/** Stripe's own API: any other `apiUrl` is a test double standing in for it. */
export const STRIPE_API_DEFAULT = 'https://api.stripe.com';
const STRIPE_FILES_DEFAULT = 'https://files.stripe.com';

// What the Stripe connector is built from. The processors API (a later slice) stores these
// per environment, sealed; tests pass them directly.

export const stripeSettingsSchema = z.object({
  /** A secret (`sk_…`) or restricted (`rk_…`) key; test keys reach Stripe's test mode only. */
  secretKey: z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/, 'a Stripe secret or restricted key (sk_… or rk_…)'),
  /** Where Stripe's API is: Stripe's own unless a test double stands in (STRIPE_API_URL). */
  apiUrl: z.url({ protocol: /^https?$/ }).default(STRIPE_API_DEFAULT),
  /** Where Stripe's files host is (dispute evidence is uploaded there): Stripe's own unless a test double stands in (STRIPE_FILES_URL). */
  filesUrl: z.url({ protocol: /^https?$/ }).default(STRIPE_FILES_DEFAULT),
  /** The longest one request may take, whatever the caller's signal allows. */
  timeoutMs: z.number().int().positive().default(30_000),
  /** Where Stripe sends the customer back after 3-D Secure; without it the challenge is left to Stripe.js. */
  returnUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** The publishable key (`pk_…`): with it the payment page offers Stripe's Payment Element (element.ts). */
  publishableKey: z.string().regex(/^pk_(test|live)_[A-Za-z0-9_]+$/).optional(),
  /** Where Stripe.js is: Stripe's own unless a stand-in of a test double is (STRIPE_JS_URL, on the double's origin). */
  jsUrl: z.url({ protocol: /^https?$/ }).default('https://js.stripe.com/v3/'),
  /** The webhook endpoint's signing secret (`whsec_…`): events that do not verify under it are refused. */
  webhookSecret: z.string().min(1).optional(),
  /** The processor's statement descriptor (processor-input.ts checks Stripe's rules): every card PaymentIntent's `statement_descriptor_suffix`. */
  statementDescriptorSuffix: z.string().optional(),
  /** How far back a lookup lists PaymentIntents when it does not know when the call was made. */
  lookupWindowHours: z.number().int().positive().default(72),
});

/**
 * The descriptor's parameter of a card PaymentIntent (or a Checkout Session's
 * `payment_intent_data`): Stripe refuses `statement_descriptor` on card payments, and shows
 * the account's prefix, `* ` and this suffix on the customer's statement.
 */
export const descriptorParams = (settings: Pick<StripeSettings, 'statementDescriptorSuffix'>): { statement_descriptor_suffix?: string } =>
  settings.statementDescriptorSuffix ? { statement_descriptor_suffix: settings.statementDescriptorSuffix } : {};

export type StripeSettingsInput = z.input<typeof stripeSettingsSchema>;
export type StripeSettings = z.output<typeof stripeSettingsSchema>;
