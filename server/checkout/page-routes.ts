import type { IRouter, Request, Response } from 'express';
import { documentTemplate, type DocumentTemplate } from '../../widget/screen/document';
import { COUNTDOWN_FROM_MS } from '../../widget/screen/model-state';
import { checkoutVersion } from '../store/transactions';
import { challengeReturn } from './challenge-routes';
import { refusedEmbed } from './embed-refusal';
import { type CheckoutContext, type Page, TOKEN } from './page';
import { PageCache } from './page-cache';
import { loadPage, notFound, pageView, respond, sendUnpayable } from './page-view';
import { applyPageHeaders, newNonce, type PageSecurity, redirectOrigins } from './security';

// GET /pay/{token}/: the payment page as customers open it, rendered on the server and kept
// (page-cache.ts) while it cannot change, or shown with a one-off message when the customer
// comes back from the provider's or the challenge's page. Also the favicon every visit asks for.

/** A padlock on the accent colour, as in the page's top bar. */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/>' +
  '<path d="M11 15v-3a5 5 0 0 1 10 0v3" fill="none" stroke="#fff" stroke-width="2.5"/><rect x="8" y="15" width="16" height="11" rx="2" fill="#fff"/></svg>';

/** Rendered pages kept in memory, in bytes: 16 MiB, about 1,500 typical pages. */
const PAGE_CACHE_BYTES = 16 * 2 ** 20;

const textOrNull = (v: unknown) => (typeof v === 'string' ? v : null);

// The page as customers open it: rendered once, then only its nonce and clock change.
interface CachedPage {
  template: DocumentTemplate;
  security: Omit<PageSecurity, 'nonce'>;
}

/**
 * What selects a rendering, taken from the request alone (so a kept page is found with
 * one small query at most); null for answers that show a one-off message.
 */
function pageKey(req: Request): string | null {
  const { lang, embed, origin, declined, failed, finished, challenge } = req.query;
  if (declined !== undefined || failed !== undefined || finished !== undefined || challenge !== undefined) return null;
  return JSON.stringify([req.params.token, textOrNull(lang), req.get('accept-language') ?? null, textOrNull(embed), textOrNull(origin)]);
}

/** The page once back from the provider's or the challenge's page: what came of it, never kept. */
async function serveReturn(ctx: CheckoutContext, req: Request, res: Response, page: Page) {
  // Back from a processor's page: it declined, or its answer could not be had (nothing
  // charged; the customer may try again). See the return route (provider-routes.ts).
  const pending = page.row.status === 'N';
  const declined = req.query.declined === '1' && pending;
  const failed = req.query.failed === '1' && pending;
  // Which gateway it was, if the page offers it: its method stays chosen.
  const via = page.gateways.find(textOrNull(req.query.gateway) ?? '')?.id ?? null;
  const challenged = pending ? await challengeReturn(ctx, page, req.query) : null;
  if (challenged) return respond(ctx, res, page, challenged);
  await respond(ctx, res, page, {
    kind: 'view',
    status: 200,
    // Back from a processor's page in embed mode, paid (see the return route).
    justFinished: page.embed !== null && req.query.finished === '1',
    ...(declined ? { declined, chosenGateway: via, error: { message: 'error.declined', fields: {} } } : {}),
    ...(failed && !declined ? { chosenGateway: via, error: { message: 'error.gatewayFailed', fields: {} } } : {}),
  });
}

export function pageRoutes(router: IRouter, ctx: CheckoutContext): void {
  const { deps, db } = ctx;
  const pages = new PageCache<CachedPage>(PAGE_CACHE_BYTES);

  async function renderPage(page: Page, key: string, stamp: string | null): Promise<CachedPage> {
    const now = deps.now();
    const { row } = page;
    const rendered = {
      template: documentTemplate({ view: await pageView(ctx, page, {}, now), assets: ctx.screenAssets() }),
      security: { frameAncestors: page.frameAncestors, formTargets: redirectOrigins(row), gatewayOrigins: page.gatewayOrigins },
    };
    // Pending pages look the same until the countdown starts. A paid page shows its sale,
    // which captures and refunds change behind the transaction's back: never kept.
    const until = Date.parse(row.expired_at) - COUNTDOWN_FROM_MS;
    if (row.status === 'N' && until > now.getTime()) {
      pages.set(key, { value: rendered, version: page.version, until, stamp, size: key.length + rendered.template.length });
    }
    return rendered;
  }

  function sendPage(res: Response, { template, security }: CachedPage) {
    const nonce = newNonce();
    applyPageHeaders(res, { nonce, ...security });
    // No ETag: the page is no-store, and hashing it would cost more than filling it in.
    const body = template.fill({ nonce, serverNow: deps.now().toISOString() });
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Length', body.length);
    res.end(body);
  }

  async function servePage(req: Request<{ token: string }>, res: Response, key: string | null, stamp: string | null) {
    // A first view has nothing kept to check: the page's own read is the only one.
    if (key && pages.has(key)) {
      const version = await checkoutVersion(db, req.params.token);
      const kept = version ? pages.get(key, version, deps.now().getTime(), stamp) : undefined;
      if (kept) return sendPage(res, kept);
    }
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    // Asked to embed by an origin that may not: never the payment, only the refusal (not kept).
    if (refusedEmbed(req, res, page, ctx.screenAssets())) return;
    if (await sendUnpayable(ctx, res, page)) return;
    if (key) return sendPage(res, await renderPage(page, key, stamp));
    return serveReturn(ctx, req, res, page);
  }

  // Browsers ask every page's site for an icon; answering keeps a 404 out of each visit.
  router.get(['/favicon.svg', '/favicon.ico'], (_req, res) => {
    res.set({ 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' });
    res.type('image/svg+xml').send(FAVICON);
  });

  router.get('/pay/:token/', (req, res) => {
    const key = TOKEN.test(req.params.token!) ? pageKey(req) : null;
    // Before any read (see page-cache.ts); only pages that can be kept need it.
    const stamp = key ? deps.database.changeStamp() : null;
    // Most views: nothing was written since the kept page was checked. Answered in this
    // turn, without a promise.
    const kept = key ? pages.unchanged(key, stamp, deps.now().getTime()) : undefined;
    if (kept) return sendPage(res, kept);
    return servePage(req, res, key, stamp);
  });

  router.get('/pay/:token', (req, res) => res.redirect(308, `/pay/${encodeURIComponent(req.params.token)}/${req.url.slice(req.path.length)}`));
}
