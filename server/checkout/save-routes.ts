import type { IRouter, NextFunction, Request, Response } from 'express';
import { validateFields } from '../../widget/fields/card';
import { type DocumentAssets, renderDocument } from '../../widget/screen/document';
import { isLanguage, resolveLanguage } from '../../widget/i18n/language';
import { getTranslator } from '../../widget/i18n/server';
import type { Logger } from 'pino';
import { type Deps, scopedDeps } from '../deps';
import { baseUrlOf } from '../http/route';
import { canStore } from '../payments/gateway';
import { answerStoreChallenge, type StoreChallengeOutcome } from '../payments/store-challenge';
import { storeCard } from '../payments/store-card';
import { findSave, SAVE_PAGE_MS, SAVE_TOKEN, type SavePage, storeInDoubt } from '../store/saved-cards';
import { expireSavePages } from '../payments/authorization-expiry';
import { leaveChallenge } from '../payments/store-challenge';
import { testCardErrors } from '../payments/live';
import { brandView } from './brand';
import { renderChallengePage } from './challenge-page';
import { csrfToken, sameOriginPost, validCsrf } from './csrf';
import { formBody, formBodyFailure } from './form-body';
import { addressLimit } from './limits';
import { type CheckoutContext, checkoutContext, stepUrl } from './page';
import { fromForm, payRequest, type PayRequest } from './pay-request';
import { buildSaveView, type SaveViewInput } from './save-view';
import { refusedEmbed } from './embed-refusal';
import { notFound } from './page-view';
import { allowedFrameOrigins, applyPageHeaders, newNonce, redirectOrigins } from './security';
import { isDecline, notStored, resultOf, type StoreResult, toChallenge } from './store-step';
import { outcomeStrings } from '../../widget/screen/client-strings';
import { type ChallengeAnswerPosted, readChallengeAnswer } from './challenge-answer';
import { keptValues } from './view-model';

// Saving a card without touching it: the hosted page at /pay/sav_…/ that
// `POST /v1/authorization/` without a card answers with (and the page a raw-card
// authorization's challenge runs on). The payment screen at the URL the widget already
// frames, so it embeds unchanged. Same protocol as the payment page: HTML without
// JavaScript (the form posts, the server redirects), JSON for the hydrated screen; the
// challenge as a page of its own at challenge/ (a dialog once hydrated).

interface Page extends SavePage {
  language: SaveViewInput['language'];
  embed: { parentOrigin: string } | null;
  frameAncestors: string[];
  wantsJson: boolean;
  /** The request's logger, for the use cases the answer calls (scopedDeps). */
  readonly log: Logger;
}

type Extra = Pick<SaveViewInput, 'justFinished' | 'cancelled' | 'declined' | 'confirmCancel' | 'error' | 'values'>;

const urlsOf = (row: SavePage['row']) => ({ return_url: row.return_url ?? null, cancel_url: row.cancel_url ?? null });

/** The authorization a request names, as checkout/page.ts reads a payment. */
async function loadPage(ctx: CheckoutContext, req: Request): Promise<Page | null> {
  const token = String(req.params.token);
  const found = SAVE_TOKEN.test(token) ? await findSave(ctx.db, token) : undefined;
  if (!found) return null;
  // A challenge the customer let lapse is over: as if they had left it.
  const lapsed = found.row.status === 'requires_action' && found.row.gateway_challenge && Date.parse(found.row.challenge_expires_at ?? '') <= ctx.deps.now().getTime();
  if (lapsed && (await leaveChallenge(ctx.db, found.row, ctx.deps.now(), ctx.deps.outbox))) return loadPage(ctx, req);
  // Past its expiry with no card given: it ends here if the expiry job has not ended it yet.
  const expired = found.row.status === 'pending' && found.row.hosted_page === 1 && Date.parse(found.row.created_at) + SAVE_PAGE_MS <= ctx.deps.now().getTime();
  if (expired && (await expireSavePages(ctx.db, ctx.deps.now(), ctx.deps.outbox, { limit: 1, id: found.row.id }))) return loadPage(ctx, req);
  const requested = typeof req.query.lang === 'string' && isLanguage(req.query.lang) ? req.query.lang : null;
  const language = requested ?? resolveLanguage(null, req.get('accept-language'));
  const allowed = allowedFrameOrigins(found.merchant.allowedOrigins, urlsOf(found.row));
  const origin = req.query.embed === '1' && typeof req.query.origin === 'string' ? req.query.origin : null;
  // Unknown origins get no embed mode and frame-ancestors 'none': the browser refuses to show it.
  const embed = origin !== null && allowed.includes(origin) ? { parentOrigin: origin } : null;
  const wantsJson = req.is('application/json') === 'application/json';
  return { ...found, language, embed, frameAncestors: embed ? allowed : [], wantsJson, get log() { return req.log; } };
}

async function view(ctx: CheckoutContext, page: Page, extra: Extra = {}) {
  const built = buildSaveView({
    row: page.row,
    merchantName: page.merchant.name,
    language: page.language,
    csrf: csrfToken(await ctx.csrfSecret(), page.row.token!),
    now: ctx.deps.now(),
    embed: page.embed,
    gateway: ctx.deps.gateways.find(page.row.gateway_id),
    ...extra,
  });
  return { ...built, brand: brandView(page.row.environment_id, page.merchant.brand), sandbox: page.merchant.sandbox };
}

function secure(res: Response, page: Page): string {
  const nonce = newNonce();
  applyPageHeaders(res, { nonce, frameAncestors: page.frameAncestors, formTargets: redirectOrigins(urlsOf(page.row)) });
  return nonce;
}

async function show(ctx: CheckoutContext, res: Response, page: Page, status: number, extra: Extra = {}) {
  const nonce = secure(res, page);
  const v = await view(ctx, page, extra);
  if (page.wantsJson) return void res.status(status).json({ outcome: 'view', view: v, strings: outcomeStrings(page.language, 'save') });
  const title = getTranslator(page.language).t('save.title', { merchant: page.merchant.name });
  res.status(status).type('html').send(renderDocument({ view: v, nonce, assets: ctx.screenAssets(), title }));
}

/** Re-reads the authorization so the answer shows the state the write produced. */
async function reload(ctx: CheckoutContext, page: Page): Promise<Page> {
  const found = await findSave(ctx.db, page.row.token!);
  return found ? { ...page, row: found.row } : page;
}

/** Redirects as for transactions: to return_url / cancel_url, except in the widget's frame (it reports the result). */
async function finish(ctx: CheckoutContext, res: Response, page: Page, kind: 'completed' | 'cancelled') {
  const url = kind === 'completed' ? page.row.return_url : page.row.cancel_url;
  if (url && !page.embed) {
    secure(res, page);
    if (page.wantsJson) {
      const shown = kind === 'completed' ? { view: await view(ctx, page) } : {};
      return void res.json({ outcome: 'redirect', location: url, kind, ...shown, strings: outcomeStrings(page.language, 'save') });
    }
    return void res.redirect(303, url);
  }
  return show(ctx, res, page, 200, { justFinished: page.embed !== null, cancelled: kind === 'cancelled' });
}

/** A message on the page: as the JSON answer, or after a redirect for the form (post, redirect, get). */
async function result(ctx: CheckoutContext, res: Response, page: Page, message: StoreResult) {
  if (!page.wantsJson) return void res.redirect(303, stepUrl(page, '', { result: message }));
  return show(ctx, res, await reload(ctx, page), 200, { declined: isDecline(message), error: { message, fields: {} } });
}

/** Stores the card on the page's authorization; answers what came of it. */
async function save(ctx: CheckoutContext, res: Response, page: Page, input: PayRequest) {
  const deps = scopedDeps(ctx.deps, page);
  const gateway = deps.gateways.find(page.row.gateway_id);
  if (!gateway?.enabled || !canStore(gateway) || input.gateway !== gateway.id) {
    return show(ctx, res, page, 400, { error: { message: 'error.gatewayRequired', fields: { gateway: 'error.gatewayRequired' } } });
  }
  const fieldErrors = { ...validateFields(gateway.fields, input.fields, deps.now()), ...testCardErrors(!page.merchant.sandbox, input.fields) };
  if (Object.keys(fieldErrors).length) {
    return show(ctx, res, page, 400, { error: { message: 'error.fieldsInvalid', fields: fieldErrors }, values: keptValues(gateway.fields, input.fields) });
  }
  // One card at a time: a store whose outcome is unknown may still become this authorization.
  if (await storeInDoubt(ctx.db, page.row.id)) return result(ctx, res, page, 'error.saveChecking');
  const stored = await storeCard(deps, { environmentId: page.row.environment_id, gateway, fields: input.fields, notifyUrl: page.row.notify_url, authorizationId: page.row.id, authenticate: true });
  switch (stored.kind) {
    case 'stored':
      deps.log.info({ authorization: page.row.id, gateway: gateway.code, brand: stored.authorization.card_brand }, 'card saved on the hosted page');
      return finish(ctx, res, await reload(ctx, page), 'completed');
    case 'challenge':
      return toChallenge(res, page, 'save');
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

/** The form's CSRF token and the browser's own headers, as the payment page checks them. */
async function trusted(ctx: CheckoutContext, req: Request, page: Page, csrf: string | undefined): Promise<boolean> {
  return sameOriginPost(req, baseUrlOf(req, ctx.deps)) && validCsrf(await ctx.csrfSecret(), page.row.token!, csrf);
}

function getRoutes(router: IRouter, ctx: CheckoutContext, only: (req: Request, res: Response, next: NextFunction) => void) {
  router.get('/pay/:token/', only, async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    if (refusedEmbed(req, res, page, ctx.screenAssets())) return;
    // The customer has a challenge to answer (an API request's card, or a card given here).
    if (page.row.status === 'requires_action' && page.row.gateway_challenge) return res.redirect(303, stepUrl(page, 'challenge/'));
    const message = resultOf(req.query.result);
    const open = page.row.status === 'pending';
    await show(ctx, res, page, 200, message && open ? { declined: isDecline(message), error: { message, fields: {} } } : {});
  });

  router.get('/pay/:token/challenge/', only, async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    // Answered, lapsed or left already: back to the page, which shows where it stands.
    if (page.row.status !== 'requires_action' || !page.row.gateway_challenge) return res.redirect(303, stepUrl(page, ''));
    secure(res, page);
    res.type('html').send(renderChallengePage(await view(ctx, page), ctx.screenAssets()));
  });
}

/** Declared on the app before the checkout's routes; any other token goes on to them. */
export function saveRoutes(router: IRouter, deps: Deps, screenAssets: () => DocumentAssets): void {
  const ctx = checkoutContext(deps, screenAssets);
  // Transaction tokens never start with `sav_` (they are 32 base64url characters): one
  // string test, and the other pages' routes take everything else.
  const only = (req: Request, _res: Response, next: NextFunction) => next(String(req.params.token).startsWith('sav_') ? undefined : 'route');
  getRoutes(router, ctx, only);

  router.post('/pay/:token/', only, addressLimit(deps, 'save', screenAssets), formBody({ json: true }), async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    const unreadable = formBodyFailure(req);
    if (unreadable) return show(ctx, res, page, unreadable, { error: { message: 'error.generic', fields: {} } });
    const parsed = payRequest.safeParse(page.wantsJson ? { ...req.body, csrf: req.get('x-csrf-token') } : fromForm(req.body ?? {}));
    if (!parsed.success) return show(ctx, res, page, 400, { error: { message: 'error.generic', fields: {} } });
    const input = parsed.data;
    if (!(await trusted(ctx, req, page, input.csrf))) return show(ctx, res, page, 403, { error: { message: 'error.session', fields: {} } });
    if (page.row.status === 'requires_action' && page.row.gateway_challenge) return toChallenge(res, page, 'save');
    if (page.row.status !== 'pending' || page.row.hosted_page !== 1) return show(ctx, res, page, 409);
    if (input.action === 'cancel') {
      // One click must not end it: without JavaScript the page asks first. The link keeps working.
      if (!page.wantsJson && input.confirm !== '1') return show(ctx, res, page, 200, { confirmCancel: true });
      return finish(ctx, res, page, 'cancelled');
    }
    return save(ctx, res, page, input);
  });

  router.post('/pay/:token/challenge/', only, formBody({ json: true }), async (req, res) => {
    const page = await loadPage(ctx, req);
    if (!page) return notFound(ctx, req, res);
    const read = await readChallengeAnswer(req, page, (csrf) => trusted(ctx, req, page, csrf));
    if ('refused' in read) return show(ctx, res, page, read.refused.status, { error: { message: read.refused.message, fields: {} } });
    const outcome = await answerStoreChallenge(scopedDeps(deps, req), { authorization: page.row, answer: read.answer });
    return challengeAnswered(ctx, res, page, read.answer, outcome);
  });
}
