import type { IRouter, Request } from 'express';
import { scopedDeps } from '../deps';
import { answerChallenge, type ChallengeOutcome } from '../payments/challenge';
import type { ChallengeAnswer } from '../payments/gateway';
import { findChallenge } from '../store/challenges';
import type { PaymentChallengeRow } from '../store/schema';
import { renderChallengePage } from './challenge-page';
import { formBody } from './form-body';
import { readChallengeAnswer } from './challenge-answer';
import { refusedView } from './hosted-page';
import { type Outcome, settled, stateConflict } from './outcome';
import { type CheckoutContext, type Page, stepUrl } from './page';
import { loadPage, notFound, pageView, reload, respond, securePage } from './page-view';

// /pay/{token}/challenge/{id}/: the issuer's challenge as a page of its own (the step
// without JavaScript), and where its answer is posted: as a form from that page, or as
// JSON from the payment screen's dialog. Also what the payment page shows once back.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The messages a return from the challenge's page may ask for; the first two are declines. */
const CHALLENGE_RESULTS = ['error.authenticationFailed', 'error.declined', 'error.insufficientFunds', 'error.authenticationIncomplete', 'error.gatewayFailed'] as const;
const DECLINES: readonly string[] = CHALLENGE_RESULTS.slice(0, 3);

const incomplete = (gatewayId: string): Outcome => ({ kind: 'view', status: 200, chosenGateway: gatewayId, error: { message: 'error.authenticationIncomplete', fields: {} } });

/** What a challenge came to, as the payment page shows it (JSON answer, or the page after the full-page step). */
async function challengeAnswered(ctx: CheckoutContext, page: Page, gatewayId: string, answer: ChallengeAnswer | 'abandoned', outcome: ChallengeOutcome): Promise<Outcome> {
  const gateway = page.gateways.find(gatewayId)!;
  if (outcome.kind === 'abandoned') return incomplete(gatewayId);
  if (outcome.kind === 'not_claimed') {
    // Answered already, expired, or the transaction moved on meanwhile.
    const { row } = await reload(ctx, page);
    return row.status === 'N' ? incomplete(gatewayId) : stateConflict(ctx, page, null);
  }
  if (outcome.kind === 'declined' && answer === 'failed') {
    return { kind: 'view', status: 200, chosenGateway: gatewayId, declined: true, error: { message: 'error.authenticationFailed', fields: {} } };
  }
  return settled(ctx, page, gateway, outcome);
}

/**
 * Back from the challenge's full-page step: `?challenge=<id>&result=<what the page
 * showed>`. Only which message to show: the payment's state comes from the database.
 */
export async function challengeReturn(ctx: CheckoutContext, page: Page, query: Request['query']): Promise<Outcome | null> {
  if (typeof query.challenge !== 'string' || !UUID.test(query.challenge)) return null;
  const challenge = await findChallenge(ctx.db, page.row.id, query.challenge);
  if (!challenge) return null;
  const message = CHALLENGE_RESULTS.find((key) => key === query.result);
  if (!message) return { kind: 'view', status: 200, chosenGateway: challenge.gateway_id };
  return { kind: 'view', status: 200, chosenGateway: challenge.gateway_id, declined: DECLINES.includes(message), error: { message, fields: {} } };
}

async function loadChallenge(ctx: CheckoutContext, req: Request): Promise<{ page: Page; challenge: PaymentChallengeRow } | { page: Page | null; challenge: null }> {
  const page = await loadPage(ctx, req);
  const id = String(req.params.id);
  if (!page || !UUID.test(id)) return { page, challenge: null };
  return { page, challenge: (await findChallenge(ctx.db, page.row.id, id)) ?? null };
}

export function challengeRoutes(router: IRouter, ctx: CheckoutContext): void {
  const { deps } = ctx;
  router.post('/pay/:token/challenge/:id/', formBody({ json: true }));

  router.get('/pay/:token/challenge/:id/', async (req, res) => {
    const { page, challenge } = await loadChallenge(ctx, req);
    if (!page || !challenge) return notFound(ctx, req, res);
    // Answered, expired or left already, or the payment moved on: back to the payment.
    if (challenge.state !== 'open' || page.row.status !== 'N' || Date.parse(challenge.expires_at) <= deps.now().getTime()) {
      return res.redirect(303, stepUrl(page, '', { challenge: challenge.id, result: 'error.authenticationIncomplete' }));
    }
    securePage(res, page);
    res.type('html').send(renderChallengePage(await pageView(ctx, page), ctx.screenAssets()));
  });

  router.post('/pay/:token/challenge/:id/', async (req, res) => {
    const { page, challenge } = await loadChallenge(ctx, req);
    if (!page || !challenge) return notFound(ctx, req, res);
    const read = await readChallengeAnswer(ctx, req, page);
    if ('refused' in read) return respond(ctx, res, page, refusedView(read.refused));
    const { answer } = read;
    const outcome = await answerChallenge(scopedDeps(deps, req), { transaction: page.row, challenge, answer, language: page.language });
    const shown = await challengeAnswered(ctx, page, challenge.gateway_id, answer, outcome);
    if (page.wantsJson || shown.kind !== 'view') return respond(ctx, res, page, shown);
    // The form's answer: back to the payment page, which shows what came of it (post, redirect, get).
    const message = shown.error?.message;
    const back: Record<string, string> = { challenge: challenge.id };
    if (message) back.result = message;
    if (shown.justFinished) back.finished = '1';
    res.redirect(303, stepUrl(page, '', back));
  });
}
