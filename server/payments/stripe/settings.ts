import { z } from 'zod';

// What the Stripe connector is built from. The processors API (a later slice) stores these
// per environment, sealed; tests pass them directly.

export const stripeSettingsSchema = z.object({
  /** A secret (`sk_…`) or restricted (`rk_…`) key; test keys reach Stripe's test mode only. */
  secretKey: z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/, 'a Stripe secret or restricted key (sk_… or rk_…)'),
  /** Where Stripe's API is: Stripe's own unless a test double stands in (STRIPE_API_URL). */
  apiUrl: z.url({ protocol: /^https?$/ }).default('https://api.stripe.com'),
  /** The longest one request may take, whatever the caller's signal allows. */
  timeoutMs: z.number().int().positive().default(30_000),
  /** Where Stripe sends the customer back after 3-D Secure; without it the challenge is left to Stripe.js. */
  returnUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** How far back a lookup lists PaymentIntents when it does not know when the call was made. */
  lookupWindowHours: z.number().int().positive().default(72),
});

export type StripeSettingsInput = z.input<typeof stripeSettingsSchema>;
export type StripeSettings = z.output<typeof stripeSettingsSchema>;
