import { z } from 'zod';
import { type CardSummary, GatewayMismatch } from '../gateway';
import { ourUnits } from './units';

// What the connector reads from Stripe's answers, parsed with zod (the SDK's types say what
// Stripe documents, not what arrived), and checked against the request before anything is
// believed: the amount, the currency, our reference in `metadata`, the object's id. An
// answer that cannot be read or does not match is a `StripeMismatch`: never recorded, never
// retried, the caller sends the call to `attention`.

export class StripeMismatch extends GatewayMismatch {
  constructor(field: string, expected: unknown, received: unknown) {
    super('Stripe', field, expected, received);
  }
}

const card = z.object({
  brand: z.string().nullish(),
  last4: z.string().nullish(),
  exp_month: z.number().int().nullish(),
  exp_year: z.number().int().nullish(),
  /** Unix seconds: when an authorization held on this charge expires (Stripe sets it on uncaptured charges). */
  capture_before: z.number().int().optional(),
  /** What 3-D Secure came to on this charge, when it ran (Checkout runs it on Stripe's page). */
  three_d_secure: z.object({ result: z.string().nullish(), authentication_flow: z.string().nullish() }).nullish(),
});

const charge = z.object({
  id: z.string().startsWith('ch_'),
  object: z.literal('charge'),
  amount: z.number().int(),
  currency: z.string(),
  status: z.enum(['succeeded', 'pending', 'failed']),
  payment_method_details: z.object({ card: card.nullish() }).nullish(),
});

export const paymentMethodSchema = z.object({ card: card.nullish() });

export const paymentIntentSchema = z.object({
  id: z.string().startsWith('pi_'),
  object: z.literal('payment_intent'),
  amount: z.number().int(),
  amount_capturable: z.number().int(),
  amount_received: z.number().int(),
  currency: z.string(),
  status: z.enum(['requires_payment_method', 'requires_confirmation', 'requires_action', 'processing', 'requires_capture', 'canceled', 'succeeded']),
  capture_method: z.enum(['automatic', 'automatic_async', 'manual']),
  metadata: z.record(z.string(), z.string()),
  latest_charge: z.union([z.string(), charge]).nullish(),
  next_action: z.object({ type: z.string(), redirect_to_url: z.object({ url: z.string().nullish() }).nullish() }).nullish(),
  last_payment_error: z.object({ code: z.string().nullish(), decline_code: z.string().nullish(), payment_method: z.union([z.string(), paymentMethodSchema]).nullish() }).nullish(),
}).transform((pi) => ({
  ...pi,
  amount: ourUnits(pi.amount, pi.currency),
  amount_capturable: ourUnits(pi.amount_capturable, pi.currency),
  amount_received: ourUnits(pi.amount_received, pi.currency),
}));

export const refundSchema = z.object({
  id: z.string().startsWith('re_'),
  object: z.literal('refund'),
  amount: z.number().int(),
  currency: z.string(),
  status: z.enum(['pending', 'requires_action', 'succeeded', 'failed', 'canceled']),
  payment_intent: z.string().nullish(),
  charge: z.string().nullish(),
  created: z.number().int(),
  metadata: z.record(z.string(), z.string()),
  failure_reason: z.string().nullish(),
}).transform((r) => ({ ...r, amount: ourUnits(r.amount, r.currency) }));

export type PaymentIntent = z.infer<typeof paymentIntentSchema>;
export type Refund = z.infer<typeof refundSchema>;

/** Reads an answer with `schema`; what cannot be read is not believed. */
export function read<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new StripeMismatch(what, 'an object as Stripe documents it', z.prettifyError(parsed.error));
  return parsed.data;
}

/** Throws unless `received` is `expected`. */
export function same(field: string, expected: unknown, received: unknown): void {
  if (expected !== received) throw new StripeMismatch(field, expected, received);
}

/** A PaymentIntent answered for a payment of ours: its amount, currency and reference must be the request's. */
export function checkPayment(pi: PaymentIntent, expected: { amount: number; currency: string; reference: string; capture: boolean }): void {
  same('amount', expected.amount, pi.amount);
  same('currency', expected.currency.toLowerCase(), pi.currency);
  same('metadata.reference', expected.reference, pi.metadata.reference);
  same('capture_method', expected.capture ? 'automatic' : 'manual', pi.capture_method === 'automatic_async' ? 'automatic' : pi.capture_method);
}

export const latestCharge = (pi: PaymentIntent) => (typeof pi.latest_charge === 'object' ? pi.latest_charge : null);

export function cardSummary(details: z.infer<typeof card> | null | undefined): CardSummary | null {
  if (!details) return null;
  return { brand: details.brand ?? null, last4: details.last4 ?? null, expMonth: details.exp_month ?? null, expYear: details.exp_year ?? null };
}

/** When the hold on a PaymentIntent's charge expires (`capture_before`), if Stripe says. */
export function holdExpiresAt(pi: PaymentIntent): Date | null {
  const seconds = latestCharge(pi)?.payment_method_details?.card?.capture_before;
  return seconds === undefined ? null : new Date(seconds * 1000);
}
