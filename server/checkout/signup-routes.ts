import type { IRouter, NextFunction, Request, Response } from 'express';
import { validateFields } from '../../widget/fields/card';
import { type DocumentAssets, renderDocument, renderNotFound } from '../../widget/screen/document';
import { isLanguage, resolveLanguage } from '../../widget/i18n/language';
import type { CheckoutView } from '../../widget/screen/view';
import { signupOpen } from '../present/subscription';
import type { Deps } from '../deps';
import { baseUrlOf } from '../http/route';
import { testCardErrors } from '../payments/live';
import { canStore } from '../payments/gateway';
import { storeCard } from '../payments/store-card';
import { attachPaymentMethod, findSignup, type SignupPage } from '../store/subscriptions';
import { brandView } from './brand';
import { csrfToken, sameOriginPost, validCsrf } from './csrf';
import { formBody, formBodyFailure } from './form-body';
import { addressLimit } from './limits';
import { type CheckoutContext, checkoutContext } from './page';
import { fromForm, payRequest, type PayRequest } from './pay-request';
import { allowedFrameOrigins, applyPageHeaders, newNonce, redirectOrigins } from './security';
import { buildSignupView, SIGNUP_EMAIL_FIELD, signupGateways, type SignupViewInput } from './signup-view';

// A subscription's hosted sign-up at /pay/sub_…/: the payment screen at the URL the widget
// already frames, so a subscription's payment_url embeds unchanged. It takes the card
// through the gateway's `store`, saves it as an authorization and starts the subscription
// (or, past due, makes it the card the owed period is charged to). Same protocol as the
// checkout's own routes: HTML without JavaScript, JSON for the hydrated screen.

const SIGNUP_TOKEN = /^sub_[A-Za-z0-9_-]{32}$/;

interface Page extends SignupPage {
  language: SignupViewInput['language'];
  embed: { parentOrigin: string } | null;
  frameAncestors: string[];
  wantsJson: boolean;
}

type Extra = Omit<SignupViewInput, 'row' | 'merchantName' | 'language' | 'csrf' | 'now' | 'embed' | 'gateways'>;

/** The sign-up a request names, as checkout/page.ts reads a payment. */
async function loadPage({ db }: CheckoutContext, req: Request): Promise<Page | null> {
  const token = String(req.params.token);
  const found = SIGNUP_TOKEN.test(token) ? await findSignup(db, token) : undefined;
  if (!found) return null;
  const requested = typeof req.query.lang === 'string' && isLanguage(req.query.lang) ? req.query.lang : null;
  const language = requested ?? resolveLanguage(found.row.language, req.get('accept-language'));
  const allowed = allowedFrameOrigins(found.merchant.allowedOrigins, found.row);
  const origin = req.query.embed === '1' && typeof req.query.origin === 'string' ? req.query.origin : null;
  // Unknown origins get no embed mode and frame-ancestors 'none': the browser refuses to show it.
  const embed = origin !== null && allowed.includes(origin) ? { parentOrigin: origin } : null;
  return { ...found, language, embed, frameAncestors: embed ? allowed : [], wantsJson: req.is('application/json') === 'application/json' };
}

async function view(ctx: CheckoutContext, page: Page, extra: Extra = {}): Promise<CheckoutView> {
  const built = buildSignupView({
    row: page.row,
    merchantName: page.merchant.name,
    language: page.language,
    csrf: csrfToken(await ctx.csrfSecret(), page.row.token),
    now: ctx.deps.now(),
    embed: page.embed,
    gateways: signupGateways(ctx.deps.gateways, page.row.currency, !page.merchant.sandbox),
    ...extra,
  });
  return { ...built, brand: brandView(page.row.environment_id, page.merchant.brand), sandbox: page.merchant.sandbox };
}

function notFound(ctx: CheckoutContext, req: Request, res: Response) {
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: [], formTargets: [] });
  res.status(404).type('html').send(renderNotFound({ language: resolveLanguage(null, req.get('accept-language')), nonce, assets: ctx.screenAssets() }));
}

async function show(ctx: CheckoutContext, res: Response, page: Page, status: number, extra: Extra = {}) {
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: page.frameAncestors, formTargets: redirectOrigins(page.row) });
  const v = await view(ctx, page, extra);
  if (page.wantsJson) return void res.status(status).json({ outcome: 'view', view: v });
  res.status(status).type('html').send(renderDocument({ view: v, nonce, assets: ctx.screenAssets() }));
}

/** Redirects as for transactions: to return_url / cancel_url, except in the widget's frame. */
async function finish(ctx: CheckoutContext, res: Response, page: Page, kind: 'completed' | 'cancelled') {
  const url = kind === 'completed' ? page.row.return_url : page.row.cancel_url;
  if (url && !page.embed) {
    applyPageHeaders(res, { nonce: newNonce(), frameAncestors: page.frameAncestors, formTargets: redirectOrigins(page.row) });
    if (page.wantsJson) return void res.json({ outcome: 'redirect', location: url, kind });
    return void res.redirect(303, url);
  }
  return show(ctx, res, page, 200, { justFinished: page.embed !== null, cancelled: kind === 'cancelled' });
}

/** Stores the card through the gateway and starts the subscription with it; answers what came of it. */
async function signUp(ctx: CheckoutContext, res: Response, page: Page, input: PayRequest) {
  const { deps, db } = ctx;
  const gateway = deps.gateways.forCurrency(page.row.currency, !page.merchant.sandbox).find((g) => g.id === input.gateway);
  if (!gateway || !canStore(gateway)) {
    return show(ctx, res, page, 400, { error: { message: 'error.gatewayRequired', fields: { gateway: 'error.gatewayRequired' } } });
  }
  const { [SIGNUP_EMAIL_FIELD.name]: email, ...cardFields } = input.fields;
  const fieldErrors = {
    ...validateFields([SIGNUP_EMAIL_FIELD, ...gateway.fields], input.fields, deps.now()),
    ...testCardErrors(!page.merchant.sandbox, input.fields),
  };
  if (Object.keys(fieldErrors).length) {
    return show(ctx, res, page, 400, { chosenGateway: gateway.id, error: { message: 'error.fieldsInvalid', fields: fieldErrors } });
  }
  const stored = await storeCard(deps, { environmentId: page.row.environment_id, gateway, fields: cardFields, notifyUrl: null });
  if (stored.kind !== 'stored' && stored.kind !== 'declined') {
    // Storing a card charges nothing: even of unknown outcome (a pending authorization the merchant sees settled), the customer may try again.
    return show(ctx, res, page, 200, { chosenGateway: gateway.id, error: { message: 'error.gatewayFailed', fields: {} } });
  }
  if (stored.kind === 'declined') {
    const message = stored.reason === 'insufficient_funds' ? 'error.insufficientFunds' : 'error.declined';
    return show(ctx, res, page, 200, { chosenGateway: gateway.id, declined: true, error: { message, fields: {} } });
  }
  // A second sign-up racing this one finds the subscription started: its card stays
  // stored (an authorization the merchant sees and can remove) and it is told so.
  const result = await attachPaymentMethod(db, {
    subscription: page.row,
    authorizationId: stored.authorization.id,
    customerEmail: email?.trim() || null,
    now: deps.now(),
    outbox: deps.outbox,
  });
  if (result.kind !== 'done') return show(ctx, res, { ...page, row: (await findSignup(db, page.row.token))!.row }, 409);
  deps.log.info({ subscription: page.row.id, gateway: gateway.code, brand: stored.authorization.card_brand }, 'subscription signed up');
  return finish(ctx, res, { ...page, row: result.subscription.row }, 'completed');
}

/** Declared on the app before the checkout's routes; any other token goes on to them. */
export function signupRoutes(router: IRouter, deps: Deps, screenAssets: () => DocumentAssets): void {
  const ctx = checkoutContext(deps, screenAssets);
  // Transaction tokens never start with `sub_` (they are 32 base64url characters): one
  // string test, and the payment page's own routes take everything else.
  const signupOnly = (req: Request, _res: Response, next: NextFunction) => next(String(req.params.token).startsWith('sub_') ? undefined : 'route');

  router.get('/pay/:token/', signupOnly, async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    await show(ctx, res, page, 200);
  });

  router.post('/pay/:token/', signupOnly, addressLimit(deps, 'signup', screenAssets), formBody({ json: true }), async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    const unreadable = formBodyFailure(req);
    if (unreadable) return show(ctx, res, page, unreadable, { error: { message: 'error.generic', fields: {} } });
    const raw = page.wantsJson ? { ...req.body, csrf: req.get('x-csrf-token') } : fromForm(req.body ?? {});
    const parsed = payRequest.safeParse(raw);
    if (!parsed.success) return show(ctx, res, page, 400, { error: { message: 'error.generic', fields: {} } });
    const input = parsed.data;
    if (!sameOriginPost(req, baseUrlOf(req, deps)) || !validCsrf(await ctx.csrfSecret(), page.row.token, input.csrf)) {
      return show(ctx, res, page, 403, { error: { message: 'error.session', fields: {} } });
    }
    if (!signupOpen(page.row)) return show(ctx, res, page, 409);
    if (input.action === 'cancel') return finish(ctx, res, page, 'cancelled');
    return signUp(ctx, res, page, input);
  });
}
