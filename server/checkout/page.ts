import type { DocumentAssets } from '../../widget/screen/document';
import type { Deps } from '../deps';
import type { Db } from '../store/db';
import { serverSecret } from '../store/secrets';
import type { Checkout } from '../store/transactions';
import type { HostedPage } from './hosted-page';

// What every route family of the hosted pages is built with, and the payment's page as
// they read it (the shell, hosted-page.ts, reads it; page-view.ts describes it).

export const TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

/** What every route family of the hosted pages is built with. */
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

/** A payment's page as a request reads it (hosted-page.ts): the transaction and its merchant. */
export type Page = HostedPage<Checkout>;

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
