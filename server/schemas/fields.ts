import { z } from 'zod';
import { CURRENCIES } from '../domain/currencies';
import { UUID_PATTERN } from '../domain/ids';
import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from '../../widget/fields/email';
import { FREE_TEXT, NOT_BLANK, SINGLE_LINE, TEXT_MESSAGES } from '../../widget/fields/text';

// Field types shared by every resource schema.

/** Amounts in major units, as the spec speaks them; the exponent is checked on conversion. */
export const amount = z.number().min(0).max(1e12);
const positiveAmount = z.number().gt(0).max(1e12);

/**
 * Every amount in a currency states its decimals rule in the document: it depends on the
 * currency, so no `multipleOf` can say it (and a binary `multipleOf: 0.01` would refuse
 * 19.9 in validators that divide floats), but a client reads it on the field itself.
 */
export const CURRENCY_DECIMALS = 'at most as many decimals as the currency has minor units (its `exponent` in GET /currency/: EUR 2, JPY 0, KWD 3)';
export const moneyAmount = (description: string) => amount.describe(`${description}; ${CURRENCY_DECIMALS}`);
export const positiveMoneyAmount = (description: string) => positiveAmount.describe(`${description}; ${CURRENCY_DECIMALS}`);

// Every text the API reads goes through one of these three, so each refuses control
// characters and unpaired surrogates (widget/fields/text.ts) with a 400 naming the field,
// the same on both engines, before any use case (and so any gateway) sees the value.

/** A single-line text, trimmed: names, external ids, codes. */
export const text = (max: number) => z.string().trim().max(max).regex(SINGLE_LINE, TEXT_MESSAGES.line);

/** A free text, trimmed: descriptions, notes, concepts; tab and line breaks allowed. */
export const freeText = (max: number) => z.string().trim().max(max).regex(FREE_TEXT, TEXT_MESSAGES.free);

/** A single-line text compared as sent (a query filter, a card field): not trimmed. */
export const exact = (max: number) => z.string().max(max).regex(SINGLE_LINE, TEXT_MESSAGES.line);

/** A JSON value's strings, keys included, at any depth: the free-text rule for each. */
export function jsonStringsAreText(value: unknown): boolean {
  // Without recursion, as nestedTooDeep (domain/json-depth.ts): whatever the depth, no stack to overflow.
  const pending = [value];
  while (pending.length) {
    const v = pending.pop();
    if (typeof v === 'string' && !FREE_TEXT.test(v)) return false;
    if (v === null || typeof v !== 'object') continue;
    for (const [key, child] of Object.entries(v)) {
      if (!FREE_TEXT.test(key)) return false;
      pending.push(child);
    }
  }
  return true;
}

/**
 * A required text holds something besides spaces: it is trimmed, so "   " would arrive
 * empty. Stated as a pattern, so the document refuses what the API refuses.
 */
export const nonBlank = (s: z.ZodString) => s.regex(NOT_BLANK, 'must not be blank');

export const name = nonBlank(text(255)).describe('Name');

/**
 * Exactly one of two optional fields: the API refuses neither or both with a 400 naming
 * `a`; the document says the same as a oneOf of their `required`, which a refine cannot.
 */
export function eitherOf<T extends z.ZodObject>(schema: T, a: string, b: string) {
  return schema
    .refine((v: Record<string, unknown>) => (v[a] === undefined) !== (v[b] === undefined), { message: `send either ${a} or ${b}`, path: [a] })
    .meta({ oneOf: [{ required: [a] }, { required: [b] }] });
}

/** A customer's e-mail address: the same rule as the sign-up page's field (widget/fields/email.ts). */
export const customerEmail = z.email({ pattern: EMAIL_PATTERN, error: 'must be an e-mail address' }).max(EMAIL_MAX_LENGTH);

/** The document lists the codes (one shared component): a code it allows is one the API takes. */
export const currencyCode = z
  .enum([...CURRENCIES.keys()] as [string, ...string[]], { error: 'is not a known currency: an ISO 4217 code in capitals (see GET /currency/)' })
  .meta({ id: 'CurrencyCode', description: 'Currency, ISO 4217 code in capitals (see GET /currency/)' });

/** A DNS name, or an IP literal (IPv6 in brackets, as URLs write it): zod's hostname pattern alone refuses IPv6. */
const URL_HOST = new RegExp(`${z.regexes.hostname.source}|^\\[[0-9a-fA-F:.]+\\]$`);

export const httpUrl = z
  .url({ protocol: /^https?$/, hostname: URL_HOST, error: 'must be an absolute http(s) URL' })
  .max(2048)
  // The URL parser drops tabs and line breaks and lets a NUL through in the path. A
  // refinement, not a pattern: the document keeps `format: uri`, which has no controls.
  .refine((url) => SINGLE_LINE.test(url), TEXT_MESSAGES.line)
  // A password in a URL would be shown wherever the URL is (the API's answers, events, logs):
  // a receiver authenticates a delivery by its signature instead.
  .refine((url) => !URL.canParse(url) || (new URL(url).username === '' && new URL(url).password === ''), 'must not carry a user name or password');

/** What the signed return appends to return_url and cancel_url (notify/return-signature.ts). */
const RETURN_PARAMS = ['transaction_id', 'subscription_id', 'status', 'timestamp', 'signature'];

/**
 * Where the payment and sign-up pages send the customer back. Its query may not carry a
 * parameter the signed return appends: the shop's verifier would read two, one of them not signed by us.
 */
export const returnUrl = httpUrl.refine((url) => !URL.canParse(url) || !RETURN_PARAMS.some((name) => new URL(url).searchParams.has(name)), {
  error: `must not carry ${RETURN_PARAMS.map((n) => `\`${n}\``).join(', ')} in its query: the signed return adds them`,
});

/** A UUID is the same in either case (RFC 9562): one the client gives is read as ours are written, in lower case. */
export const inLowerCase = (id: string) => id.toLowerCase();

/** An id given by the client, of an object that must exist. */
export const ref = (what: string) => z.string().regex(UUID_PATTERN, `must be the id (a UUID) of an existing ${what}`).overwrite(inLowerCase);

export const percentage = z.number().min(0).max(100);

/** An ISO 8601 date-time in UTC, as every timestamp of an answer is written. */
export const dateTime = z.iso.datetime();

/**
 * A date-time a client sends, with any offset, whose instant is within years 0000–9999 in
 * UTC: `9999-12-31T23:59:59-05:00` is in the year 10000 there, which no ISO string of
 * ours (nor the document's pattern for answers) can write, and which would sort before
 * every other stored one.
 */
export const dateTimeInput = z.iso
  .datetime({ offset: true })
  // zod runs a refinement even after the format check failed: an unparsable date must not reach toISOString (it throws).
  .refine((s) => {
    const at = new Date(s);
    return Number.isNaN(at.getTime()) || /^\d{4}-/.test(at.toISOString());
  }, 'must be within the years 0000 to 9999 in UTC');

export const timestamps = {
  created: dateTime.describe('When the object was created (ISO 8601, UTC)'),
  updated: dateTime.describe('When the object last changed (ISO 8601, UTC)'),
};

/** The `id` of an object in an answer. */
export { livemodeField as livemode } from '../http/livemode';

export const objectId = z.uuid().describe('Unique identifier (UUID), generated by the service');

/** A currency as answers write it. */
export const currencyOut = z.string().describe('Currency, ISO 4217 code');

