import { type Db, inTransaction } from '../store/db';
import type { Outbox } from '../store/events';
import { expireSaveRequests } from '../store/authorizations';
import { lapsedStoreChallenges } from '../store/saved-cards';
import type { PaymentDeps } from './ask';
import { answerStoreChallenge } from './store-challenge';

// What a customer never came back to ends on its own, swept by the expiry job with the
// service clock (docs/payments.md, "Save a card on the hosted page"): a store's challenge
// left unanswered past STORE_CHALLENGE_MS is closed as the customer leaving it would close
// it, through the same use case as the page's "Back" (a raw card's authorization then
// ends `failed`, a hosted page's is open again, a sign-up's stays open); a hosted page
// nobody gave a card to within SAVE_PAGE_MS ends `expired`. The gateway interface has no
// call for an abandoned challenge (`resume` takes a completed or failed answer only), so
// the gateway is not told: its challenge lapses on its side as well.

/** One round: up to `limit` of each; resolves with how many it closed. */
export async function expireAuthorizations(deps: PaymentDeps, limit = 50): Promise<number> {
  const db = deps.database.db;
  let closed = 0;
  for (const authorization of await lapsedStoreChallenges(db, deps.now(), limit)) {
    const outcome = await answerStoreChallenge(deps, { authorization, answer: 'abandoned' });
    // not_claimed: answered or closed meanwhile (by the page, another process).
    if (outcome.kind === 'abandoned') closed++;
  }
  closed += await expireSavePages(db, deps.now(), deps.outbox, { limit });
  if (closed) deps.log.info({ closed }, 'lapsed challenges and expired save pages closed');
  return closed;
}

/** Hosted save pages past their expiry, ended with `authorization.expired` each (or only `id`): how many. */
export function expireSavePages(db: Db, now: Date, outbox: Outbox, o: { limit: number; id?: string }): Promise<number> {
  return inTransaction(db, async (trx) => {
    const expired = await expireSaveRequests(trx, now, o);
    for (const id of expired) await outbox.emit(trx, 'authorization.expired', id, now);
    return expired.length;
  });
}
