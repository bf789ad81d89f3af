import { createHmac, timingSafeEqual } from 'node:crypto';
import type { webhooks } from './types.js';

// Webhook verification, Standard Webhooks (standardwebhooks.com) with nothing but
// node:crypto: the signed content is "<webhook-id>.<webhook-timestamp>.<raw body>", the key
// the base64 part of a `whsec_…` secret, and `webhook-signature` lists `v1,<base64
// HMAC-SHA256>` entries separated by spaces (two while a rolled secret overlaps): the
// message is genuine if any one matches a secret. The timestamp must be within the
// tolerance of now, either way, so a captured delivery cannot be replayed later.

type Body<K extends keyof webhooks> = webhooks[K] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;

/** The type of every event (`transaction.paid`, `sale.refunded`, …). */
export type WebhookEventType = keyof webhooks;

/** The body of an event of type `K`: `data` is that object as the API shows it. */
export type WebhookEventOf<K extends WebhookEventType> = Body<K>;

/** The body of any delivery; `switch (event.type)` narrows `data`. */
export type WebhookEvent = { [K in WebhookEventType]: Body<K> }[WebhookEventType];

export type WebhookVerificationFailure = 'missing_headers' | 'invalid_timestamp' | 'stale' | 'invalid_signature' | 'invalid_payload';

/** A delivery that is not genuine, or too old or too new: answer it with a 400 and drop it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Request headers as `fetch` (a Headers), Express or node:http (an object) give them. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The receiver's clock (default: now). */
  now?: Date | number;
  /** How far `webhook-timestamp` may be from now, seconds (default 300). */
  toleranceSeconds?: number;
}

export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

function header(headers: HeadersLike, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

/**
 * Checks a delivery and returns its event, typed. `payload` is the raw body as received
 * (a string or bytes, before any JSON parsing: re-serialised JSON does not verify),
 * `secret` the endpoint's `whsec_…` secret, or several (the current one and the one it
 * replaces). Throws a WebhookVerificationError when it is not genuine or not recent.
 */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: HeadersLike,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook needs the raw body (a string or a Buffer), not parsed JSON');
  }
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are required');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not Unix seconds');
  const now = Math.floor(Number(options.now ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError('stale', 'webhook-timestamp is too far from now');
  }
  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), Buffer.from(payload)]);
  const expected = [secret].flat().map((s) => createHmac('sha256', keyOf(s)).update(content).digest());
  const given = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  const genuine = given.some((g) => expected.some((e) => g.length === e.length && timingSafeEqual(g, e)));
  if (!genuine) throw new WebhookVerificationError('invalid_signature', 'no signature matches the secret');
  try {
    return JSON.parse(Buffer.from(payload).toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the body is not JSON');
  }
}
