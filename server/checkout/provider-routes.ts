import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { scopedDeps } from '../deps';
import type { Gateway } from '../payments/gateway';
import { type ReturnOutcome, settleReturn, storedRedirect } from '../payments/redirect';
import { challengeReturn } from '../payments/redirect-challenge';
import { challengeOfCall } from '../store/challenges';
import type { GatewayCall } from '../store/gateway-calls';
import { findCallByReference } from '../store/unknown-outcomes';
import { formBody, formBodyFailure } from './form-body';
import { addressLimit } from './limits';
import { finished } from './outcome';
import { type CheckoutContext, type Page, stepUrl } from './page';
import { loadPage, notFound, pageView, reload, respond, securePage } from './page-view';
import { renderProviderPage, renderRedirectForm } from './provider-page';
import { applyPageHeaders, newNonce } from './security';

// The customer's way to a processor's page and back, for one pay call at a time (its
// reference, which the page's own open call must have: docs/payments.md "The gateway
// interface"):
// - GET /pay/{token}/go/{reference}/: a POST redirect's form, which submits itself
//   (a button without JavaScript);
// - GET|POST /pay/{token}/return/{reference}/: the return, handed to the gateway to verify
//   and read (payments/redirect.ts), then back to the payment page, which shows the result;
// - GET /pay/{token}/provider/{reference}/: a sandbox gateway's simulated processor page,
//   on our own origin; its buttons post signed results to the return route.

/** Our references: `gc_<uuid>` (a key's `gk_…` never comes from the page). */
export const REFERENCE = /^gc_[0-9a-f-]{36}$/;

/** What came back, as the gateway reads it: text values only (a repeated name keeps its first). */
const returned = z
  .record(z.string(), z.unknown())
  .catch({})
  .transform((raw) => {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(raw)) {
      const text = Array.isArray(value) ? value[0] : value;
      if (typeof text === 'string') out[name] = text;
    }
    return out;
  });

/** The page's pay call of that reference, with its gateway; null when the page has none such. */
async function callOf(ctx: CheckoutContext, page: Page, reference: string): Promise<{ call: GatewayCall; gateway: Gateway } | null> {
  if (!REFERENCE.test(reference)) return null;
  const call = await findCallByReference(ctx.db, reference);
  if (!call || call.kind !== 'pay' || call.subject_id !== page.row.id) return null;
  const gateway = page.gateways.find(call);
  return gateway ? { call, gateway } : null;
}

/** The call still waits for the customer's return: pending, or with the challenge it opened still open. */
async function stillOpen(ctx: CheckoutContext, call: GatewayCall): Promise<boolean> {
  if (call.state === 'pending') return true;
  return call.request.redirect !== undefined && (await challengeOfCall(ctx.db, call))?.state === 'open';
}

/** Where the payment page shows what a return came to (post, redirect, get). */
async function afterReturn(ctx: CheckoutContext, page: Page, { call, gateway }: { call: GatewayCall; gateway: Gateway }, outcome: ReturnOutcome): Promise<string> {
  const current = await reload(ctx, page);
  if (current.row.status === 'D') {
    const done = await finished(ctx, current, 'completed');
    if (done.kind === 'redirect') return done.location;
    // In embed mode the frame reports the payment to the merchant's page once it is back.
    return stepUrl(page, '', page.embed ? { finished: '1' } : {});
  }
  // A decline the processor's notification recorded before the customer came back (Redsys's comes first) is told the same way.
  if (outcome.kind === 'declined' || (outcome.kind === 'settled_before' && call.state === 'failed')) return stepUrl(page, '', { declined: '1', gateway: gateway.id });
  if (outcome.kind === 'gateway_failed') return stepUrl(page, '', { failed: '1', gateway: gateway.id });
  return stepUrl(page, '');
}

export function providerRoutes(router: IRouter, ctx: CheckoutContext): void {
  const { deps } = ctx;
  const limit = addressLimit(deps, 'provider-return', ctx.screenAssets);

  async function back(req: Request, res: Response) {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    const unreadable = formBodyFailure(req);
    if (unreadable) return respond(ctx, res, page, { kind: 'view', status: unreadable, error: { message: 'error.generic', fields: {} } });
    const found = await callOf(ctx, page, String(req.params.reference));
    if (!found?.gateway.return) return notFound(ctx, req, res);
    const input = { ...found, transaction: page.row, query: returned.parse(req.query), body: req.method === 'POST' ? returned.parse(req.body) : {} };
    // An open call's return; else that of a challenge the call opened at the issuer's page.
    const outcome = await (found.call.state === 'pending' ? settleReturn : challengeReturn)(scopedDeps(deps, req), input);
    res.redirect(303, await afterReturn(ctx, page, found, outcome));
  }

  router.get('/pay/:token/return/:reference/', limit, back);
  router.post('/pay/:token/return/:reference/', limit, formBody({ json: false }), back);

  router.get('/pay/:token/go/:reference/', async (req, res) => {
    const page = await loadPage(ctx, req);
    const found = page && (await callOf(ctx, page, String(req.params.reference)));
    const to = found && (await stillOpen(ctx, found.call)) ? storedRedirect(found.call) : null;
    if (!page || !found) return notFound(ctx, req, res);
    // Settled meanwhile, or a GET (followed at once): the payment page shows where it stands.
    if (!to || to.method !== 'POST') return res.redirect(303, stepUrl(page, ''));
    const nonce = newNonce();
    // Checked when the gateway answered (payments/redirect.ts): its form may post there.
    applyPageHeaders(res, { nonce, frameAncestors: page.frameAncestors, formTargets: [new URL(to.url).origin] });
    res.type('html').send(renderRedirectForm({ language: page.language, gateway: found.gateway, to, nonce, styles: ctx.screenAssets().styles }));
  });

  router.get('/pay/:token/provider/:reference/', async (req, res) => {
    const page = await loadPage(ctx, req);
    const found = page && (await callOf(ctx, page, String(req.params.reference)));
    const choices = found?.gateway.sandbox && found.call.state === 'pending' ? await found.gateway.sandboxPage?.({ reference: found.call.reference }) : null;
    if (!page || !found?.gateway.sandboxPage) return notFound(ctx, req, res);
    if (!choices) return res.redirect(303, stepUrl(page, ''));
    securePage(res, page);
    const v = await pageView(ctx, page);
    res.type('html').send(renderProviderPage({ view: v, gateway: found.gateway, choices, styles: ctx.screenAssets().styles }));
  });
}
