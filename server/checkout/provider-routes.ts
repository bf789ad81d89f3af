import type { IRouter } from 'express';
import { scopedDeps } from '../deps';
import { payTransaction } from '../payments/pay';
import { SANDBOX_REDIRECT_ID } from '../payments/sandbox';
import { formBody, formBodyFailure } from './form-body';
import { trustedPost } from './hosted-page';
import { addressLimit } from './limits';
import { finished } from './outcome';
import type { CheckoutContext, Page } from './page';
import { loadPage, notFound, pageView, reload, respond, securePage } from './page-view';
import { renderProviderPage } from './provider-page';

// /pay/{token}/provider/: the sandbox redirect gateway's "provider", a page of its own
// where the customer approves or rejects, as on PayPal or Bizum, and the return from it
// to the checkout with the provider's answer. Only where the page offers that gateway: a
// live environment's page (or a currency it does not take) has no provider page, so no
// post to it can pay.

export function providerRoutes(router: IRouter, ctx: CheckoutContext): void {
  const { deps } = ctx;
  const redirectGateway = (page: Page) =>
    deps.gateways.forCurrency(page.row.currency, !page.merchant.sandbox).find((g) => g.id === SANDBOX_REDIRECT_ID);

  router.post('/pay/:token/provider/', addressLimit(deps, 'provider-return', ctx.screenAssets), formBody({ json: false }));

  router.get('/pay/:token/provider/', async (req, res) => {
    const page = await loadPage(ctx, req);
    const gateway = page && redirectGateway(page);
    if (!page || !gateway) return notFound(ctx, req, res);
    if (page.row.status !== 'N') return res.redirect(303, `/pay/${page.row.token}/${req.url.slice(req.path.length)}`);
    securePage(res, page);
    const v = await pageView(ctx, page);
    res.type('html').send(renderProviderPage({ view: v, gateway, styles: ctx.screenAssets().styles }));
  });

  router.post('/pay/:token/provider/', async (req, res) => {
    const page = await loadPage(ctx, req);
    const gateway = page && redirectGateway(page);
    if (!page || !gateway) return notFound(ctx, req, res);
    const unreadable = formBodyFailure(req);
    if (unreadable) return respond(ctx, res, page, { kind: 'view', status: unreadable, error: { message: 'error.generic', fields: {} } });
    const back = `/pay/${page.row.token}/${req.url.slice(req.path.length)}`;
    const decision = (req.body as Record<string, unknown> | undefined)?.decision;
    if (!(await trustedPost(ctx, req, page, (req.body as Record<string, unknown> | undefined)?.csrf as string | undefined))) return res.redirect(303, back);
    // The provider's answer comes back with the customer: settle the payment with it.
    const outcome = await payTransaction(scopedDeps(deps, req), {
      transaction: page.row,
      gateway,
      fields: { decision: decision === 'approve' ? 'approve' : 'reject' },
    });
    if (outcome.kind === 'not_claimed') return res.redirect(303, back);
    if (outcome.kind === 'paid') {
      const done = await finished(ctx, await reload(ctx, page), 'completed');
      if (done.kind === 'redirect') return res.redirect(303, done.location);
    }
    const sep = back.includes('?') ? '&' : '?';
    // In embed mode the frame reports the payment to the merchant's page once it is back.
    const approved = page.embed ? `${back}${sep}finished=1` : back;
    const answer = { paid: approved, declined: `${back}${sep}declined=1`, gateway_failed: `${back}${sep}failed=1`, checking: back, challenge: back } as const;
    res.redirect(303, answer[outcome.kind]);
  });
}
