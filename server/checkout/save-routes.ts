import type { IRouter, NextFunction, Request, Response } from 'express';
import { validateFields } from '../../widget/fields/card';
import type { DocumentAssets } from '../../widget/screen/document';
import { getTranslator } from '../../widget/i18n/server';
import { type Deps, scopedDeps } from '../deps';
import { canStore } from '../payments/gateway';
import { answerStoreChallenge, type StoreChallengeOutcome } from '../payments/store-challenge';
import { storeCard } from '../payments/store-card';
import { SAVE_PAGE_MS, SAVE_TOKEN_PREFIX } from '../store/authorizations';
import { findSave, SAVE_TOKEN, type SavePage, storeInDoubt } from '../store/saved-cards';
import { expireSavePages } from '../payments/authorization-expiry';
import { leaveChallenge } from '../payments/store-challenge';
import { testCardErrors } from '../payments/live';
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
  secureHosted,
} from './hosted-page';
import { addressLimit } from './limits';
import { type CheckoutContext, checkoutContext, stepUrl } from './page';
import { fromForm, payRequest, type PayRequest } from './pay-request';
import { buildSaveView } from './save-view';
import { refusedEmbed } from './embed-refusal';
import { notFound } from './page-view';
import { isDecline, notStored, respondStoreResult, resultOf, type StoreResult, toChallenge } from './store-step';
import { type ChallengeAnswerPosted, readChallengeAnswer } from './challenge-answer';
import { keptValues } from './view-model';
import { baseUrlOf } from '../http/route';
import { cardSource, readStoreReturn, returnedCall, toProcessorAgain, toStoreChallenge } from './store-away';

// Saving a card without touching it: the hosted page at /pay/sav_…/ that
// `POST /v1/authorization/` without a card answers with (and the page a raw-card
// authorization's challenge runs on). The payment screen at the URL the widget already
// frames, so it embeds unchanged. Same protocol as the payment page: HTML without
// JavaScript (the form posts, the server redirects), JSON for the hydrated screen; the
// challenge as a page of its own at challenge/ (a dialog once hydrated).

type Page = HostedPage<SavePage>;

/** The authorization a token names; a challenge let lapse, or a page past its expiry, is ended first. */
async function findOpen(ctx: CheckoutContext, token: string): Promise<SavePage | undefined> {
  const found = await findSave(ctx.db, token);
  if (!found) return undefined;
  const now = ctx.deps.now();
  // A challenge the customer let lapse is over: as if they had left it.
  const lapsed = found.row.status === 'requires_action' && found.row.gateway_challenge && Date.parse(found.row.challenge_expires_at ?? '') <= now.getTime();
  if (lapsed && (await leaveChallenge(ctx.db, found.row, now, ctx.deps.outbox))) return findOpen(ctx, token);
  // Past its expiry with no card given: it ends here if the expiry job has not ended it yet.
  const expired = found.row.status === 'pending' && found.row.hosted_page === 1 && Date.parse(found.row.created_at) + SAVE_PAGE_MS <= now.getTime();
  if (expired && (await expireSavePages(ctx.db, now, ctx.deps.outbox, { limit: 1, id: found.row.id }))) return findOpen(ctx, token);
  return found;
}

/** The save page as a kind of hosted page (hosted-page.ts). */
const savePage: HostedKind<SavePage> = {
  flavour: 'save',
  token: SAVE_TOKEN,
  find: findOpen,
  language: () => null,
  offered: (gateways, { row }) => [gateways.find(row)].filter((g) => g !== undefined),
  async view(ctx, page, { justFinished, cancelled, declined, confirmCancel, error, values }) {
    const built = buildSaveView({
      row: page.row,
      merchantName: page.merchant.name,
      language: page.language,
      csrf: csrfToken(await ctx.csrfSecret(), page.row.token!),
      now: ctx.deps.now(),
      embed: page.embed,
      gateway: page.gateways.find(page.row),
      ...{ justFinished, cancelled, declined, confirmCancel, error, values },
    });
    return { ...built, brand: brandView(page.row.environment_id, page.merchant.brand), sandbox: page.merchant.sandbox };
  },
  returnTo: async (_ctx, { row }, how) => (how === 'completed' ? row.return_url : row.cancel_url) ?? null,
  title: (page) => getTranslator(page.language).t('save.title', { merchant: page.merchant.name }),
};

const respond = (ctx: CheckoutContext, res: Response, page: Page, outcome: HostedOutcome) => respondHosted(ctx, savePage, res, page, outcome);
const show = (ctx: CheckoutContext, res: Response, page: Page, status: number, extra: HostedExtra = {}) => respond(ctx, res, page, { kind: 'view', status, ...extra });
const finish = async (ctx: CheckoutContext, res: Response, page: Page, how: 'completed' | 'cancelled') => respond(ctx, res, page, await finishedHosted(ctx, savePage, page, how));
const result = (ctx: CheckoutContext, res: Response, page: Page, message: StoreResult) => respondStoreResult(ctx, savePage, res, page, message);
const reload = (ctx: CheckoutContext, page: Page) => reloadHosted(savePage, ctx, page);

/** Stores the card on the page's authorization; answers what came of it. */
async function save(ctx: CheckoutContext, res: Response, page: Page, input: PayRequest, base: string) {
  const deps = scopedDeps(ctx.deps, page);
  const gateway = page.gateways.find(page.row);
  if (!gateway?.enabled || !canStore(gateway) || input.gateway !== gateway.id) {
    return show(ctx, res, page, 400, { error: { message: 'error.gatewayRequired', fields: { gateway: 'error.gatewayRequired' } } });
  }
  const fieldErrors = { ...validateFields(gateway.fields, input.fields, deps.now()), ...testCardErrors(!page.merchant.sandbox, input.fields) };
  if (Object.keys(fieldErrors).length) {
    return show(ctx, res, page, 400, { error: { message: 'error.fieldsInvalid', fields: fieldErrors }, values: keptValues(gateway.fields, input.fields) });
  }
  // One card at a time: a store whose outcome is unknown may still become this authorization.
  if (await storeInDoubt(ctx.db, page.row.id)) return result(ctx, res, page, 'error.saveChecking');
  const stored = await storeCard(deps, {
    environmentId: page.row.environment_id,
    gateway,
    ...cardSource(gateway, page, base, input.fields),
    notifyUrl: page.row.notify_url,
    authorizationId: page.row.id,
    authenticate: true,
    clientId: page.row.client_id ?? null,
  });
  switch (stored.kind) {
    case 'stored':
      deps.log.info({ authorization: page.row.id, gateway: gateway.code, brand: stored.authorization.card_brand }, 'card saved on the hosted page');
      return finish(ctx, res, await reload(ctx, page), 'completed');
    case 'challenge':
      return respond(ctx, res, page, toStoreChallenge(page, stored.redirect));
    case 'declined':
      return result(ctx, res, page, 'error.saveDeclined');
    case 'pending':
    case 'in_flight':
      return result(ctx, res, page, 'error.saveChecking');
    default:
      return result(ctx, res, page, 'error.saveFailed');
  }
}

/** What the answer to a challenge comes to, as the page shows it. */
async function challengeAnswered(ctx: CheckoutContext, res: Response, page: Page, answer: ChallengeAnswerPosted, outcome: StoreChallengeOutcome) {
  if (outcome.kind === 'stored') return finish(ctx, res, await reload(ctx, page), 'completed');
  return result(ctx, res, page, notStored(answer, outcome));
}

function getRoutes(router: IRouter, ctx: CheckoutContext, only: (req: Request, res: Response, next: NextFunction) => void) {
  router.get('/pay/:token/', only, async (req, res) => {
    const page = await loadHosted(savePage, ctx, req);
    if (!page) return notFound(ctx, req, res);
    if (refusedEmbed(req, res, page, ctx.screenAssets())) return;
    // The customer has a challenge to answer (an API request's card, or a card given here).
    if (page.row.status === 'requires_action' && page.row.gateway_challenge) return res.redirect(303, stepUrl(page, 'challenge/'));
    const message = resultOf(req.query.result);
    const open = page.row.status === 'pending';
    await show(ctx, res, page, 200, message && open ? { declined: isDecline(message), error: { message, fields: {} } } : {});
  });

  router.get('/pay/:token/challenge/', only, async (req, res) => {
    const page = await loadHosted(savePage, ctx, req);
    if (!page) return notFound(ctx, req, res);
    // Answered, lapsed or left already: back to the page, which shows where it stands.
    if (page.row.status !== 'requires_action' || !page.row.gateway_challenge) return res.redirect(303, stepUrl(page, ''));
    // The challenge is the processor's own page (saving a card with Stripe, Redsys): there again.
    if (await toProcessorAgain(ctx, res, page, page.row)) return;
    secureHosted(res, page);
    res.type('html').send(renderChallengePage(await savePage.view(ctx, page, {}), ctx.screenAssets()));
  });
}

/**
 * The customer back from the processor's page where the card was given (the store's
 * challenge by redirect): the store call's own return route (store-away.ts).
 */
function returnRoute(router: IRouter, ctx: CheckoutContext, only: (req: Request, res: Response, next: NextFunction) => void) {
  router.get('/pay/:token/return/:reference/', only, addressLimit(ctx.deps, 'provider-return', ctx.screenAssets), async (req, res) => {
    const page = await loadHosted(savePage, ctx, req);
    const call = page ? await returnedCall(ctx, req, page.row.id) : undefined;
    if (!page || !call) return notFound(ctx, req, res);
    const back = await readStoreReturn(ctx, req, page, page.row, call);
    if (back.kind === 'stored') return finish(ctx, res, await reload(ctx, page), 'completed');
    if (back.kind === 'checking') return show(ctx, res, page, 200, { error: { message: 'error.saveChecking', fields: {} } });
    if (back.kind === 'not_stored') return result(ctx, res, page, back.message);
    return res.redirect(303, stepUrl(page, ''));
  });
}

/** Declared before the checkout's routes (app.ts otherHostedPages); any other token goes on to them. */
export function saveRoutes(router: IRouter, deps: Deps, screenAssets: () => DocumentAssets): void {
  const ctx = checkoutContext(deps, screenAssets);
  // Transaction tokens never start with `sav_` (they are 32 base64url characters): one
  // string test, and the other pages' routes take everything else.
  const only = (req: Request, _res: Response, next: NextFunction) => next(String(req.params.token).startsWith(SAVE_TOKEN_PREFIX) ? undefined : 'route');
  getRoutes(router, ctx, only);

  router.post('/pay/:token/', only, addressLimit(deps, 'save', screenAssets), formBody({ json: true }), async (req, res) => {
    const page = await loadHosted(savePage, ctx, req);
    if (!page) return notFound(ctx, req, res);
    const read = await readHostedPost(ctx, req, page, payRequest, fromForm);
    if ('refused' in read) return respond(ctx, res, page, refusedView(read.refused));
    const { input } = read;
    if (page.row.status === 'requires_action' && page.row.gateway_challenge) return respond(ctx, res, page, toChallenge(page));
    if (page.row.status !== 'pending' || page.row.hosted_page !== 1) return show(ctx, res, page, 409);
    if (input.action === 'cancel') {
      // One click must not end it: without JavaScript the page asks first. The link keeps working.
      if (!page.wantsJson && input.confirm !== '1') return show(ctx, res, page, 200, { confirmCancel: true });
      return finish(ctx, res, page, 'cancelled');
    }
    return save(ctx, res, page, input, baseUrlOf(req, deps));
  });
  returnRoute(router, ctx, only);

  router.post('/pay/:token/challenge/', only, formBody({ json: true }), async (req, res) => {
    const page = await loadHosted(savePage, ctx, req);
    if (!page) return notFound(ctx, req, res);
    const read = await readChallengeAnswer(ctx, req, page);
    if ('refused' in read) return respond(ctx, res, page, refusedView(read.refused));
    const outcome = await answerStoreChallenge(scopedDeps(deps, req), { authorization: page.row, answer: read.answer });
    return challengeAnswered(ctx, res, page, read.answer, outcome);
  });
}
