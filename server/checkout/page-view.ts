import type { Request, Response } from 'express';
import { renderNotFound } from '../../widget/screen/document';
import { effectiveStatus } from '../domain/transaction-status';
import { resolveLanguage } from '../../widget/i18n/language';
import { findSaleOfTransaction } from '../store/payments';
import { type Checkout, findCheckout } from '../store/transactions';
import { brandView } from './brand';
import { csrfToken } from './csrf';
import { embedOrigin, sendEmbedRefusal } from './embed-refusal';
import { type HostedExtra, type HostedKind, type HostedOutcome, loadHosted, reloadHosted, requestedLanguage, respondHosted, respondUnpayable, secureHosted } from './hosted-page';
import type { PaidRecord } from '../payments/complete-payment';
import { type CheckoutContext, type Page, TOKEN } from './page';
import { returnUrls } from './returns';
import { applyPageHeaders, newNonce } from './security';
import { buildView, paymentGateways } from './view-model';

// The payment's page as a kind of hosted page (hosted-page.ts): its view from the
// database, and the responders every route family of /pay/{token}/ answers with.

/**
 * The row's return and cancel URLs, signed once per row read: an answer that redirects and
 * shows the finished screen needs them twice (a reload reads a new row, so signs again).
 */
const signedFor = new WeakMap<Checkout['row'], ReturnType<typeof returnUrls>>();
function urlsOf(db: CheckoutContext['db'], row: Checkout['row'], now: Date) {
  let urls = signedFor.get(row);
  if (!urls) signedFor.set(row, (urls = returnUrls(db, row, now)));
  return urls;
}

/** A row this request paid, with its sale as written (paidPage). */
const paidWith = new WeakMap<Checkout['row'], PaidRecord['sale']>();

/** The page once this request's payment is recorded: its row, sale and lines as written, none read back. */
export function paidPage(page: Page, paid: PaidRecord): Page {
  paidWith.set(paid.transaction, paid.sale);
  page.row = paid.transaction;
  page.lines = paid.lines;
  return page;
}

/** The payment's view: the transaction, its lines, its sale once paid, and whatever the answer adds. */
export async function pageView(ctx: CheckoutContext, page: Page, extra: HostedExtra = {}, now = ctx.deps.now()) {
  const { db } = ctx;
  const { row } = page;
  const sale = row.status === 'D' ? (paidWith.get(row) ?? (await findSaleOfTransaction(db, row.id))) : null;
  const checking = row.status === 'N' && page.inDoubt;
  // A cancelled payment says so by its own state.
  const { cancelled: _ended, ...shown } = extra;
  const built = buildView({
    tx: { row, lines: page.lines },
    gateways: page.gateways,
    live: !page.merchant.sandbox,
    merchantName: page.merchant.name,
    language: page.language,
    csrf: csrfToken(await ctx.csrfSecret(), row.token),
    now,
    embed: page.embed,
    sale,
    checking,
    urls: await urlsOf(db, row, now),
    ...shown,
  });
  return { ...built, brand: brandView(row.environment_id, page.merchant.brand), sandbox: page.merchant.sandbox };
}

export const paymentPage: HostedKind<Checkout> = {
  flavour: 'pay',
  token: TOKEN,
  find: ({ db }, token) => findCheckout(db, token),
  language: (row) => row.language,
  offered: (gateways, { row }, live) => paymentGateways(gateways, row, live),
  view: (ctx, page, extra) => pageView(ctx, page, extra),
  // Signed once the payment is paid or cancelled (returns.ts).
  returnTo: async ({ db, deps }, { row }, how) => (await urlsOf(db, row, deps.now()))[how === 'completed' ? 'return_url' : 'cancel_url'],
};

export const loadPage = (ctx: CheckoutContext, req: Request) => loadHosted(paymentPage, ctx, req);
export const reload = (ctx: CheckoutContext, page: Page) => reloadHosted(paymentPage, ctx, page);
export const respond = (ctx: CheckoutContext, res: Response, page: Page, outcome: HostedOutcome) => respondHosted(ctx, paymentPage, res, page, outcome);
export const securePage = secureHosted;

export function notFound(ctx: CheckoutContext, req: Request, res: Response) {
  const language = requestedLanguage(req) ?? resolveLanguage(null, req.get('accept-language'));
  const origin = embedOrigin(req);
  if (origin) return sendEmbedRefusal(res, { origin, code: 'token_unknown', language, assets: ctx.screenAssets(), status: 404 });
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: [], formTargets: [] });
  res.status(404).type('html').send(renderNotFound({ language, nonce, assets: ctx.screenAssets() }));
}

/**
 * An open payment that no gateway of the environment's mode accepts (a live environment
 * with none for its currency; its link made before that): "This shop cannot take payments
 * right now" and the way back (hosted-page.ts). Not while a payment is being checked,
 * which shows as such. True when it was sent; never kept.
 */
export async function sendUnpayable(ctx: CheckoutContext, res: Response, page: Page): Promise<boolean> {
  const { row } = page;
  if (effectiveStatus(row.status, row.expired_at, ctx.deps.now()) !== 'N') return false;
  if (paymentGateways(page.gateways, row, !page.merchant.sandbox).length > 0 || page.inDoubt) return false;
  respondUnpayable(ctx, res, page);
  return true;
}
