import type { Response } from 'express';
import { secureRandomBytes } from '../domain/random';
import type { Gateway, GatewayOrigins } from '../payments/gateway';
import type { TransactionRow } from '../store/schema';

// Headers of every checkout page: a strict CSP with a fresh nonce, no referrer (the token
// is in the URL), and framing only by the merchant's allowed origins in embed mode.

export function newNonce(): string {
  return secureRandomBytes(16).toString('base64');
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** DESIGN.md: the environment's allowed origins, else the origins of return_url and cancel_url. */
export function allowedFrameOrigins(environmentOrigins: string[], tx: Pick<TransactionRow, 'return_url' | 'cancel_url'>): string[] {
  if (environmentOrigins.length > 0) return environmentOrigins;
  const fromUrls = [originOf(tx.return_url), originOf(tx.cancel_url)].filter((o): o is string => o !== null);
  return [...new Set(fromUrls)];
}

export interface PageSecurity {
  nonce: string;
  /** Exact origins that may frame this response; empty: nobody. */
  frameAncestors: string[];
  /** Where the page's form may send the customer after a POST (303 targets). */
  formTargets: string[];
  /** What the gateways the page offers need (payments/gateway.ts `origins`); none by default. */
  gatewayOrigins?: GatewayOrigins;
}

/** The origins of every gateway offered, merged: what the page's CSP adds for them. */
export function mergeOrigins(gateways: readonly Pick<Gateway, 'origins' | 'replacedOrigin' | 'hostedFields'>[]): GatewayOrigins {
  // A test double's page (gateway.ts `replacedOrigin`, tests only) is where its redirects go;
  // a stand-in of the processor's script served there (`hostedFields.script`) loads, frames and asks from there too.
  const doubles = gateways.flatMap((g) => (g.replacedOrigin ? [g.replacedOrigin] : []));
  const standIns = gateways.flatMap((g) => (g.replacedOrigin && g.hostedFields && new URL(g.hostedFields.script).origin === g.replacedOrigin ? [g.replacedOrigin] : []));
  const of = (key: keyof GatewayOrigins, more: string[] = []) => [...new Set([...gateways.flatMap((g) => g.origins?.[key] ?? []), ...more])];
  return { script: of('script', standIns), frame: of('frame', standIns), connect: of('connect', standIns), form: of('form'), redirect: of('redirect', doubles) };
}

const sources = (first: string, more: readonly string[] = []) => [first, ...more].join(' ');

export function applyPageHeaders(res: Response, s: PageSecurity): void {
  const g = s.gatewayOrigins ?? {};
  const csp = [
    "default-src 'none'",
    sources(`script-src 'nonce-${s.nonce}'`, g.script),
    "style-src 'self'",
    "img-src 'self' data:",
    sources("connect-src 'self'", g.connect),
    ...(g.frame?.length ? [sources('frame-src', g.frame)] : []),
    "base-uri 'none'",
    // Chromium applies form-action to the redirects after a POST as well: a gateway's
    // redirect (a 303 to its processor's page after the pay post) must be allowed too.
    sources("form-action 'self'", [...s.formTargets, ...(g.form ?? []), ...(g.redirect ?? [])]),
    `frame-ancestors ${s.frameAncestors.length ? s.frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cross-Origin-Opener-Policy', s.frameAncestors.length ? 'unsafe-none' : 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  // A processor's frames (Stripe's Payment Element: Apple Pay and Google Pay) ask for the Payment Request API.
  res.setHeader('Permissions-Policy', `camera=(), microphone=(), geolocation=(), payment=(${['self', ...(g.frame ?? []).map((o) => `"${o}"`)].join(' ')})`);
  // X-Frame-Options cannot name origins; outside embed mode it backs up frame-ancestors.
  if (s.frameAncestors.length === 0) res.setHeader('X-Frame-Options', 'DENY');
}

export function redirectOrigins(tx: Pick<TransactionRow, 'return_url' | 'cancel_url'>): string[] {
  return [originOf(tx.return_url), originOf(tx.cancel_url)].filter((o): o is string => o !== null);
}
