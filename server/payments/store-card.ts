import { uuidv7 } from '../domain/ids';
import { insertStoreCall, newCall, settleCall, type GatewayCall } from '../store/gateway-calls';
import type { AuthorizationRow } from '../store/schema';
import { type Db, inTransaction } from '../store/db';
import type { Outbox } from '../store/events';
import { failAuthorization, openStoreChallenge, reopenAuthorization, writeStoredCard } from '../store/authorizations';
import { getAuthorization } from '../store/sales';
import { getCall } from '../store/unknown-outcomes';
import { type Answer, type PaymentDeps, type Settled } from './ask';
import type { ChallengeRequired, SettledResult, StoringGateway } from './gateway';
import { customerFor } from './processor-customers';
import { checkRedirect, type Checked } from './redirect';
import { type Bound, outcomeUnknown, recordSafely, startStep } from './outcome';
import { CALL_KINDS } from './call-kinds';

// Storing a card without charging it: an authorization the merchant charges later. Its
// outcome follows the one rule of unknown outcomes (docs/payments.md): a store the gateway
// did not answer is an authorization `pending` (its id final) until a lookup, a
// notification or the settle window proves it `active` or `failed`.

export type StoreCardOutcome =
  | { kind: 'stored'; authorization: AuthorizationRow }
  | { kind: 'declined'; reason: string }
  /** The gateway surely did nothing, or refused: nothing stored. */
  | { kind: 'gateway_failed' }
  /** The outcome is unknown: the authorization is `pending` until reconciliation proves it. */
  | { kind: 'pending'; authorization: AuthorizationRow }
  /** It was of unknown outcome, and the gateway proved it did not store it: the authorization is `failed`. */
  | { kind: 'not_stored'; authorization: AuthorizationRow }
  /** The card was stored but could not be recorded: for a person to check. */
  | { kind: 'attention' }
  /** Another process is sending this key's call now. */
  | { kind: 'in_flight'; retryAfterMs: number }
  /** The issuer asks the customer first: the authorization is `requires_action` until its challenge is answered (store-challenge.ts). */
  | { kind: 'challenge'; authorization: AuthorizationRow; /** The challenge is the processor's page: where to send the customer. */ redirect?: Checked };

/** What storing a card is given. */
export interface StoreCardInput {
  environmentId: string;
  gateway: StoringGateway;
  fields: Record<string, string>;
  notifyUrl: string | null;
  bound?: Bound;
  /** A hosted page's authorization that the card completes; absent: a new one. */
  authorizationId?: string;
  /** The caller can show the customer the issuer's challenge (see Gateway.store). */
  authenticate?: boolean;
  /** Where the challenge's page sends the customer once done, for a new authorization (the API's). */
  returnUrl?: string | null;
  cancelUrl?: string | null;
  /** The client the card is saved for (clients.id): its processor customer is made once and reused (processor-customers.ts). */
  clientId?: string | null;
  /** The hosted save page: the store call's own return route, and the page's language (Gateway.store). */
  page?: { returnUrl: (reference: string) => string; language: string };
}

export async function storeCard(deps: PaymentDeps, s: StoreCardInput): Promise<StoreCardOutcome> {
  const { gateway } = s;
  const step = await startStep<StoreCardOutcome>(deps, s.bound, {
    current: (call) => currentState(deps, call),
    async reserve() {
      const now = deps.now();
      const call = newCall({
        environmentId: s.environmentId,
        gateway,
        kind: 'store',
        subjectId: s.authorizationId ?? uuidv7(now.getTime()),
        amount: 0,
        currency: '',
        request: { notify_url: s.notifyUrl, client_id: s.clientId ?? null },
        now,
        claimMs: deps.config.paymentClaimMs,
        bound: s.bound,
      });
      // Of two saves of one hosted page at once, one sends its card; the other finds it in flight (or done).
      return (await insertStoreCall(deps.database.db, call)) ? { call } : { done: { kind: 'in_flight', retryAfterMs: 1000 } };
    },
  });
  if ('done' in step) return step.done;
  const { call } = step;
  const customer = await customerFor(deps, gateway, { environmentId: s.environmentId, clientId: s.clientId ?? null });
  if ('failed' in customer) return settleStore(deps, call, { kind: 'not_acted', reason: customer.failed });
  const returnUrl = s.page?.returnUrl(call.reference);
  const input = { fields: s.fields, ...(s.authenticate ? { authenticate: true } : {}), ...(returnUrl ? { returnUrl, language: s.page!.language } : {}), ...customer };
  const answer = await CALL_KINDS.store.send(deps, gateway, call, input);
  if (answer.kind === 'answered' && answer.value.outcome === 'challenge') return openChallenge(deps, s, call, answer.value, returnUrl);
  return settleStore(deps, call, answer as Answer<SettledResult>);
}

/**
 * The issuer (or the processor's own page, `redirect`) asks the customer first: the
 * authorization waits for it. A redirect is checked like a payment's before anyone is sent
 * (payments/redirect.ts) and kept on the call, for the page to send the customer there again.
 */
async function openChallenge(deps: PaymentDeps, s: StoreCardInput, call: GatewayCall, challenge: ChallengeRequired, returnUrl: string | undefined): Promise<StoreCardOutcome> {
  const db = deps.database.db;
  const checked = challenge.redirect ? (returnUrl ? checkRedirect(s.gateway, challenge.redirect, new URL(returnUrl).origin) : { refused: 'a redirect without a page to return to' }) : null;
  if (checked && 'refused' in checked) {
    deps.log.error({ call: call.id, gateway: s.gateway.code, why: checked.refused }, 'gateway redirect not followed: nothing stored');
    return settleStore(deps, call, { kind: 'not_acted', reason: checked.refused });
  }
  const opened = await openStoreChallenge(
    db,
    {
      callId: call.id,
      authorizationId: call.subject_id,
      environmentId: call.environment_id,
      gateway: s.gateway,
      notifyUrl: s.notifyUrl,
      gatewayChallenge: challenge.challenge,
      returnUrl: s.returnUrl ?? null,
      cancelUrl: s.cancelUrl ?? null,
      // What the processor started, for the store that resumes it to be looked up by (store-challenge.ts); where the customer goes (store-away.ts).
      processorId: challenge.processorId ?? null,
      ...(checked ? { request: { ...call.request, redirect: checked.to } } : {}),
    },
    deps.now(),
  );
  if (!opened) return currentState(deps, call);
  return checked ? { kind: 'challenge', authorization: opened, redirect: checked.to } : { kind: 'challenge', authorization: opened };
}

/** Records what the gateway answered a store (or the resume of its challenge), and what that comes to. */
export async function settleStore(deps: PaymentDeps, call: GatewayCall, answer: Answer<SettledResult>): Promise<StoreCardOutcome> {
  if (answer.kind === 'unknown') return currentState(deps, await outcomeUnknown(deps, call, answer.error));
  if (answer.kind === 'not_acted') {
    // Nothing was stored; a store's challenge ends with it (a hosted page's authorization stays open).
    await CALL_KINDS.store.release(deps, call);
    return { kind: 'gateway_failed' };
  }
  const r = answer.value;
  const authentication = r.authentication ? { authentication: r.authentication } : {};
  const settled: Settled =
    r.outcome === 'approved' ? { status: 'succeeded', reference: r.reference, card: r.card, ...authentication } : { status: 'failed', reason: r.outcome, card: r.card, ...authentication };
  const recorded = await recordSafely(deps, call, settled, () => recordStoredCardResult(deps, call, settled));
  if (recorded.kind === 'recorded' && recorded.value) return { kind: 'stored', authorization: recorded.value };
  if (recorded.kind === 'attention') return recorded;
  if (r.outcome !== 'approved' && recorded.kind === 'recorded') return { kind: 'declined', reason: r.outcome };
  return currentState(deps, call);
}

/** What a store call has come to: for a repeat of its key, or a call settled elsewhere. */
async function currentState(deps: PaymentDeps, call: GatewayCall): Promise<StoreCardOutcome> {
  const db = deps.database.db;
  const fresh = (await getCall(db, call.id)) ?? call;
  const authorization = await getAuthorization(db, null, fresh.subject_id);
  if (fresh.state === 'attention') return { kind: 'attention' };
  if (!authorization) return fresh.state === 'pending' ? { kind: 'in_flight', retryAfterMs: 1000 } : { kind: 'gateway_failed' };
  // Its challenge already answered, the resumed store not yet proven: in doubt, as any store.
  if (authorization.status === 'requires_action') return authorization.gateway_challenge ? { kind: 'challenge', authorization } : { kind: 'pending', authorization };
  if (authorization.status === 'pending') return { kind: 'pending', authorization };
  if (authorization.status === 'failed') return { kind: 'not_stored', authorization };
  return { kind: 'stored', authorization };
}

/** Records what the gateway did for a store call: from the live request, or from reconciliation. */
export async function recordStoredCardResult(deps: PaymentDeps, call: GatewayCall, s: Settled): Promise<AuthorizationRow | null> {
  const now = deps.now();
  if (s.status === 'failed') {
    await failStoredCard(deps.database.db, call, now, deps.outbox);
    return null;
  }
  const at = now.toISOString();
  const row: AuthorizationRow = {
    // The id chosen at reservation, so a late record names the same object.
    id: call.subject_id,
    environment_id: call.environment_id,
    transaction_id: null,
    gateway_id: call.gateway_id,
    gateway_account: call.gateway_account,
    status: 'active',
    card_brand: s.card?.brand ?? null,
    card_last4: s.card?.last4 ?? null,
    card_exp_month: s.card?.expMonth ?? null,
    card_exp_year: s.card?.expYear ?? null,
    gateway_reference: s.reference,
    notify_url: (call.request.notify_url as string | null | undefined) ?? null,
    gateway_challenge: null,
    challenge_expires_at: null,
    // As a sale records it: how the issuer authenticated the cardholder (at a challenge, frictionless), or null.
    authentication_status: s.authentication?.status ?? null,
    authentication_method: s.authentication?.method ?? null,
    client_id: (call.request.client_id as string | null | undefined) ?? null,
    created_at: at,
    updated_at: at,
  };
  return (await recordStoredCard(deps.database.db, call.id, row, deps.outbox, now)) ? row : null;
}

/** A stored card: the authorization, its event and its call's success, once (false: recorded elsewhere). */
function recordStoredCard(db: Db, callId: string, row: AuthorizationRow, outbox: Outbox, now: Date): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await settleCall(trx, callId, ['pending'], 'succeeded', now, { resultId: row.id, processorId: row.gateway_reference }))) return false;
    await writeStoredCard(trx, row);
    await outbox.emit(trx, 'authorization.created', row.id, now);
    return true;
  });
}

/**
 * The gateway did not store the card: the call failed and, if it was shown as a pending
 * authorization (or one waiting for its challenge), that one ends `failed` with its event;
 * a hosted page's goes back to `pending` for another card. false when settled elsewhere.
 */
export function failStoredCard(db: Db, call: { id: string; subject_id: string }, now: Date, outbox: Outbox): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await settleCall(trx, call.id, ['pending'], 'failed', now))) return false;
    if (await failAuthorization(trx, call.subject_id, now)) await outbox.emit(trx, 'authorization.failed', call.subject_id, now);
    // A hosted page's authorization stays open: its customer may give another card.
    else await reopenAuthorization(trx, call.subject_id, now);
    return true;
  });
}
