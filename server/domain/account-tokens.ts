import { createHash, timingSafeEqual } from 'node:crypto';
import { secureRandomBytes } from './random';

// The dashboard accounts' bearer secrets (session ids, CSRF tokens, invite and password
// reset links): 256 random bits, URL-safe; only their SHA-256 is ever stored.

export const newSecret = () => secureRandomBytes(32).toString('base64url');
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
