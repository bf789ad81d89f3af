import type { Request, Response } from 'express';
import type { Deps } from '../deps';
import { sameOriginPost } from '../checkout/csrf';
import { baseUrlOf } from '../http/route';
import { newSecret, sameSecret } from '../domain/account-tokens';
import { SESSION_ABSOLUTE_MS } from './accounts';

// Cookies, headers and CSRF checks of the dashboard's pages.

export const SESSION_COOKIE = 'dashboard_session';
/** Before sign-in there is no session to bind a CSRF token to: a double-submit cookie instead. */
export const FORM_COOKIE = 'dashboard_form';
/** A sign-in whose password was right, waiting for the second factor's code. */
export const CHALLENGE_COOKIE = 'dashboard_challenge';
const COOKIE_PATH = '/dashboard/';

export function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      // Ours are base64url; anything else is not ours.
      return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** https as the browser sees it: behind a trusted proxy, or a PUBLIC_URL that says so. */
const isSecure = (req: Request, deps: Deps) => req.secure || (deps.config.publicUrl?.startsWith('https:') ?? false);

export function setCookie(req: Request, res: Response, deps: Deps, name: string, value: string, maxAgeS: number, sameSite: 'Lax' | 'Strict'): void {
  const parts = [`${name}=${value}`, `Path=${COOKIE_PATH}`, `Max-Age=${maxAgeS}`, 'HttpOnly', `SameSite=${sameSite}`];
  if (isSecure(req, deps)) parts.push('Secure');
  res.append('Set-Cookie', parts.join('; '));
}

export const clearCookie = (req: Request, res: Response, deps: Deps, name: string) => setCookie(req, res, deps, name, '', 0, 'Lax');

/** The anonymous forms' double-submit token: the cookie's, or a new one set now. */
export function formToken(req: Request, res: Response, deps: Deps): string {
  const existing = cookie(req, FORM_COOKIE);
  if (existing) return existing;
  const token = newSecret();
  setCookie(req, res, deps, FORM_COOKIE, token, 3600, 'Strict');
  return token;
}

export function startSessionCookie(req: Request, res: Response, deps: Deps, sessionId: string): void {
  setCookie(req, res, deps, SESSION_COOKIE, sessionId, SESSION_ABSOLUTE_MS / 1000, 'Lax');
}

const dashboardCsp = (o: { frames?: true; framed?: true } = {}) =>
  [
    "default-src 'none'",
    "script-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    ...(o.frames ? ["frame-src 'self'"] : []),
    // A framed preview of the payment page has a form that must lead nowhere.
    `form-action ${o.framed ? "'none'" : "'self'"}`,
    `frame-ancestors ${o.framed ? "'self'" : "'none'"}`,
    "base-uri 'none'",
  ].join('; ');

/** The settings page: it frames the previews of the payment page, from our origin only. */
export const allowPreviewFrames = (res: Response) => void res.setHeader('Content-Security-Policy', dashboardCsp({ frames: true }));

/** A preview of the payment page: framed by the dashboard's own pages only, its form inert, never indexed. */
export function framedPreviewHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', dashboardCsp({ framed: true }));
  res.setHeader('X-Frame-Options', 'SAMEORIGIN');
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
}

/**
 * Every dashboard answer: no script may run at all (the pages have none), styles from our
 * origin only, never framed, never cached, no referrer (an invite's URL holds its token).
 */
export function applyDashboardHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', dashboardCsp());
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
}

/** The token a state-changing request presents: the `x-csrf-token` header or the `csrf` form field. */
function presentedCsrf(req: Request): string | undefined {
  const header = req.get('x-csrf-token');
  if (header) return header;
  const field = (req.body as Record<string, unknown> | undefined)?.csrf;
  return typeof field === 'string' ? field : undefined;
}

/** A post from our own pages: the browser's word on its origin, and the token matching `expected`. */
export function validPost(req: Request, deps: Deps, expected: string | undefined): boolean {
  const presented = presentedCsrf(req);
  return !!expected && !!presented && sameSecret(presented, expected) && sameOriginPost(req, new URL(baseUrlOf(req, deps)).origin);
}

export const clientIp = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';
