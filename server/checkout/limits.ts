import { createHmac } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { normalizeCardNumber } from '../../widget/fields/card';
import { type DocumentAssets, renderMessage } from '../../widget/screen/document';
import { resolveLanguage } from '../../widget/i18n/language';
import type { RatePolicy } from '../domain/rate-limit';
import type { Deps } from '../deps';
import { retryAfterSeconds, setRateLimitHeaders } from '../http/rate-limit';
import type { Gateway } from '../payments/gateway';
import { TEST_CARDS } from '../domain/test-cards';
import { serverSecret } from '../store/secrets';
import { applyPageHeaders, newNonce } from './security';

// Limits of the public pages. The payment page's own is the decline count per transaction
// (domain/payment-claim.ts: FAILED_ATTEMPTS_LIMIT declines an hour, which stops trying many
// cards on one payment). Here: how often one card may be tried across payments (card testing spreads over many tokens), and how
// many writes one client address may make on the pages without a token of their own
// (sign-up, the provider's return, the demo). The address limit is per minute and high
// (IP_RATE_LIMIT, default 600): a carrier-grade NAT puts thousands of customers behind one.

/** Attempts with one card, on any payment: a few retries and payments of a day's shopping. */
const CARD_POLICY: RatePolicy = { name: 'card', limit: 10, windowMs: 10 * 60_000 };

/**
 * The published test numbers are typed by every developer and every test run, from
 * anywhere: a limit per card would only refuse them. Any other number is limited.
 */
const PUBLISHED_TEST_CARDS = new Set(Object.values(TEST_CARDS).map(normalizeCardNumber));

/**
 * The limit of a card payment attempt per card: milliseconds to wait, or 0 to go on. The card is
 * known by a keyed hash of its number (the key is a server secret), so the limiter's keys
 * cannot be turned back into numbers; the number itself is never stored or logged.
 */
export function cardLimit(deps: Deps): (gateway: Gateway, fields: Record<string, string>) => Promise<number> {
  let secret: Promise<string> | undefined;
  const fingerprintKey = () => (secret ??= serverSecret(deps.database.db, 'card-fingerprint'));
  return async (gateway, fields) => {
    let wait = 0;
    for (const field of gateway.fields) {
      const number = field.validate === 'card-number' ? normalizeCardNumber(fields[field.name] ?? '') : '';
      if (!number || PUBLISHED_TEST_CARDS.has(number)) continue;
      const fingerprint = createHmac('sha256', await fingerprintKey()).update(number).digest('base64url');
      const d = await deps.limiter.take(`card:${fingerprint}`, CARD_POLICY, deps.now());
      if (!d.allowed) wait = Math.max(wait, d.retryAfterMs);
    }
    return wait;
  };
}

/** The client's address: the proxy's X-Forwarded-For only with TRUST_PROXY (Express's `trust proxy`). */
const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/**
 * IP_RATE_LIMIT requests a minute per client address for the page routes it is put on
 * (`name` keeps each route's count apart); over it, a 429 page with Retry-After. Also the
 * hook for the dashboard's sign-in.
 */
export function addressLimit(deps: Deps, name: string, screenAssets: () => DocumentAssets): RequestHandler {
  const policy: RatePolicy = { name, limit: deps.config.ipRateLimit, windowMs: 60_000 };
  return async (req, res, next) => {
    const d = await deps.limiter.take(`ip:${name}:${clientAddress(req)}`, policy, deps.now());
    setRateLimitHeaders(res, policy, d);
    if (d.allowed) return next();
    const nonce = newNonce();
    applyPageHeaders(res, { nonce, frameAncestors: [], formTargets: [] });
    const language = resolveLanguage(null, req.get('accept-language'));
    res.status(429).set('Retry-After', String(retryAfterSeconds(d))).type('html').send(renderMessage({ language, nonce, assets: screenAssets() }, 'tooMany'));
  };
}
