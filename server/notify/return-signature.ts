import { createHmac, timingSafeEqual } from 'node:crypto';

// Signed returns: the customer comes back to the shop's return_url or cancel_url with
// `transaction_id` (a payment's) or `subscription_id` (a sign-up's), `status`, `timestamp`
// (Unix seconds) and, last, `signature`: an
// HMAC-SHA256 over the whole URL without its `signature` parameter (and without any
// `#fragment`, which browsers never send), keyed with the environment's return-signing
// secret (`whsec_…`, the key is its base64 part). The signature is `v1,<base64>`; during
// a roll's overlap there are two, separated by a space, one per secret.
//
// This file has no imports but node:crypto, so a merchant's Node server can copy it as is;
// docs/checkout.md shows how to use verifyReturn.

/** A return older (or newer) than this is refused: it may have been replayed. */
const RETURN_TOLERANCE_SECONDS = 10 * 60;

const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
const hmac = (secret: string, message: string) => createHmac('sha256', keyOf(secret)).update(message).digest('base64');

/** Whose return it is: a payment's or a subscription sign-up's. */
export type ReturnSubject = { transaction_id: string } | { subscription_id: string };

/**
 * `url` with the return's parameters and their signature, by each of `secrets` (the
 * current one first). `status`: the transaction's, `D` (paid) or `C` (cancelled), or the
 * subscription's as the API shows it (`trialing`, `active`; `waiting` when the customer left).
 */
export function signReturnUrl(url: string, r: { subject: ReturnSubject; status: string; now: Date; secrets: string[] }): string {
  const parsed = new URL(url);
  const fragment = parsed.hash;
  parsed.hash = '';
  // A return_url ending in a bare "?" has an empty query: dropped, or the return would read
  // "thanks??transaction_id=…" and no verifier could parse it.
  if (!parsed.search) parsed.search = '';
  const params = new URLSearchParams({ ...r.subject, status: r.status, timestamp: String(Math.floor(r.now.getTime() / 1000)) });
  const message = `${parsed.href}${parsed.search ? '&' : '?'}${params}`;
  const signature = r.secrets.map((secret) => `v1,${hmac(secret, message)}`).join(' ');
  return `${message}&signature=${encodeURIComponent(signature)}${fragment}`;
}

/** A valid return names exactly one of `transaction_id` and `subscription_id`. */
export type VerifiedReturn =
  | ({ valid: true; status: string; timestamp: number } & (
      | { transaction_id: string; subscription_id?: undefined }
      | { subscription_id: string; transaction_id?: undefined }
    ))
  | { valid: false; reason: 'unsigned' | 'malformed' | 'stale' | 'forged' };

/**
 * Checks a return as your server received it: `url` is the full URL the customer arrived
 * at (scheme, host, path and query, as your return_url had them), `secret` the
 * environment's return-signing secret. Valid only if it was signed with that secret,
 * unaltered, within RETURN_TOLERANCE_SECONDS of `now`.
 */
export function verifyReturn(url: string, secret: string, now: Date = new Date(), toleranceSeconds = RETURN_TOLERANCE_SECONDS): VerifiedReturn {
  const href = url.split('#')[0]!;
  const at = href.lastIndexOf('&signature=');
  if (at < 0) return { valid: false, reason: 'unsigned' };
  const message = href.slice(0, at);
  const given = href.slice(at + '&signature='.length);
  let params: URLSearchParams;
  let signatures: string[];
  try {
    params = new URL(message).searchParams;
    signatures = decodeURIComponent(given).split(' ');
  } catch {
    return { valid: false, reason: 'malformed' };
  }
  // Each of the return's parameters at most once: a return_url of the shop's own that had one
  // would otherwise be read in place of the one the signer appended.
  if (['transaction_id', 'subscription_id', 'status', 'timestamp'].some((name) => params.getAll(name).length > 1)) return { valid: false, reason: 'malformed' };
  const transactionId = params.get('transaction_id');
  const subscriptionId = params.get('subscription_id');
  const status = params.get('status');
  const timestamp = Number(params.get('timestamp'));
  if (!transactionId === !subscriptionId || !status || !Number.isInteger(timestamp)) return { valid: false, reason: 'malformed' };
  const expected = Buffer.from(hmac(secret, message));
  const matches = signatures.some((s) => {
    const candidate = Buffer.from(s.replace(/^v1,/, ''));
    return s.startsWith('v1,') && candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
  if (!matches) return { valid: false, reason: 'forged' };
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return { valid: false, reason: 'stale' };
  const subject = transactionId ? { transaction_id: transactionId } : { subscription_id: subscriptionId! };
  return { valid: true, ...subject, status, timestamp };
}
