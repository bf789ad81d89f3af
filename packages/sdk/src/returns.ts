import { createHmac, timingSafeEqual } from 'node:crypto';

// Signed returns (docs/checkout.md): the customer comes back to return_url or cancel_url
// with `transaction_id` (a payment) or `subscription_id` (a sign-up), `status`, `timestamp`
// (Unix seconds) and, last, `signature`:
// `v1,<base64 HMAC-SHA256>` of the whole URL up to `&signature=` (without any `#fragment`),
// keyed with the base64 part of the environment's return-signing secret (`whsec_…`).
// During a roll's overlap it holds two signatures, separated by a space.

export const RETURN_TOLERANCE_SECONDS = 10 * 60;

/** A valid return names exactly one of `transaction_id` (a payment's) and `subscription_id` (a sign-up's). */
export type VerifiedReturn =
  | ({ valid: true; status: string; timestamp: number } & (
      | { transaction_id: string; subscription_id?: undefined }
      | { subscription_id: string; transaction_id?: undefined }
    ))
  | { valid: false; reason: 'unsigned' | 'malformed' | 'stale' | 'forged' };

export interface VerifyReturnOptions {
  /** The receiver's clock (default: now). */
  now?: Date | number;
  /** How old (or how far ahead) a return may be, seconds (default 600). */
  toleranceSeconds?: number;
}

const hmac = (secret: string, message: string) =>
  createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(message).digest('base64');

/**
 * Checks a return as your server received it: `url` is the full URL the customer arrived
 * at (scheme, host, path and query, as your return_url had them: with Express,
 * `https://shop.example${req.originalUrl}`), `secret` the environment's return-signing
 * secret (`client.returnSecret.get()`), or several. Valid only if signed with one of them,
 * unaltered, within the tolerance of now. A payment's `status` is `D` (paid) or `C`
 * (cancelled); a sign-up's is the subscription's (`trialing`, `active`, or `waiting` when the
 * customer left): show the matching page, but fulfil on the webhook.
 */
export function verifyReturnUrl(url: string | URL, secret: string | readonly string[], options: VerifyReturnOptions = {}): VerifiedReturn {
  const href = String(url).split('#')[0]!;
  const at = href.lastIndexOf('&signature=');
  if (at < 0) return { valid: false, reason: 'unsigned' };
  const message = href.slice(0, at);
  let params: URLSearchParams;
  let signatures: string[];
  try {
    params = new URL(message).searchParams;
    signatures = decodeURIComponent(href.slice(at + '&signature='.length)).split(' ');
  } catch {
    return { valid: false, reason: 'malformed' };
  }
  // Each of the return's parameters at most once: a return_url's own would be read in place of the signed one.
  if (['transaction_id', 'subscription_id', 'status', 'timestamp'].some((name) => params.getAll(name).length > 1)) return { valid: false, reason: 'malformed' };
  const transactionId = params.get('transaction_id');
  const subscriptionId = params.get('subscription_id');
  const status = params.get('status');
  const stamp = params.get('timestamp') ?? '';
  if (!transactionId === !subscriptionId || !status || !/^\d{1,12}$/.test(stamp)) return { valid: false, reason: 'malformed' };
  const timestamp = Number(stamp);
  const expected = [secret].flat().map((s) => Buffer.from(hmac(s, message)));
  const matches = signatures.some((s) => {
    if (!s.startsWith('v1,')) return false;
    const candidate = Buffer.from(s.slice(3));
    return expected.some((e) => candidate.length === e.length && timingSafeEqual(candidate, e));
  });
  if (!matches) return { valid: false, reason: 'forged' };
  const now = Number(options.now ?? Date.now()) / 1000;
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? RETURN_TOLERANCE_SECONDS)) return { valid: false, reason: 'stale' };
  const subject = transactionId ? { transaction_id: transactionId } : { subscription_id: subscriptionId! };
  return { valid: true, ...subject, status, timestamp };
}
