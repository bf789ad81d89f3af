import type { Request } from 'express';
import type { Logger } from 'pino';
import type { DocumentAssets } from '../../widget/screen/document';
import type { Language } from '../../widget/screen/view';
import { isLanguage, resolveLanguage } from '../../widget/i18n/language';
import type { Deps } from '../deps';
import type { Db } from '../store/db';
import { serverSecret } from '../store/secrets';
import { type Checkout, findCheckout } from '../store/transactions';
import { allowedFrameOrigins } from './security';

// The payment a request names, as every route family of /pay/{token}/ reads it: the
// transaction, its language, whether it is framed by an allowed origin, and how to answer.

export const TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

/** What every route family of the payment page is built with. */
export interface CheckoutContext {
  deps: Deps;
  db: Db;
  /** The key of the pages' CSRF tokens, read once. */
  csrfSecret: () => Promise<string>;
  screenAssets: () => DocumentAssets;
}

export function checkoutContext(deps: Deps, screenAssets: () => DocumentAssets): CheckoutContext {
  const db = deps.database.db;
  let secret: Promise<string> | undefined;
  return { deps, db, csrfSecret: () => (secret ??= serverSecret(db, 'checkout-csrf')), screenAssets };
}

export interface Page extends Checkout {
  language: Language;
  embed: { parentOrigin: string } | null;
  frameAncestors: string[];
  wantsJson: boolean;
  /** The request's logger (http/logging.ts), for the use cases the answer calls (scopedDeps). */
  readonly log: Logger;
}

export async function loadPage({ db }: CheckoutContext, req: Request): Promise<Page | null> {
  const token = String(req.params.token);
  if (!TOKEN.test(token)) return null;
  const found = await findCheckout(db, token);
  if (!found) return null;
  const { row, merchant, version } = found;
  const requested = typeof req.query.lang === 'string' && isLanguage(req.query.lang) ? req.query.lang : null;
  const language = requested ?? resolveLanguage(row.language, req.get('accept-language'));
  let embed: Page['embed'] = null;
  let frameAncestors: string[] = [];
  if (req.query.embed === '1' && typeof req.query.origin === 'string') {
    const allowed = allowedFrameOrigins(merchant.allowedOrigins, row);
    // Unknown origins get no embed mode and frame-ancestors 'none': the browser refuses to show it.
    if (allowed.includes(req.query.origin)) {
      embed = { parentOrigin: req.query.origin };
      frameAncestors = allowed;
    }
  }
  const wantsJson = req.is('application/json') === 'application/json';
  return { row, merchant, version, language, embed, frameAncestors, wantsJson, get log() { return req.log; } };
}

/** Re-reads the transaction so the answer shows the state the write produced. */
export async function reload({ db }: CheckoutContext, page: Page): Promise<Page> {
  const found = await findCheckout(db, page.row.token);
  if (found) page.row = found.row;
  return page;
}

/** A page's embed mode and token: a payment's, a sign-up's or a save page's. */
export interface Stepped {
  embed: Page['embed'];
  row: { token?: string | null };
}

/** A step of the page under its own path (the provider's page, a challenge), in the same embed mode. */
export function stepUrl(page: Stepped, step: string, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  if (page.embed) {
    q.set('embed', '1');
    q.set('origin', page.embed.parentOrigin);
  }
  for (const [name, value] of Object.entries(extra)) q.set(name, value);
  const qs = q.toString();
  return `/pay/${page.row.token ?? ''}/${step}${qs ? `?${qs}` : ''}`;
}
