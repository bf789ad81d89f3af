import type { Response } from 'express';
import type { ChallengeAnswer } from '../payments/gateway';
import type { StoreChallengeOutcome } from '../payments/store-challenge';
import { type Found, type HostedKind, type HostedOutcome, type HostedPage, reloadHosted, respondHosted } from './hosted-page';
import { type CheckoutContext, type Stepped, stepUrl } from './page';

// The issuer's challenge of a card being stored, as the pages that store one run it: the
// save page (/pay/sav_…/, save-routes.ts) and a subscription's sign-up (/pay/sub_…/,
// signup-routes.ts). One step for both, as the payment page's (challenge-routes.ts): with
// JavaScript the screen's dialog posts the answer as JSON; without it, the challenge is a
// page of its own at `challenge/` whose form posts, and the server sends the customer back
// to the page with `?result=` naming the message to show.

/** The messages a redirect back to the page may ask for (form posts, without JavaScript). */
const STORE_RESULTS = ['error.saveDeclined', 'error.saveAuthFailed', 'error.saveIncomplete', 'error.saveFailed', 'error.saveChecking'] as const;
export type StoreResult = (typeof STORE_RESULTS)[number];

/** The results that are declines (the screen marks the card). */
export const isDecline = (message: StoreResult) => message === 'error.saveDeclined' || message === 'error.saveAuthFailed';

/** The message a redirect back asked for, if it is one of ours. */
export const resultOf = (query: unknown): StoreResult | undefined => STORE_RESULTS.find((key) => key === query);

/** The challenge's step: its own page without JavaScript, the screen's dialog with it. */
export const toChallenge = (page: Stepped): HostedOutcome => ({ kind: 'redirect', location: stepUrl(page, 'challenge/'), redirectKind: 'challenge' });

/** A message on the page: as the JSON answer, or after a redirect for the form (post, redirect, get). */
export async function respondStoreResult<F extends Found>(ctx: CheckoutContext, kind: HostedKind<F>, res: Response, page: HostedPage<F>, message: StoreResult): Promise<void> {
  if (!page.wantsJson) return void res.redirect(303, stepUrl(page, '', { result: message }));
  const shown = await reloadHosted(kind, ctx, page);
  return respondHosted(ctx, kind, res, shown, { kind: 'view', status: 200, declined: isDecline(message), error: { message, fields: {} } });
}

/** What an answered challenge that stored no card comes to, as the page tells the customer. */
export function notStored(answer: ChallengeAnswer | 'abandoned', outcome: Exclude<StoreChallengeOutcome, { kind: 'stored' }>): StoreResult {
  switch (outcome.kind) {
    case 'declined':
      return answer === 'failed' ? 'error.saveAuthFailed' : 'error.saveDeclined';
    case 'abandoned':
    case 'not_claimed':
      return 'error.saveIncomplete';
    case 'pending':
    case 'in_flight':
      return 'error.saveChecking';
    default:
      return 'error.saveFailed';
  }
}
