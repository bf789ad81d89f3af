import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import type { DocumentAssets } from '../../widget/screen/document';
import { type Deps, scopedDeps } from '../deps';
import { exponentOf } from '../domain/currencies';
import { baseUrlOf } from '../http/route';
import { type Confirmation, confirmState, finishConfirmation, startConfirmation } from '../payments/confirm-payment';
import { CONFIRM_TOKEN, type ConfirmPage, findConfirm } from '../store/confirm-links';
import { type ConfirmNotice, renderConfirmPage } from './confirm-page';
import { csrfToken } from './csrf';
import { formBody } from './form-body';
import { type HostedPage, type LoadableKind, loadHosted, readHostedPost, secureHosted } from './hosted-page';
import { addressLimit } from './limits';
import { type CheckoutContext, checkoutContext } from './page';
import { notFound } from './page-view';

// /pay/confirm/{token}/: the page where a customer confirms a charge of their saved card
// that their bank declined until they authenticate (payments/confirm-payment.ts). The
// merchant got the link as the sale's `confirm_url` (in `sale.declined`). GET shows it;
// the button posts (CSRF and origin checked by the shell) and the customer goes to the
// bank's authentication; the bank sends them back to return/, where the processor is asked
// again what became of the payment. A token of another shape or unknown is the not-found
// page; a paid or expired link says so, never an error.

type Page = HostedPage<ConfirmPage>;

const confirmKind: LoadableKind<ConfirmPage> = {
  token: CONFIRM_TOKEN,
  find: ({ db }, token) => findConfirm(db, token),
  language: () => null,
  // The charge's gateway: its origins join the page's CSP (the bank's page the button leads to).
  offered: (gateways, { call }) => [gateways.find(call)].filter((g) => g !== undefined),
};

const confirmPost = z.object({ csrf: z.string().max(512) });

const NOTICE: Record<Exclude<Confirmation['kind'], 'redirect' | 'paid'>, ConfirmNotice> = { declined: 'declined', pending: 'pending', unavailable: 'unavailable' };

async function show(ctx: CheckoutContext, res: Response, page: Page, status: number, notice: ConfirmNotice | null = null): Promise<void> {
  // No script on this page: the shell's headers only (its CSP's nonce goes unused).
  secureHosted(res, page);
  const { row } = page;
  const html = renderConfirmPage(
    {
      language: page.language,
      state: confirmState(row, ctx.deps.now()),
      merchant: page.merchant.name,
      amount: row.amount,
      currency: row.currency,
      exponent: exponentOf(row.currency),
      description: row.description,
      card: { brand: row.card_brand, last4: row.card_last4 },
      csrf: csrfToken(await ctx.csrfSecret(), row.token),
      sandbox: page.merchant.sandbox,
      notice,
    },
    ctx.screenAssets(),
  );
  res.status(status).type('html').send(html);
}

/** What the customer's action came to, shown on the page (read again: a payment recorded shows as paid). */
async function shown(ctx: CheckoutContext, res: Response, page: Page, outcome: Confirmation): Promise<void> {
  if (outcome.kind === 'redirect') return void res.redirect(303, outcome.url);
  const fresh = (await findConfirm(ctx.db, page.row.token)) ?? page;
  return show(ctx, res, { ...page, row: fresh.row }, 200, outcome.kind === 'paid' ? null : NOTICE[outcome.kind]);
}

const load = (ctx: CheckoutContext, req: Request) => loadHosted(confirmKind, ctx, req);

/** Declared on the app before the payment page's routes (`/pay/confirm/…/` is no payment's token). */
export function confirmRoutes(router: IRouter, deps: Deps, screenAssets: () => DocumentAssets): void {
  const ctx = checkoutContext(deps, screenAssets);

  router.get('/pay/confirm/:token/', async (req, res) => {
    const page = await load(ctx, req);
    if (!page) return notFound(ctx, req, res);
    await show(ctx, res, page, 200);
  });

  router.post('/pay/confirm/:token/', addressLimit(deps, 'confirm', screenAssets), formBody({ json: false }), async (req, res) => {
    const page = await load(ctx, req);
    if (!page) return notFound(ctx, req, res);
    const read = await readHostedPost(ctx, req, page, confirmPost);
    if ('refused' in read) return show(ctx, res, page, read.refused.status, 'session');
    // Paid or expired: nothing to confirm, the page says where it stands.
    if (confirmState(page.row, deps.now()) !== 'open') return show(ctx, res, page, 409);
    const base = baseUrlOf(req, deps);
    const outcome = await startConfirmation(scopedDeps(deps, req), page, page.gateways.find(page.call), {
      returnUrl: `${base}/pay/confirm/${page.row.token}/return/`,
      ownOrigin: new URL(base).origin,
    });
    return shown(ctx, res, page, outcome);
  });

  // Back from the bank: whatever the query says, the processor is asked (by the payment's id).
  router.get('/pay/confirm/:token/return/', addressLimit(deps, 'confirm-return', screenAssets), async (req, res) => {
    const page = await load(ctx, req);
    if (!page) return notFound(ctx, req, res);
    // Recorded already (another return, a reload): the page shows it, nothing is asked again.
    if (confirmState(page.row, deps.now()) === 'paid') return show(ctx, res, page, 200);
    // Even past the link's expiry: a payment the bank made is recorded, never left behind.
    if (page.row.failure !== 'authentication_required') return show(ctx, res, page, 200);
    return shown(ctx, res, page, await finishConfirmation(scopedDeps(deps, req), page, page.gateways.find(page.call)));
  });
}
