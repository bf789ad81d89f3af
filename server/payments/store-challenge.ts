import { type Db, inTransaction } from '../store/db';
import type { Outbox } from '../store/events';
import { challengeProcessorId, insertCall, newCall } from '../store/gateway-calls';
import { leaveStoreChallenge, takeStoreChallenge } from '../store/authorizations';
import type { AuthorizationRow } from '../store/schema';
import { type Answer, askGateway, type PaymentDeps } from './ask';
import type { ChallengeAnswer, Gateway, SettledResult } from './gateway';
import { settleStore, type StoreCardOutcome } from './store-card';

// The second half of a challenged store (saving a card): the customer answered the
// issuer's challenge, or left it. As for payments (challenge.ts), answering takes the
// challenge in a conditional write (of two answers, one is sent), then resumes the store
// with a call of its own, so a lost answer is reconciled like any store.

export type StoreChallengeOutcome =
  | StoreCardOutcome
  /** The customer left the challenge: nothing was stored (a hosted page stays open for another card). */
  | { kind: 'abandoned' }
  /** Answered already, lapsed, or the authorization moved on meanwhile. */
  | { kind: 'not_claimed' };

/**
 * The customer left a store's challenge (or let it lapse), once: one the API asked for ends
 * `failed` with its event; a hosted page's is open again for another card, and says nothing.
 */
export function leaveChallenge(db: Db, row: AuthorizationRow, now: Date, outbox: Outbox): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await leaveStoreChallenge(trx, row, now))) return false;
    if (row.hosted_page !== 1) await outbox.emit(trx, 'authorization.failed', row.id, now);
    return true;
  });
}

export async function answerStoreChallenge(
  deps: PaymentDeps,
  p: { authorization: AuthorizationRow; answer: ChallengeAnswer | 'abandoned' },
): Promise<StoreChallengeOutcome> {
  const { authorization: row } = p;
  const db = deps.database.db;
  if (p.answer === 'abandoned') return (await leaveChallenge(db, row, deps.now(), deps.outbox)) ? { kind: 'abandoned' } : { kind: 'not_claimed' };
  const gateway = (await deps.gateways.of(row.environment_id)).find(row);
  const resume = gateway?.resume?.bind(gateway);
  const challenge = row.gateway_challenge;
  if (!gateway || !resume || !challenge) return { kind: 'gateway_failed' };
  const answer = p.answer;
  return settleChallenge(deps, row, gateway, (reference) => askGateway(deps, gateway, (signal) => resume({ reference, signal, challenge, answer })));
}

/**
 * The processor's own signed word on a challenged store (Redsys's notification, which alone
 * carries the stored card): recorded as the answer of the store that takes the challenge,
 * once, as a resume's would be. `not_claimed` when it was answered, left or lapsed before.
 */
export async function storeNotified(deps: PaymentDeps, row: AuthorizationRow, gateway: Gateway, told: SettledResult): Promise<StoreChallengeOutcome> {
  return settleChallenge(deps, row, gateway, async () => ({ kind: 'answered', value: told }));
}

/** Takes the challenge (of two answers, one goes on), then records what `ask` says with a store call of its own. */
async function settleChallenge(
  deps: PaymentDeps,
  row: AuthorizationRow,
  gateway: Gateway,
  ask: (reference: string) => Promise<Answer<SettledResult>>,
): Promise<StoreChallengeOutcome> {
  const db = deps.database.db;
  const now = deps.now();
  if (!(await takeStoreChallenge(db, row, now))) return { kind: 'not_claimed' };
  const call = newCall({
    environmentId: row.environment_id,
    gateway,
    kind: 'store',
    subjectId: row.id,
    amount: 0,
    currency: '',
    request: { notify_url: row.notify_url, client_id: row.client_id ?? null },
    now,
    claimMs: deps.config.paymentClaimMs,
    // The processor's id of what the challenged store started, for a lookup of this one.
    processorId: await challengeProcessorId(db, { kind: 'store', subjectId: row.id, gatewayId: gateway.id }),
  });
  await insertCall(db, call);
  return settleStore(deps, call, await ask(call.reference));
}
