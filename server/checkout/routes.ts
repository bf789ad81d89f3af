import express, { type IRouter, type Request, type Response } from 'express';
import { z } from 'zod';
import { validateFields } from '../../widget/fields/card';
import { documentTemplate, renderDocument, renderNotFound, type DocumentAssets, type DocumentTemplate } from '../../widget/screen/document';
import { COUNTDOWN_FROM_MS } from '../../widget/screen/model';
import type { CheckoutView, Language } from '../../widget/screen/view';
import { isLanguage, resolveLanguage } from '../../widget/i18n/language';
import type { Deps } from '../deps';
import { baseUrlOf } from '../http/route';
import type { Gateway } from '../payments/gateway';
import { payTransaction, type PaymentOutcome } from '../payments/pay';
import { SANDBOX_REDIRECT_ID } from '../payments/sandbox';
import { cancelTransaction, failedAttemptsWait, findSaleOfTransaction } from '../store/payments';
import { serverSecret } from '../store/secrets';
import { type Checkout, checkoutVersion, findCheckout, transactionLines } from '../store/transactions';
import { csrfToken, sameOriginPost, validCsrf } from './csrf';
import { PageCache } from './page-cache';
import { renderProviderPage } from './provider-page';
import { allowedFrameOrigins, applyPageHeaders, newNonce, type PageSecurity, redirectOrigins } from './security';
import { buildView, keptValues } from './view-model';

// /pay/{token}/: resolve the token, build the view, render it on the server; take the
// form (urlencoded without JavaScript, JSON from the hydrated screen) and move the money.

const TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

/** A padlock on the accent colour, as in the page's top bar. */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/>' +
  '<path d="M11 15v-3a5 5 0 0 1 10 0v3" fill="none" stroke="#fff" stroke-width="2.5"/><rect x="8" y="15" width="16" height="11" rx="2" fill="#fff"/></svg>';

/** Rendered pages kept in memory, in bytes: 16 MiB, about 1,500 typical pages. */
const PAGE_CACHE_BYTES = 16 * 2 ** 20;

export const payRequest = z.object({
  action: z.enum(['pay', 'cancel']),
  gateway: z.string().max(64).nullish(),
  fields: z.record(z.string().max(64), z.string().max(256)).default({}),
  csrf: z.string().max(128).optional(),
  /** Form posts only: the second step of cancelling (the hydrated screen asks on its own). */
  confirm: z.literal('1').optional(),
  /** Form posts only: the gateway whose fields the page showed ('' for none yet). */
  fieldsOf: z.string().max(64).optional(),
});
export type PayRequest = z.infer<typeof payRequest>;

const textOrNull = (v: unknown) => (typeof v === 'string' ? v : null);

/** The urlencoded form: the same request, with gateway fields at the top level. */
export function fromForm(body: Record<string, unknown>): unknown {
  const { action, gateway, csrf, confirm, fields_of: fieldsOf, ...fields } = body;
  return { action, gateway: gateway || null, csrf, confirm, fieldsOf, fields };
}

interface Page extends Checkout {
  language: Language;
  embed: { parentOrigin: string } | null;
  frameAncestors: string[];
  wantsJson: boolean;
}

type Outcome =
  | { kind: 'redirect'; location: string; redirectKind: 'provider' | 'completed' | 'cancelled'; status?: number }
  | {
      kind: 'view';
      status: number;
      error?: CheckoutView['error'];
      chosenGateway?: string | null;
      declined?: boolean;
      justFinished?: boolean;
      /** Seconds, sent as Retry-After (429). */
      retryAfter?: number;
      retryAt?: string;
      confirmCancel?: boolean;
      values?: Record<string, string>;
    };

/**
 * Declared on the app itself, not on a router mounted at /pay: a nested router costs the
 * page, the busiest route, a second dispatch on every view. The app needs strict routing.
 */
export function checkoutRoutes(router: IRouter, deps: Deps, screenAssets: () => DocumentAssets): void {
  const db = deps.database.db;
  let secret: Promise<string> | undefined;
  const csrfSecret = () => (secret ??= serverSecret(db, 'checkout-csrf'));

  async function loadPage(req: Request): Promise<Page | null> {
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
    return { row, merchant, version, language, embed, frameAncestors, wantsJson: req.is('application/json') === 'application/json' };
  }

  async function view(page: Page, extra: Omit<Extract<Outcome, { kind: 'view' }>, 'kind' | 'status'> = {}, now = deps.now()) {
    const { row } = page;
    const sale = row.status === 'D' ? await findSaleOfTransaction(db, row.id) : null;
    return buildView({
      tx: { row, lines: await transactionLines(db, row.id) },
      gateways: deps.gateways,
      merchantName: page.merchant.name,
      language: page.language,
      csrf: csrfToken(await csrfSecret(), row.token),
      now,
      embed: page.embed,
      sale,
      ...extra,
    });
  }

  function notFound(req: Request, res: Response) {
    const nonce = newNonce();
    applyPageHeaders(res, { nonce, frameAncestors: [], formTargets: [] });
    res.status(404).type('html').send(renderNotFound({ language: resolveLanguage(null, req.get('accept-language')), nonce, assets: screenAssets() }));
  }

  async function respond(res: Response, page: Page, outcome: Outcome) {
    const nonce = newNonce();
    applyPageHeaders(res, { nonce, frameAncestors: page.frameAncestors, formTargets: redirectOrigins(page.row) });
    if (outcome.kind === 'redirect') {
      if (page.wantsJson) return void res.json({ outcome: 'redirect', location: outcome.location, kind: outcome.redirectKind });
      return void res.redirect(outcome.status ?? 303, outcome.location);
    }
    if (outcome.retryAfter) res.setHeader('Retry-After', String(outcome.retryAfter));
    const v = await view(page, outcome);
    if (page.wantsJson) return void res.status(outcome.status).json({ outcome: 'view', view: v });
    res.status(outcome.status).type('html').send(renderDocument({ view: v, nonce, assets: screenAssets() }));
  }

  // The page as customers open it: rendered once, then only its nonce and clock change.
  interface CachedPage {
    template: DocumentTemplate;
    security: Omit<PageSecurity, 'nonce'>;
  }
  const pages = new PageCache<CachedPage>(PAGE_CACHE_BYTES);

  /**
   * What selects a rendering, taken from the request alone (so a kept page is found with
   * one small query at most); null for answers that show a one-off message.
   */
  function pageKey(req: Request): string | null {
    const { lang, embed, origin, declined, failed, finished } = req.query;
    if (declined !== undefined || failed !== undefined || finished !== undefined) return null;
    return JSON.stringify([req.params.token, textOrNull(lang), req.get('accept-language') ?? null, textOrNull(embed), textOrNull(origin)]);
  }

  async function renderPage(page: Page, key: string, stamp: string | null): Promise<CachedPage> {
    const now = deps.now();
    const { row } = page;
    const rendered = {
      template: documentTemplate({ view: await view(page, {}, now), assets: screenAssets() }),
      security: { frameAncestors: page.frameAncestors, formTargets: redirectOrigins(row) },
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

  /** Re-reads the transaction so the answer shows the state the write produced. */
  async function reload(page: Page): Promise<Page> {
    const found = await findCheckout(db, page.row.token);
    if (found) page.row = found.row;
    return page;
  }

  const finished = (page: Page, kind: 'completed' | 'cancelled'): Outcome => {
    const url = kind === 'completed' ? page.row.return_url : page.row.cancel_url;
    // In embed mode the frame shows the result and tells the merchant page, which moves the top window.
    if (url && !page.embed) return { kind: 'redirect', location: url, redirectKind: kind };
    return { kind: 'view', status: 200, justFinished: page.embed !== null };
  };

  async function pay(page: Page, input: PayRequest, gateway: Gateway): Promise<Outcome> {
    const now = deps.now();
    const row = page.row;
    if (gateway.flow === 'redirect') {
      return { kind: 'redirect', location: providerUrl(page), redirectKind: 'provider' };
    }
    const fieldErrors = validateFields(gateway.fields, input.fields, now);
    if (Object.keys(fieldErrors).length) {
      return { kind: 'view', status: 400, chosenGateway: gateway.id, error: { message: 'error.fieldsInvalid', fields: fieldErrors } };
    }
    const outcome = await payTransaction(deps, { transaction: row, gateway, fields: input.fields });
    if (outcome.kind === 'not_claimed') {
      const wait = await failedAttemptsWait(db, row.id, now);
      if (wait > 0) {
        const retryAt = new Date(now.getTime() + wait).toISOString();
        return { kind: 'view', status: 429, retryAfter: Math.ceil(wait / 1000), retryAt, chosenGateway: gateway.id, error: { message: 'error.tooManyAttempts', fields: {} } };
      }
      return stateConflict(page, gateway.id);
    }
    return settled(page, gateway, outcome);
  }

  /** What the customer sees after the gateway's answer was recorded. */
  async function settled(page: Page, gateway: Gateway, outcome: Exclude<PaymentOutcome, { kind: 'not_claimed' }>): Promise<Outcome> {
    switch (outcome.kind) {
      case 'paid':
        return finished(await reload(page), 'completed');
      case 'declined': {
        const message = outcome.reason === 'insufficient_funds' ? 'error.insufficientFunds' : 'error.declined';
        return { kind: 'view', status: 200, chosenGateway: gateway.id, declined: true, error: { message, fields: {} } };
      }
      case 'gateway_failed':
        // Nothing was charged, or reconciliation reverses it: the customer may simply try again.
        return {
          kind: 'view',
          status: 200,
          chosenGateway: gateway.id,
          error: { message: outcome.timedOut ? 'error.gatewayTimeout' : 'error.gatewayFailed', fields: {} },
        };
    }
  }

  /** The transaction moved on (paid, cancelled, expired) or another attempt is running. */
  async function stateConflict(page: Page, chosenGateway: string | null): Promise<Outcome> {
    const { row } = await reload(page);
    const pending = row.status === 'N' && Date.parse(row.expired_at) > deps.now().getTime();
    if (pending) return { kind: 'view', status: 409, chosenGateway, error: { message: 'error.inProgress', fields: {} } };
    return { kind: 'view', status: 409 };
  }

  function providerUrl(page: Page): string {
    const q = new URLSearchParams();
    if (page.embed) {
      q.set('embed', '1');
      q.set('origin', page.embed.parentOrigin);
    }
    const qs = q.toString();
    return `/pay/${page.row.token}/provider/${qs ? `?${qs}` : ''}`;
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

  async function servePage(req: Request<{ token: string }>, res: Response, key: string | null, stamp: string | null) {
    if (key) {
      const version = await checkoutVersion(db, req.params.token);
      const kept = version ? pages.get(key, version, deps.now().getTime(), stamp) : undefined;
      if (kept) return sendPage(res, kept);
    }
    const page = await loadPage(req);
    if (!page) return notFound(req, res);
    if (key) return sendPage(res, await renderPage(page, key, stamp));
    // Back from the redirect gateway's page: the provider declined, or its answer could not
    // be had (nothing charged; the customer may try again). See the provider POST.
    const pending = page.row.status === 'N';
    const declined = req.query.declined === '1' && pending;
    const failed = req.query.failed === '1' && pending;
    await respond(res, page, {
      kind: 'view',
      status: 200,
      // Back from the redirect gateway's approval page in embed mode (see the provider POST).
      justFinished: page.embed !== null && req.query.finished === '1',
      ...(declined ? { declined, chosenGateway: SANDBOX_REDIRECT_ID, error: { message: 'error.declined', fields: {} } } : {}),
      ...(failed && !declined ? { chosenGateway: SANDBOX_REDIRECT_ID, error: { message: 'error.gatewayFailed', fields: {} } } : {}),
    });
  }

  const redirectGateway = () => deps.gateways.find(SANDBOX_REDIRECT_ID)!;

  const small = { limit: '16kb' };
  router.post('/pay/:token/', express.urlencoded({ ...small, extended: false }), express.json(small));
  router.post('/pay/:token/provider/', express.urlencoded({ ...small, extended: false }));

  router.get('/pay/:token', (req, res) => res.redirect(308, `/pay/${encodeURIComponent(req.params.token)}/${req.url.slice(req.path.length)}`));

  router.post('/pay/:token/', async (req, res) => {
    const page = await loadPage(req);
    if (!page) return notFound(req, res);
    const raw = page.wantsJson ? { ...req.body, csrf: req.get('x-csrf-token') } : fromForm(req.body ?? {});
    const parsed = payRequest.safeParse(raw);
    const secretKey = await csrfSecret();
    if (!parsed.success) {
      return respond(res, page, { kind: 'view', status: 400, error: { message: 'error.generic', fields: {} } });
    }
    const input = parsed.data;
    if (!sameOriginPost(req, baseUrlOf(req, deps)) || !validCsrf(secretKey, page.row.token, input.csrf)) {
      return respond(res, page, { kind: 'view', status: 403, error: { message: 'error.session', fields: {} } });
    }
    if (page.row.status !== 'N' || Date.parse(page.row.expired_at) <= deps.now().getTime()) {
      return respond(res, page, await stateConflict(page, null));
    }
    if (input.action === 'cancel') {
      // One click must not end the payment: without JavaScript the page asks first.
      if (!page.wantsJson && input.confirm !== '1') return respond(res, page, { kind: 'view', status: 200, confirmCancel: true });
      if (!(await cancelTransaction(db, page.row.id, deps.now(), deps.outbox))) return respond(res, page, await stateConflict(page, null));
      return respond(res, page, finished(await reload(page), 'cancelled'));
    }
    const gateway = input.gateway ? deps.gateways.forCurrency(page.row.currency).find((g) => g.id === input.gateway) : undefined;
    if (!gateway) {
      return respond(res, page, { kind: 'view', status: 400, error: { message: 'error.gatewayRequired', fields: { gateway: 'error.gatewayRequired' } } });
    }
    // Without JavaScript the card fields appear once their gateway is chosen: ask for them
    // before judging them.
    if (gateway.flow === 'form' && input.fieldsOf !== undefined && input.fieldsOf !== gateway.id) {
      return respond(res, page, { kind: 'view', status: 200, chosenGateway: gateway.id });
    }
    const outcome = await pay(page, input, gateway);
    return respond(res, page, outcome.kind === 'view' ? { ...outcome, values: keptValues(gateway.fields, input.fields) } : outcome);
  });

  // The sandbox redirect gateway's "provider": a page of its own where the customer
  // approves or rejects, as on PayPal or Bizum, then comes back to the checkout.
  router.get('/pay/:token/provider/', async (req, res) => {
    const page = await loadPage(req);
    if (!page) return notFound(req, res);
    if (page.row.status !== 'N') return res.redirect(303, `/pay/${page.row.token}/${req.url.slice(req.path.length)}`);
    const nonce = newNonce();
    applyPageHeaders(res, { nonce, frameAncestors: page.frameAncestors, formTargets: redirectOrigins(page.row) });
    const v = await view(page);
    res.type('html').send(renderProviderPage({ view: v, gateway: redirectGateway(), styles: screenAssets().styles }));
  });

  router.post('/pay/:token/provider/', async (req, res) => {
    const page = await loadPage(req);
    if (!page) return notFound(req, res);
    const back = `/pay/${page.row.token}/${req.url.slice(req.path.length)}`;
    const decision = (req.body as Record<string, unknown> | undefined)?.decision;
    if (!sameOriginPost(req, baseUrlOf(req, deps)) || !validCsrf(await csrfSecret(), page.row.token, req.body?.csrf)) {
      return res.redirect(303, back);
    }
    // The provider's answer comes back with the customer: settle the payment with it.
    const outcome = await payTransaction(deps, {
      transaction: page.row,
      gateway: redirectGateway(),
      fields: { decision: decision === 'approve' ? 'approve' : 'reject' },
    });
    if (outcome.kind === 'not_claimed') return res.redirect(303, back);
    if (outcome.kind === 'paid') {
      const done = finished(await reload(page), 'completed');
      if (done.kind === 'redirect') return res.redirect(303, done.location);
    }
    const sep = back.includes('?') ? '&' : '?';
    // In embed mode the frame reports the payment to the merchant's page once it is back.
    const approved = page.embed ? `${back}${sep}finished=1` : back;
    const answer = { paid: approved, declined: `${back}${sep}declined=1`, gateway_failed: `${back}${sep}failed=1` } as const;
    res.redirect(303, answer[outcome.kind]);
  });
}
