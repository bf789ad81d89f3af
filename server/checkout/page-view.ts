import type { Request, Response } from 'express';
import { renderDocument, renderMessage, renderNotFound } from '../../widget/screen/document';
import { effectiveStatus } from '../domain/transaction-status';
import { resolveLanguage } from '../../widget/i18n/language';
import { findSaleOfTransaction, paymentInDoubt } from '../store/payments';
import { transactionLines } from '../store/transactions';
import { brandView } from './brand';
import { csrfToken } from './csrf';
import { embedOrigin, sendEmbedRefusal } from './embed-refusal';
import type { Outcome, ViewExtra } from './outcome';
import type { CheckoutContext, Page } from './page';
import { returnUrls } from './returns';
import { applyPageHeaders, newNonce, redirectOrigins } from './security';
import { backUrlOf, buildView } from './view-model';
import { outcomeStrings } from '../../widget/screen/client-strings';

// The view builders every route family of the payment page answers with: the page's view
// from the database, its security headers, and an outcome rendered as HTML or JSON.

export async function pageView(ctx: CheckoutContext, page: Page, extra: ViewExtra = {}, now = ctx.deps.now()) {
  const { db, deps } = ctx;
  const { row } = page;
  const sale = row.status === 'D' ? await findSaleOfTransaction(db, row.id) : null;
  const checking = row.status === 'N' && (await paymentInDoubt(db, row.id));
  const built = buildView({
    tx: { row, lines: await transactionLines(db, row.id) },
    gateways: deps.gateways,
    live: !page.merchant.sandbox,
    merchantName: page.merchant.name,
    language: page.language,
    csrf: csrfToken(await ctx.csrfSecret(), row.token),
    now,
    embed: page.embed,
    sale,
    checking,
    urls: await returnUrls(db, row, now),
    ...extra,
  });
  return { ...built, brand: brandView(row.environment_id, page.merchant.brand), sandbox: page.merchant.sandbox };
}

/** The page's security headers (its frame ancestors, its forms' targets); returns the nonce they allow. */
export function securePage(res: Response, page: Page): string {
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: page.frameAncestors, formTargets: redirectOrigins(page.row) });
  return nonce;
}

export function notFound(ctx: CheckoutContext, req: Request, res: Response) {
  const language = resolveLanguage(null, req.get('accept-language'));
  const origin = embedOrigin(req);
  if (origin) return sendEmbedRefusal(res, { origin, code: 'token_unknown', language, assets: ctx.screenAssets(), status: 404 });
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: [], formTargets: [] });
  res.status(404).type('html').send(renderNotFound({ language, nonce, assets: ctx.screenAssets() }));
}

/**
 * An open payment that no gateway of the environment's mode accepts (a live environment
 * with none for its currency; its link made before that): "This shop cannot take payments
 * right now" and the way back, instead of a form that could pay nothing. Not while a
 * payment is being checked, which shows as such. True when it was sent; never kept.
 */
export async function sendUnpayable(ctx: CheckoutContext, res: Response, page: Page): Promise<boolean> {
  const { row } = page;
  if (effectiveStatus(row.status, row.expired_at, ctx.deps.now()) !== 'N') return false;
  if (ctx.deps.gateways.forCurrency(row.currency, !page.merchant.sandbox).length > 0 || (await paymentInDoubt(ctx.db, row.id))) return false;
  const { language } = page;
  if (page.embed) {
    sendEmbedRefusal(res, { origin: page.embed.parentOrigin, code: 'no_payment_method', language, assets: ctx.screenAssets(), status: 200 });
    return true;
  }
  const nonce = securePage(res, page);
  const href = backUrlOf(row);
  const back = href ? { href, merchant: page.merchant.name } : undefined;
  res.status(200).type('html').send(renderMessage({ language, nonce, assets: ctx.screenAssets(), back }, 'unpayable'));
  return true;
}

export async function respond(ctx: CheckoutContext, res: Response, page: Page, outcome: Outcome) {
  const nonce = securePage(res, page);
  if (outcome.kind === 'redirect') {
    if (page.wantsJson) {
      // A payment that sends the customer back to the shop carries its paid view, so the
      // screen shows the confirmation before it leaves.
      const shown = outcome.redirectKind === 'completed' ? { view: await pageView(ctx, page) } : {};
      return void res.json({ outcome: 'redirect', location: outcome.location, kind: outcome.redirectKind, ...shown, strings: outcomeStrings(page.language, 'pay') });
    }
    return void res.redirect(outcome.status ?? 303, outcome.location);
  }
  if (outcome.retryAfter) res.setHeader('Retry-After', String(outcome.retryAfter));
  const v = await pageView(ctx, page, outcome);
  if (page.wantsJson) return void res.status(outcome.status).json({ outcome: 'view', view: v, strings: outcomeStrings(page.language, 'pay') });
  res.status(outcome.status).type('html').send(renderDocument({ view: v, nonce, assets: ctx.screenAssets() }));
}
