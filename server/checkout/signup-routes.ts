import { randomUUID } from 'node:crypto';
import type { IRouter, NextFunction, Request, Response } from 'express';
import { validateFields } from '../../widget/fields/card';
import { getTranslator } from '../../widget/i18n/server';
import type { DocumentAssets } from '../../widget/screen/document';
import { signupOpen } from '../domain/subscription-states';
import { type Deps, scopedDeps } from '../deps';
import { canStore } from '../payments/gateway';
import { testCardErrors } from '../payments/live';
import { signUpWith } from '../payments/signup-card';
import { storeCard } from '../payments/store-card';
import { answerStoreChallenge } from '../payments/store-challenge';
import type { AuthorizationRow } from '../store/schema';
import { baseUrlOf } from '../http/route';
import { awaitSignupChallenge, claimSignup, findSignup, releaseClaim, type SignupPage, SIGNUP_TOKEN_PREFIX, signupChallenge } from '../store/subscriptions';
import { brandView } from './brand';
import { renderChallengePage } from './challenge-page';
import { csrfToken } from './csrf';
import { formBody } from './form-body';
import {
  finishedHosted,
  type HostedExtra,
  type HostedKind,
  type HostedOutcome,
  type HostedPage,
  loadHosted,
  readHostedPost,
  refusedView,
  reloadHosted,
  respondHosted,
  respondUnpayable,
  secureHosted,
} from './hosted-page';
import { addressLimit } from './limits';
import { type CheckoutContext, checkoutContext, stepUrl } from './page';
import { fromForm, payRequest, type PayRequest } from './pay-request';
import { refusedEmbed } from './embed-refusal';
import { keptValues } from './view-model';
import { notFound } from './page-view';
import { buildSignupView, SIGNUP_EMAIL_FIELD, signupGateways, type SignupViewInput } from './signup-view';
import { isDecline, notStored, respondStoreResult, resultOf, type StoreResult } from './store-step';
import { storeInDoubt } from '../store/saved-cards';
import { cardSource, readStoreReturn, returnedCall, toProcessorAgain, toStoreChallenge } from './store-away';
import { readChallengeAnswer } from './challenge-answer';
import { signupReturnUrl } from './returns';

// A subscription's hosted sign-up at /pay/sub_…/: the payment screen at the URL the widget
// already frames, so a subscription's payment_url embeds unchanged. It takes the card
// through the gateway's `store`, saves it as an authorization and starts the subscription
// (or, past due, makes it the card the owed period is charged to). Same protocol as the
// checkout's own routes: HTML without JavaScript, JSON for the hydrated screen. A card
// whose issuer challenges the cardholder runs the save page's step (store-step.ts), and a
// processor that takes the card on its own page (Stripe Checkout, Redsys) the save page's
// way there and back (store-away.ts): the sign-up remembers the authorization waiting for
// it, and what saves it (the answer, the customer's return, Redsys's notification) starts
// the subscription; failed or left, the sign-up stays open for another try. A card whose
// saving is unknown (an answer lost) may still be saved: the page says it is being checked
// and takes no other card until reconciliation proves it, and starts the sign-up with it.

const SIGNUP_TOKEN = /^sub_[A-Za-z0-9_-]{32}$/;

type Page = HostedPage<SignupPage>;

/** In the widget's frame, the URLs it reports once the customer signed up or left, signed as a redirect's. */
async function embedUrls({ db, deps }: CheckoutContext, page: Page, extra: HostedExtra): Promise<SignupViewInput['urls']> {
  const { row } = page;
  if (!page.embed || !extra.justFinished) return undefined;
  const now = deps.now();
  return {
    return_url: signupOpen(row) ? row.return_url : await signupReturnUrl(db, row, 'completed', now),
    cancel_url: extra.cancelled ? await signupReturnUrl(db, row, 'cancelled', now) : row.cancel_url,
  };
}

/** The sign-up as a kind of hosted page (hosted-page.ts); its returns are signed (returns.ts). */
const signupPage: HostedKind<SignupPage> = {
  flavour: 'subscription',
  token: SIGNUP_TOKEN,
  find: ({ db }, token) => findSignup(db, token),
  language: (row) => row.language,
  offered: (gateways, { row }, live) => gateways.forCurrency(row.currency, live).filter(canStore),
  async view(ctx, page, extra) {
    const { justFinished, cancelled, error, chosenGateway, declined, confirmCancel, values } = extra;
    const built = buildSignupView({
      urls: await embedUrls(ctx, page, extra),
      row: page.row,
      merchantName: page.merchant.name,
      language: page.language,
      csrf: csrfToken(await ctx.csrfSecret(), page.row.token),
      now: ctx.deps.now(),
      embed: page.embed,
      gateways: signupGateways(page.gateways, page.row.currency, !page.merchant.sandbox),
      ...{ justFinished, cancelled, error, chosenGateway, declined, confirmCancel, values },
    });
    return { ...built, brand: brandView(page.row.environment_id, page.merchant.brand), sandbox: page.merchant.sandbox };
  },
  returnTo: ({ db, deps }, { row }, how) => signupReturnUrl(db, row, how, deps.now()),
  title: (page) => getTranslator(page.language).t('subscription.title', { merchant: page.merchant.name }),
};

const respond = (ctx: CheckoutContext, res: Response, page: Page, outcome: HostedOutcome) => respondHosted(ctx, signupPage, res, page, outcome);
const show = (ctx: CheckoutContext, res: Response, page: Page, status: number, extra: HostedExtra = {}) => respond(ctx, res, page, { kind: 'view', status, ...extra });
const finish = async (ctx: CheckoutContext, res: Response, page: Page, how: 'completed' | 'cancelled') => respond(ctx, res, page, await finishedHosted(ctx, signupPage, page, how));
const result = (ctx: CheckoutContext, res: Response, page: Page, message: StoreResult) => respondStoreResult(ctx, signupPage, res, page, message);
const reload = (ctx: CheckoutContext, page: Page) => reloadHosted(signupPage, ctx, page);

/**
 * One card at a time, also between posts sent at once: the post that holds the sign-up
 * (claimSignup) sends its card and starts the subscription; another is told the card is
 * being checked, and stores nothing.
 */
async function signUp(ctx: CheckoutContext, res: Response, page: Page, input: PayRequest, base: string) {
  const claimant = randomUUID();
  const now = ctx.deps.now();
  if (!(await claimSignup(ctx.db, { subscription: page.row, claimant, now, until: new Date(now.getTime() + ctx.deps.config.paymentClaimMs) }))) {
    return result(ctx, res, page, 'error.saveChecking');
  }
  try {
    return await signUpHeld(ctx, res, page, input, base);
  } finally {
    await releaseClaim(ctx.db, page.row.id, claimant);
  }
}

/** Stores the card through the gateway and starts the subscription with it; answers what came of it. */
async function signUpHeld(ctx: CheckoutContext, res: Response, page: Page, input: PayRequest, base: string) {
  const { db } = ctx;
  const deps = scopedDeps(ctx.deps, page);
  const gateway = page.gateways.forCurrency(page.row.currency, !page.merchant.sandbox).find((g) => g.id === input.gateway);
  if (!gateway || !canStore(gateway)) {
    return show(ctx, res, page, 400, { error: { message: 'error.gatewayRequired', fields: { gateway: 'error.gatewayRequired' } } });
  }
  const { [SIGNUP_EMAIL_FIELD.name]: email, ...cardFields } = input.fields;
  const fieldErrors = {
    ...validateFields([SIGNUP_EMAIL_FIELD, ...gateway.fields], input.fields, deps.now()),
    ...testCardErrors(!page.merchant.sandbox, input.fields),
  };
  if (Object.keys(fieldErrors).length) {
    const values = keptValues([SIGNUP_EMAIL_FIELD, ...gateway.fields], input.fields);
    return show(ctx, res, page, 400, { chosenGateway: gateway.id, error: { message: 'error.fieldsInvalid', fields: fieldErrors }, values });
  }
  // One card at a time: a card whose saving is still unknown may yet start this sign-up (reconciliation, or the processor's notification).
  if (page.row.signup_authorization_id && (await storeInDoubt(db, page.row.signup_authorization_id))) return result(ctx, res, page, 'error.saveChecking');
  if (await awaitingNotification(ctx, page)) return result(ctx, res, page, 'error.saveChecking');
  const customerEmail = email?.trim() || null;
  const stored = await storeCard(deps, { environmentId: page.row.environment_id, gateway, ...cardSource(gateway, page, base, cardFields), notifyUrl: null, authenticate: true });
  if (stored.kind === 'challenge') {
    const waiting = await awaitSignupChallenge(db, { subscription: page.row, authorizationId: stored.authorization.id, customerEmail, now: deps.now() });
    // Signed up meanwhile: this card's challenge lapses unanswered (the expiry job ends it).
    return waiting ? respond(ctx, res, page, toStoreChallenge(page, stored.redirect)) : show(ctx, res, await reload(ctx, page), 409);
  }
  if (stored.kind === 'pending') {
    // Of unknown outcome, the card may be saved: the sign-up waits for it (reconciliation starts it once proven saved).
    await awaitSignupChallenge(db, { subscription: page.row, authorizationId: stored.authorization.id, customerEmail, now: deps.now() });
    return result(ctx, res, page, 'error.saveChecking');
  }
  if (stored.kind === 'in_flight') return result(ctx, res, page, 'error.saveChecking');
  if (stored.kind !== 'stored' && stored.kind !== 'declined') {
    // The gateway surely saved nothing (or the save's record needs a person): the customer may try again.
    // In the save page's words: a sign-up charges nothing, so "the payment could not be made" would mislead.
    return show(ctx, res, page, 200, { chosenGateway: gateway.id, error: { message: 'error.saveFailed', fields: {} } });
  }
  if (stored.kind === 'declined') {
    // A sign-up charges nothing here: the save page's words, not a payment's.
    const message = stored.reason === 'insufficient_funds' ? 'error.insufficientFunds' : 'error.saveDeclined';
    return show(ctx, res, page, 200, { chosenGateway: gateway.id, declined: true, error: { message, fields: {} } });
  }
  return start(ctx, res, page, stored.authorization, customerEmail);
}

/** The stored card starts the subscription (or pays the owed period): the sign-up is done. */
async function start(ctx: CheckoutContext, res: Response, page: Page, authorization: AuthorizationRow, customerEmail: string | null) {
  // A second sign-up racing this one finds the subscription started: its card stays
  // stored (an authorization the merchant sees and can remove) and it is told so.
  const result = await signUpWith(scopedDeps(ctx.deps, page), { subscription: page.row, authorization, customerEmail });
  if (result.kind !== 'done') {
    await reload(ctx, page);
    // Signed up with this very card meanwhile (Redsys's notification, another return): done all the same.
    const same = !signupOpen(page.row) && page.row.authorization_id === authorization.id;
    return same ? finish(ctx, res, page, 'completed') : show(ctx, res, page, 409);
  }
  page.row = result.subscription.row;
  return finish(ctx, res, page, 'completed');
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

/**
 * Whether the card this sign-up waits for was given on a processor's page that only its
 * notification can answer (Redsys: nothing can be asked): until the challenge lapses the
 * card may be saved at any moment, so no other card is taken.
 */
async function awaitingNotification(ctx: CheckoutContext, page: Page): Promise<boolean> {
  const authorization = await openChallenge(ctx, page);
  return authorization !== null && !page.gateways.find(authorization)?.resume;
}

/** The issuer's challenge of the card given here: its page (without JavaScript) and its answer (both ways). */
function challengeRoutes(router: IRouter, ctx: CheckoutContext, signupOnly: (req: Request, res: Response, next: NextFunction) => void) {
  router.get('/pay/:token/challenge/', signupOnly, async (req, res) => {
    const page = await loadHosted(signupPage, ctx, req);
    if (!page) return notFound(ctx, req, res);
    // Answered, lapsed or left already, or signed up meanwhile: back to the page, which shows where it stands.
    const authorization = await openChallenge(ctx, page);
    if (!authorization) return res.redirect(303, stepUrl(page, '', { result: 'error.saveIncomplete' }));
    // The challenge is the processor's own page (Stripe Checkout, Redsys): there again.
    if (await toProcessorAgain(ctx, res, page, authorization)) return;
    secureHosted(res, page);
    res.type('html').send(renderChallengePage(await signupPage.view(ctx, page, {}), ctx.screenAssets()));
  });

  router.post('/pay/:token/challenge/', signupOnly, formBody({ json: true }), async (req, res) => {
    const page = await loadHosted(signupPage, ctx, req);
    if (!page) return notFound(ctx, req, res);
    const read = await readChallengeAnswer(ctx, req, page);
    if ('refused' in read) return respond(ctx, res, page, refusedView(read.refused));
    const authorization = await openChallenge(ctx, page);
    if (!authorization) return result(ctx, res, page, 'error.saveIncomplete');
    const { answer } = read;
    const outcome = await answerStoreChallenge(scopedDeps(ctx.deps, req), { authorization, answer });
    if (outcome.kind === 'stored') return start(ctx, res, page, outcome.authorization, null);
    return result(ctx, res, page, notStored(answer, outcome));
  });
}

/**
 * The customer back from the processor's page where the card was given: the store call's
 * own return route (store-away.ts). The card saved (here, or first by Redsys's
 * notification, which starts the subscription itself): the sign-up is done, once.
 */
function returnRoute(router: IRouter, ctx: CheckoutContext, signupOnly: (req: Request, res: Response, next: NextFunction) => void) {
  router.get('/pay/:token/return/:reference/', signupOnly, addressLimit(ctx.deps, 'provider-return', ctx.screenAssets), async (req, res) => {
    const page = await loadHosted(signupPage, ctx, req);
    const call = page ? await returnedCall(ctx, req, page.row.signup_authorization_id) : undefined;
    const authorization = page && call ? await signupChallenge(ctx.db, page.row) : undefined;
    if (!page || !call || !authorization) return notFound(ctx, req, res);
    const back = signupOpen(page.row) ? await readStoreReturn(ctx, req, page, authorization, call) : { kind: 'page' as const };
    if (back.kind === 'stored') return start(ctx, res, page, back.authorization, null);
    if (back.kind === 'checking') return show(ctx, res, page, 200, { error: { message: 'error.saveChecking', fields: {} } });
    if (back.kind === 'not_stored') return result(ctx, res, page, back.message);
    // Signed up with it already (by the notification, or another return): back to the shop; else the page shows where it stands.
    if (authorization.status === 'active' && page.row.authorization_id === authorization.id) return finish(ctx, res, page, 'completed');
    return res.redirect(303, stepUrl(page, ''));
  });
}

/** Declared before the checkout's routes (app.ts otherHostedPages); any other token goes on to them. */
export function signupRoutes(router: IRouter, deps: Deps, screenAssets: () => DocumentAssets): void {
  const ctx = checkoutContext(deps, screenAssets);
  // Transaction tokens never start with `sub_` (they are 32 base64url characters): one
  // string test, and the payment page's own routes take everything else.
  const signupOnly = (req: Request, _res: Response, next: NextFunction) => next(String(req.params.token).startsWith(SIGNUP_TOKEN_PREFIX) ? undefined : 'route');

  router.get('/pay/:token/', signupOnly, async (req, res) => {
    const page = await loadHosted(signupPage, ctx, req);
    if (!page) return notFound(ctx, req, res);
    if (refusedEmbed(req, res, page, ctx.screenAssets())) return;
    // No method of the environment's mode can store a card in its currency: nothing to sign up with.
    if (signupOpen(page.row) && signupGateways(deps.gateways, page.row.currency, !page.merchant.sandbox).length === 0) return respondUnpayable(ctx, res, page);
    // Back from the challenge's page (without JavaScript): what came of it, while the sign-up is open.
    const message = resultOf(req.query.result);
    await show(ctx, res, page, 200, message && signupOpen(page.row) ? { declined: isDecline(message), error: { message, fields: {} } } : {});
  });
  challengeRoutes(router, ctx, signupOnly);

  router.post('/pay/:token/', signupOnly, addressLimit(deps, 'signup', screenAssets), formBody({ json: true }), async (req, res) => {
    const page = await loadHosted(signupPage, ctx, req);
    if (!page) return notFound(ctx, req, res);
    const read = await readHostedPost(ctx, req, page, payRequest, fromForm);
    if ('refused' in read) return respond(ctx, res, page, refusedView(read.refused));
    const { input } = read;
    if (!signupOpen(page.row)) return show(ctx, res, page, 409);
    if (input.action === 'cancel') {
      // One click must not end it: without JavaScript the page asks first, as the save and payment pages do.
      if (!page.wantsJson && input.confirm !== '1') return show(ctx, res, page, 200, { confirmCancel: true });
      return finish(ctx, res, page, 'cancelled');
    }
    return signUp(ctx, res, page, input, baseUrlOf(req, deps));
  });
  returnRoute(router, ctx, signupOnly);
}
