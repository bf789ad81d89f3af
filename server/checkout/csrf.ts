import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

// The pay form is protected twice: a token bound to the transaction (HMAC with a server
// secret, so it cannot be computed without reading our page), and the browser's Origin /
// Sec-Fetch-Site headers, which a cross-site form post cannot forge.

export function csrfToken(secret: string, token: string): string {
  return createHmac('sha256', secret).update(`csrf:${token}`).digest('base64url');
}

export function validCsrf(secret: string, token: string, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(csrfToken(secret, token));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** false when the browser tells us the post comes from another site. */
export function sameOriginPost(req: Request, ownOrigin: string): boolean {
  // Sec-Fetch-Site is set by the browser itself and survives our no-referrer policy.
  const site = req.get('sec-fetch-site');
  if (site) return site === 'same-origin';
  // Under Referrer-Policy: no-referrer, browsers send `Origin: null` for form posts;
  // then only the token speaks.
  const origin = req.get('origin');
  return !origin || origin === 'null' || origin === ownOrigin;
}
