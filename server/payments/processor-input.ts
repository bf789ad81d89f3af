import { z } from 'zod';
import type { ProcessorType } from '../store/schema';
import { redsysInput, redsysLiveErrors } from './redsys-input';

// What connecting a processor takes, and what a change of it takes: one copy of the field
// rules, read by the API (server/api/processors.ts, which names them in the OpenAPI
// document) and by the dashboard's form. Each type has its own fields (Stripe's here,
// Redsys's in redsys-input.ts); a change is read by the type of the processor it changes
// (changeOf). A key's mode (test or live) against the environment's is checked after
// parsing (modeErrors), since the schema cannot know where the request was sent.

const KEY_MAX = 255;

const secretKey = z
  .string()
  .max(KEY_MAX)
  .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/, 'must be a Stripe secret key (sk_test_… / sk_live_…) or restricted key (rk_test_… / rk_live_…)')
  .describe('Your Stripe secret key (`sk_…`) or restricted key (`rk_…`): test keys for a sandbox environment, live keys for a live one. Write-only: never shown again, only its last four characters');

const webhookSecret = z
  .string()
  .max(KEY_MAX)
  .regex(/^whsec_[A-Za-z0-9+/=_-]+$/, 'must be the signing secret of your Stripe webhook endpoint (whsec_…)')
  .describe('The signing secret (`whsec_…`) Stripe shows for the webhook endpoint you register at `webhook_url`. Write-only');

const publishableKey = z
  .string()
  .max(KEY_MAX)
  .regex(/^pk_(test|live)_[A-Za-z0-9_]+$/, 'must be a Stripe publishable key (pk_test_… / pk_live_…)')
  .describe('Your Stripe publishable key (`pk_…`), for Stripe’s card fields in the payment page; of the same mode as the secret key. Write-only');

// Sent as each card payment's `statement_descriptor_suffix` (Stripe refuses
// `statement_descriptor` on card payments): the statement shows the account's prefix (2 to
// 10 characters), `* ` and this, 22 characters at most in all, so a suffix longer than 18
// could never be shown whole. Stripe's other rules for it: Latin characters, at least one
// letter, none of < > \ ' " *. Checked here so that a bad one is a 400 naming the field
// when it is set, never a refusal by Stripe of every later payment.
/** The longest suffix a statement can show whole (the dashboard's form is limited to it too). */
export const SUFFIX_MAX = 22 - '* '.length - 2;

const statementDescriptor = z
  .string()
  .trim()
  .min(1, `must be 1 to ${SUFFIX_MAX} characters`)
  .max(SUFFIX_MAX, `must be 1 to ${SUFFIX_MAX} characters: your Stripe account's prefix, "* " and this make at most 22`)
  .regex(/^[\x20-\x7e]+$/, 'must be plain Latin characters (ASCII)')
  .regex(/^[^<>\\'"*]+$/, 'must not contain < > \\ \' " or *')
  .regex(/[A-Za-z]/, 'must contain at least one letter')
  .describe(
    `What your customers’ card statements show after your Stripe account’s prefix and \`* \` (sent as each card payment’s \`statement_descriptor_suffix\`): 1 to ${SUFFIX_MAX} characters, at least one letter, none of \`<>\\'"*\`; null: the account’s own descriptor alone`,
  );

const stripeInput = z.strictObject({
  type: z.literal('stripe').describe('Stripe'),
  secret_key: secretKey,
  webhook_secret: webhookSecret,
  publishable_key: publishableKey,
  statement_descriptor: statementDescriptor.nullable().default(null),
});

export const processorInput = z.discriminatedUnion('type', [stripeInput, redsysInput]);

const stripeChange = z.strictObject({
  secret_key: secretKey.optional(),
  webhook_secret: webhookSecret.optional(),
  publishable_key: publishableKey.optional(),
  statement_descriptor: statementDescriptor.nullable().optional().describe(`A new statement descriptor suffix (1 to ${SUFFIX_MAX} characters, at least one letter); null: the account’s own descriptor alone`),
});

const redsysChange = redsysInput.pick({ secret_key: true, signature_version: true }).partial();

const someField = (v: Record<string, unknown>) => Object.values(v).some((x) => x !== undefined);

/** Any type's change, as the route reads it; the fields of the processor's own type are checked by `changeOf`. */
export const processorChangeInput = z
  .strictObject({
    secret_key: z.string().max(KEY_MAX).optional().describe('A rolled secret key (Stripe: `sk_…` / `rk_…`; Redsys: the terminal’s key, base64), checked with the processor first. Write-only'),
    webhook_secret: webhookSecret.optional(),
    publishable_key: publishableKey.optional(),
    statement_descriptor: statementDescriptor.nullable().optional().describe(`Stripe only: a new statement descriptor suffix (1 to ${SUFFIX_MAX} characters, at least one letter); null: the account’s own descriptor alone`),
    signature_version: redsysInput.shape.signature_version.optional(),
  })
  .refine(someField, 'must change at least one field');

export type ProcessorInput = z.output<typeof processorInput>;
export type ProcessorChangeInput = z.output<typeof processorChangeInput>;
export type StripeChange = z.output<typeof stripeChange>;
export type RedsysChange = z.output<typeof redsysChange>;

/** The change read by the type of the processor it changes: its fields, or each field at fault (another type's field too). */
export function changeOf(type: ProcessorType, input: ProcessorChangeInput): { ok: true; change: StripeChange | RedsysChange } | { ok: false; errors: { path: string; message: string }[] } {
  const parsed = (type === 'stripe' ? stripeChange : redsysChange).safeParse(input);
  if (parsed.success) return { ok: true, change: parsed.data };
  return { ok: false, errors: parsed.error.issues.flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys.map((k) => ({ path: k, message: `is not a field of a ${type} processor` })) : [{ path: i.path.join('.'), message: i.message }])) };
}

const KEY_FIELDS = ['secret_key', 'publishable_key'] as const;

/** Stripe's keys of the other mode than the environment's (test keys in sandboxes, live keys in live ones). */
function stripeModeErrors(input: Partial<Record<(typeof KEY_FIELDS)[number], string>>, live: boolean): { path: string; message: string }[] {
  return KEY_FIELDS.flatMap((field) => {
    const key = input[field];
    if (key === undefined || key.includes(live ? '_live_' : '_test_')) return [];
    const message = live ? 'is a test key: a live environment takes live keys only (…_live_…)' : 'is a live key: a sandbox environment takes test keys only (…_test_…)';
    return [{ path: field, message }];
  });
}

/** A 400's fields: what a processor of this type may not bring to an environment of this mode. */
export function modeErrors(type: ProcessorType, input: Record<string, unknown>, live: boolean): { path: string; message: string }[] {
  return type === 'stripe' ? stripeModeErrors(input as Partial<Record<(typeof KEY_FIELDS)[number], string>>, live) : redsysLiveErrors(input, live);
}
