import type { IRouter, NextFunction, Request, Response } from 'express';
import { validateFields } from '../../widget/fields/card';
import { type DocumentAssets, renderDocument } from '../../widget/screen/document';
import { isLanguage, resolveLanguage } from '../../widget/i18n/language';
import type { CheckoutView } from '../../widget/screen/view';
import { signupOpen } from '../present/subscription';
import type { Logger } from 'pino';
import { type Deps, scopedDeps } from '../deps';
import { baseUrlOf } from '../http/route';
import { testCardErrors } from '../payments/live';
import { canStore } from '../payments/gateway';
import { storeCard } from '../payments/store-card';
import { answerStoreChallenge } from '../payments/store-challenge';
import type { AuthorizationRow } from '../store/schema';
import { attachPaymentMethod } from '../payments/subscription-actions';
import { awaitSignupChallenge, findSignup, type SignupPage, signupChallenge } from '../store/subscriptions';
import { brandView } from './brand';
import { renderChallengePage } from './challenge-page';
import { csrfToken, sameOriginPost, validCsrf } from './csrf';
import { formBody, formBodyFailure } from './form-body';
import { addressLimit } from './limits';
import { type CheckoutContext, checkoutContext, stepUrl } from './page';
import { fromForm, payRequest, type PayRequest } from './pay-request';
import { refusedEmbed } from './embed-refusal';
import { notFound } from './page-view';
import { allowedFrameOrigins, applyPageHeaders, newNonce, redirectOrigins } from './security';
import { buildSignupView, SIGNUP_EMAIL_FIELD, signupGateways, type SignupViewInput } from './signup-view';
import { isDecline, notStored, resultOf, type StoreResult, toChallenge } from './store-step';
import { outcomeStrings } from '../../widget/screen/client-strings';
import { readChallengeAnswer } from './challenge-answer';
import { signupReturnUrl } from './returns';

// A subscription's hosted sign-up at /pay/sub_…/: the payment screen at the URL the widget
// already frames, so a subscription's payment_url embeds unchanged. It takes the card
// through the gateway's `store`, saves it as an authorization and starts the subscription
// (or, past due, makes it the card the owed period is charged to). Same protocol as the
// checkout's own routes: HTML without JavaScript, JSON for the hydrated screen. A card
// whose issuer challenges the cardholder runs the save page's step (store-step.ts): the
// sign-up remembers the authorization waiting for it, and its answer starts the
// subscription; failed or left, the sign-up stays open for another try.

const SIGNUP_TOKEN = /^sub_[A-Za-z0-9_-]{32}$/;

interface Page extends SignupPage {
  language: SignupViewInput['language'];
  embed: { parentOrigin: string } | null;
  frameAncestors: string[];
  wantsJson: boolean;
  /** The request's logger, for the use cases the answer calls (scopedDeps). */
  readonly log: Logger;
}

type Extra = Omit<SignupViewInput, 'row' | 'merchantName' | 'language' | 'csrf' | 'now' | 'embed' | 'gateways' | 'urls'>;

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
  const wantsJson = req.is('application/json') === 'application/json';
  return { ...found, language, embed, frameAncestors: embed ? allowed : [], wantsJson, get log() { return req.log; } };
}

/** In the widget's frame, the URLs it reports once the customer signed up or left, signed as a redirect's. */
async function embedUrls({ db, deps }: CheckoutContext, page: Page, extra: Extra): Promise<SignupViewInput['urls']> {
  const { row } = page;
  if (!page.embed || !extra.justFinished) return undefined;
  const now = deps.now();
  return {
    return_url: signupOpen(row) ? row.return_url : await signupReturnUrl(db, row, 'completed', now),
    cancel_url: extra.cancelled ? await signupReturnUrl(db, row, 'cancelled', now) : row.cancel_url,
  };
}

async function view(ctx: CheckoutContext, page: Page, extra: Extra = {}): Promise<CheckoutView> {
  const built = buildSignupView({
    urls: await embedUrls(ctx, page, extra),
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

function secure(res: Response, page: Page): string {
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: page.frameAncestors, formTargets: redirectOrigins(page.row) });
  return nonce;
}

async function show(ctx: CheckoutContext, res: Response, page: Page, status: number, extra: Extra = {}) {
  const nonce = secure(res, page);
  const v = await view(ctx, page, extra);
  if (page.wantsJson) return void res.status(status).json({ outcome: 'view', view: v, strings: outcomeStrings(page.language, 'subscription') });
  res.status(status).type('html').send(renderDocument({ view: v, nonce, assets: ctx.screenAssets() }));
}

/**
 * Redirects as for transactions: to return_url / cancel_url, signed, except in the widget's
 * frame. The hydrated screen gets the confirmed view with it, to show "Subscription
 * confirmed" before the shop opens, as the paid screen does.
 */
async function finish(ctx: CheckoutContext, res: Response, page: Page, kind: 'completed' | 'cancelled') {
  const url = await signupReturnUrl(ctx.db, page.row, kind, ctx.deps.now());
  if (url && !page.embed) {
    if (page.wantsJson) {
      const shown = kind === 'completed' ? { view: await view(ctx, page, {}) } : {};
      secure(res, page);
      return void res.json({ outcome: 'redirect', location: url, kind, ...shown, strings: outcomeStrings(page.language, 'subscription') });
    }
    secure(res, page);
    return void res.redirect(303, url);
  }
  return show(ctx, res, page, 200, { justFinished: page.embed !== null, cancelled: kind === 'cancelled' });
}

/** Stores the card through the gateway and starts the subscription with it; answers what came of it. */
async function signUp(ctx: CheckoutContext, res: Response, page: Page, input: PayRequest) {
  const { db } = ctx;
  const deps = scopedDeps(ctx.deps, page);
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
  const customerEmail = email?.trim() || null;
  const stored = await storeCard(deps, { environmentId: page.row.environment_id, gateway, fields: cardFields, notifyUrl: null, authenticate: true });
  if (stored.kind === 'challenge') {
    const waiting = await awaitSignupChallenge(db, { subscription: page.row, authorizationId: stored.authorization.id, customerEmail, now: deps.now() });
    // Signed up meanwhile: this card's challenge lapses unanswered (the expiry job ends it).
    return waiting ? toChallenge(res, page, 'subscription') : show(ctx, res, await reload(ctx, page), 409);
  }
  if (stored.kind !== 'stored' && stored.kind !== 'declined') {
    // Storing a card charges nothing: even of unknown outcome (a pending authorization the merchant sees settled), the customer may try again.
    return show(ctx, res, page, 200, { chosenGateway: gateway.id, error: { message: 'error.gatewayFailed', fields: {} } });
  }
  if (stored.kind === 'declined') {
    const message = stored.reason === 'insufficient_funds' ? 'error.insufficientFunds' : 'error.declined';
    return show(ctx, res, page, 200, { chosenGateway: gateway.id, declined: true, error: { message, fields: {} } });
  }
  return start(ctx, res, page, stored.authorization, customerEmail);
}

/** The stored card starts the subscription (or pays the owed period): the sign-up is done. */
async function start(ctx: CheckoutContext, res: Response, page: Page, authorization: AuthorizationRow, customerEmail: string | null) {
  const { db } = ctx;
  const deps = scopedDeps(ctx.deps, page);
  // A second sign-up racing this one finds the subscription started: its card stays
  // stored (an authorization the merchant sees and can remove) and it is told so.
  const result = await attachPaymentMethod(db, { subscription: page.row, authorizationId: authorization.id, customerEmail, now: deps.now(), outbox: deps.outbox });
  if (result.kind !== 'done') return show(ctx, res, await reload(ctx, page), 409);
  deps.log.info({ subscription: page.row.id, gateway: authorization.gateway_id, brand: authorization.card_brand }, 'subscription signed up');
  return finish(ctx, res, { ...page, row: result.subscription.row }, 'completed');
}

/** Re-reads the subscription so the answer shows the state a write produced. */
async function reload(ctx: CheckoutContext, page: Page): Promise<Page> {
  const found = await findSignup(ctx.db, page.row.token);
  return found ? { ...page, row: found.row } : page;
}

/** A message on the page: as the JSON answer, or after a redirect for the form (post, redirect, get). */
async function result(ctx: CheckoutContext, res: Response, page: Page, message: StoreResult) {
  if (!page.wantsJson) return void res.redirect(303, stepUrl(page, '', { result: message }));
  return show(ctx, res, await reload(ctx, page), 200, { declined: isDecline(message), error: { message, fields: {} } });
}

/**
 * The authorization whose challenge this open sign-up waits for, while it can be answered.
 * One that lapsed is closed here as if left (the expiry job closes it otherwise).
 */
async function openChallenge(ctx: CheckoutContext, page: Page): Promise<AuthorizationRow | null> {
  if (!signupOpen(page.row)) return null;
  const authorization = await signupChallenge(ctx.db, page.row);
  if (authorization?.status !== 'requires_action' || !authorization.gateway_challenge) return null;
  if (Date.parse(authorization.challenge_expires_at ?? '') > ctx.deps.now().getTime()) return authorization;
  await answerStoreChallenge(scopedDeps(ctx.deps, page), { authorization, answer: 'abandoned' });
  return null;
}

/** The form's CSRF token and the browser's own headers, as the payment page checks them. */
async function trusted(ctx: CheckoutContext, req: Request, page: Page, csrf: string | undefined): Promise<boolean> {
  return sameOriginPost(req, baseUrlOf(req, ctx.deps)) && validCsrf(await ctx.csrfSecret(), page.row.token, csrf);
}

/** The issuer's challenge of the card given here: its page (without JavaScript) and its answer (both ways). */
function challengeRoutes(router: IRouter, ctx: CheckoutContext, signupOnly: (req: Request, res: Response, next: NextFunction) => void) {
  router.get('/pay/:token/challenge/', signupOnly, async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    // Answered, lapsed or left already, or signed up meanwhile: back to the page, which shows where it stands.
    if (!(await openChallenge(ctx, page))) return res.redirect(303, stepUrl(page, '', { result: 'error.saveIncomplete' }));
    secure(res, page);
    res.type('html').send(renderChallengePage(await view(ctx, page), ctx.screenAssets()));
  });

  router.post('/pay/:token/challenge/', signupOnly, formBody({ json: true }), async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    const read = await readChallengeAnswer(req, page, (csrf) => trusted(ctx, req, page, csrf));
    if ('refused' in read) return show(ctx, res, page, read.refused.status, { error: { message: read.refused.message, fields: {} } });
    const authorization = await openChallenge(ctx, page);
    if (!authorization) return result(ctx, res, page, 'error.saveIncomplete');
    const { answer } = read;
    const outcome = await answerStoreChallenge(scopedDeps(ctx.deps, req), { authorization, answer });
    if (outcome.kind === 'stored') return start(ctx, res, page, outcome.authorization, null);
    // As for a sign-up's store of unknown outcome: nothing is charged, the customer may try again.
    const message = notStored(answer, outcome);
    return result(ctx, res, page, message === 'error.saveChecking' ? 'error.saveFailed' : message);
  });
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
    if (refusedEmbed(req, res, page, ctx.screenAssets())) return;
    // Back from the challenge's page (without JavaScript): what came of it, while the sign-up is open.
    const message = resultOf(req.query.result);
    await show(ctx, res, page, 200, message && signupOpen(page.row) ? { declined: isDecline(message), error: { message, fields: {} } } : {});
  });
  challengeRoutes(router, ctx, signupOnly);

  router.post('/pay/:token/', signupOnly, addressLimit(deps, 'signup', screenAssets), formBody({ json: true }), async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    const unreadable = formBodyFailure(req);
    if (unreadable) return show(ctx, res, page, unreadable, { error: { message: 'error.generic', fields: {} } });
    const raw = page.wantsJson ? { ...req.body, csrf: req.get('x-csrf-token') } : fromForm(req.body ?? {});
    const parsed = payRequest.safeParse(raw);
    if (!parsed.success) return show(ctx, res, page, 400, { error: { message: 'error.generic', fields: {} } });
    const input = parsed.data;
    if (!(await trusted(ctx, req, page, input.csrf))) return show(ctx, res, page, 403, { error: { message: 'error.session', fields: {} } });
    if (!signupOpen(page.row)) return show(ctx, res, page, 409);
    if (input.action === 'cancel') return finish(ctx, res, page, 'cancelled');
    return signUp(ctx, res, page, input);
  });
}
