import type { ExpressionBuilder } from 'kysely';
import { secureRandomBytes } from '../domain/random';
import { type Db, inTransaction, type Tx } from './db';
import { type GatewayCall, insertCall, type RowGateway, settleCall } from './gateway-calls';
import { claimEach } from './locking';
import type { AuthorizationRow, Tables } from './schema';

// Who writes authorizations? This module alone (WRITERS in eslint.config.js): a stored
// card's row (inserted, filled in as the gateway stored it, failed, reopened, removed,
// moved on by a charge), a charge's reservation of an active one, and the hosted save page's
// steps (docs/payments.md, "Save a card on the hosted page"): the issuer's challenge opened,
// taken for its answer or left, a page past its expiry ended. The steps two processes may
// race for are conditional UPDATEs, so one of them takes it. The flows that call them
// stay where they were (payments/store-card.ts, store-challenge.ts, charge.ts,
// authorization-removal.ts, authorization-expiry.ts; store/saved-cards.ts the page's reads).

/** How long a customer has to answer the challenge of a store, as for payments (store/challenges.ts). */
const STORE_CHALLENGE_MS = 15 * 60_000;

/** How long a hosted page waits for its customer's card: as long as a transaction's default expiry. */
export const SAVE_PAGE_MS = 7 * 24 * 60 * 60_000;

/** What begins a save-card page's token: it keeps them apart from transactions' (no prefix) on `/pay/`. */
export const SAVE_TOKEN_PREFIX = 'sav_';
/** The hosted page's token: the prefix and 24 random bytes, URL-safe (so the page never mistakes it for a payment's). */
export const newSaveToken = () => `${SAVE_TOKEN_PREFIX}${secureRandomBytes(24).toString('base64url')}`;

export async function insertAuthorization(trx: Tx, row: AuthorizationRow): Promise<void> {
  await trx.insertInto('authorizations').values(row).execute();
}

/**
 * A stored card's authorization as the gateway stored it: the row shown while its outcome
 * was unknown (or while it waited for its customer or the issuer's challenge, or a hosted
 * page that expired meanwhile: the gateway stored the card, so the record says so) becomes
 * it, or it is inserted.
 */
export async function writeStoredCard(trx: Tx, row: AuthorizationRow): Promise<void> {
  const { id, created_at: _, ...stored } = row;
  const waiting = ['pending', 'requires_action', 'expired'] as const;
  const filled = await trx.updateTable('authorizations').set(stored).where('id', '=', id).where('status', 'in', waiting).executeTakeFirst();
  if (Number(filled.numUpdatedRows) === 0) await trx.insertInto('authorizations').values(row).execute();
}

/** pending or requires_action → failed, unless it is a hosted page's; false when it matched nothing. */
export async function failAuthorization(trx: Tx, id: string, now: Date): Promise<boolean> {
  const failed = await trx
    .updateTable('authorizations')
    .set({ status: 'failed', gateway_challenge: null, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'requires_action'])
    .where('hosted_page', '=', 0)
    .executeTakeFirst();
  return Number(failed.numUpdatedRows) === 1;
}

/** requires_action → pending: a hosted page's authorization waits for another card. */
export async function reopenAuthorization(trx: Tx, id: string, now: Date): Promise<void> {
  await trx.updateTable('authorizations').set({ status: 'pending', gateway_challenge: null, updated_at: now.toISOString() }).where('id', '=', id).where('status', '=', 'requires_action').execute();
}

export async function markAuthorizationRemoved(trx: Tx, id: string, now: Date): Promise<void> {
  await trx.updateTable('authorizations').set({ status: 'removed', updated_at: now.toISOString() }).where('id', '=', id).execute();
}

/** The authorization moved on by a charge (updated_at), as that leaves it. */
export async function touchAuthorization(trx: Tx, id: string, now: Date): Promise<AuthorizationRow> {
  return (await trx.updateTable('authorizations').set({ updated_at: now.toISOString() }).where('id', '=', id).returningAll().executeTakeFirst())!;
}

/**
 * Reserves a charge of an authorization: only an active one (a no-op UPDATE that only an
 * active one matches, which also orders it against a concurrent remove), with its call.
 */
export async function reserveCharge(db: Db, call: GatewayCall): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const active = await trx
      .updateTable('authorizations')
      .set((eb) => ({ status: eb.ref('status') }))
      .where('id', '=', call.subject_id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(active.numUpdatedRows) !== 1) return false;
    await insertCall(trx, call);
    return true;
  });
}

/**
 * The gateway answered a store with the issuer's challenge: the call ends (nothing was
 * stored), and the authorization waits for the customer (`requires_action`), all at once.
 * A hosted page's authorization already exists; one the API asked for is created here,
 * with a token for the page that shows the challenge. null when settled elsewhere.
 * The call keeps what the processor started (`processorId`, for the resumed store's lookup)
 * and, in `request`, where the customer is sent: written by the statement that ends it, as
 * a separate write before it left the call pending and claimable, and reconciliation then
 * ended the processor's page under the customer.
 */
export async function openStoreChallenge(
  db: Db,
  c: {
    callId: string;
    authorizationId: string;
    environmentId: string;
    gateway: RowGateway;
    notifyUrl: string | null;
    gatewayChallenge: string;
    returnUrl: string | null;
    cancelUrl: string | null;
    processorId: string | null;
    request?: Record<string, unknown>;
  },
  now: Date,
): Promise<AuthorizationRow | null> {
  return inTransaction(db, async (trx) => {
    if (!(await settleCall(trx, c.callId, ['pending'], 'failed', now, { processorId: c.processorId, ...(c.request ? { request: c.request } : {}) }))) return null;
    const at = now.toISOString();
    const challenge = { status: 'requires_action' as const, gateway_challenge: c.gatewayChallenge, challenge_expires_at: new Date(now.getTime() + STORE_CHALLENGE_MS).toISOString(), updated_at: at };
    const opened = await trx.updateTable('authorizations').set(challenge).where('id', '=', c.authorizationId).where('status', '=', 'pending').executeTakeFirst();
    if (Number(opened.numUpdatedRows) === 0) {
      await trx
        .insertInto('authorizations')
        .values({
          id: c.authorizationId,
          environment_id: c.environmentId,
          transaction_id: null,
          gateway_id: c.gateway.id,
          gateway_account: c.gateway.account ?? null,
          card_brand: null,
          card_last4: null,
          card_exp_month: null,
          card_exp_year: null,
          gateway_reference: '',
          notify_url: c.notifyUrl,
          token: newSaveToken(),
          return_url: c.returnUrl,
          cancel_url: c.cancelUrl,
          hosted_page: 0,
          created_at: at,
          ...challenge,
        })
        .execute();
    }
    return (await trx.selectFrom('authorizations').selectAll().where('id', '=', c.authorizationId).executeTakeFirst()) ?? null;
  });
}

/**
 * Takes the open, unexpired challenge for its answer: of two answers, one is sent. The
 * authorization stays `requires_action` until what the gateway answers is recorded.
 */
export async function takeStoreChallenge(db: Db, row: AuthorizationRow, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const taken = await db
    .updateTable('authorizations')
    .set({ gateway_challenge: null, updated_at: at })
    .where('id', '=', row.id)
    .where('status', '=', 'requires_action')
    .where('gateway_challenge', '=', row.gateway_challenge ?? '')
    .where('challenge_expires_at', '>', at)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/**
 * The customer left the challenge (or let it lapse): nothing was stored. A hosted page's
 * authorization is open again for another card; one the API asked for is `failed` (its
 * card could not be authenticated). false when already answered.
 */
export async function leaveStoreChallenge(trx: Tx, row: AuthorizationRow, now: Date): Promise<boolean> {
  const left = await trx
    .updateTable('authorizations')
    .set({ status: row.hosted_page === 1 ? 'pending' : 'failed', gateway_challenge: null, challenge_expires_at: null, updated_at: now.toISOString() })
    .where('id', '=', row.id)
    .where('status', '=', 'requires_action')
    .where('gateway_challenge', 'is not', null)
    .executeTakeFirst();
  return Number(left.numUpdatedRows) === 1;
}

/**
 * A hosted page past SAVE_PAGE_MS whose customer gave no card: still waiting for it, and
 * no store of it in doubt (one the gateway may yet prove made ends as the gateway says).
 */
function saveRequestDue(now: Date) {
  const createdBefore = new Date(now.getTime() - SAVE_PAGE_MS).toISOString();
  return (eb: ExpressionBuilder<Tables, 'authorizations'>) =>
    eb.and([
      eb('status', '=', 'pending'),
      eb('hosted_page', '=', 1),
      eb('created_at', '<=', createdBefore),
      eb.not(
        eb.exists(
          eb
            .selectFrom('gateway_calls')
            .select('gateway_calls.id')
            .whereRef('gateway_calls.subject_id', '=', 'authorizations.id')
            .where('gateway_calls.kind', '=', 'store')
            .where('gateway_calls.state', '=', 'pending'),
        ),
      ),
    ]);
}

/**
 * Ends up to `limit` hosted pages past their expiry (`expired`), or only `id` (the page
 * opened after its expiry): the ids it ended. Each by a conditional write: a card given
 * meanwhile wins. Processes sweeping at once skip each other's rows, as expireDue does.
 */
export async function expireSaveRequests(trx: Tx, now: Date, o: { limit: number; id?: string }): Promise<string[]> {
  const at = now.toISOString();
  const due = saveRequestDue(now);
  let query = trx.selectFrom('authorizations').select('id').where(due);
  if (o.id !== undefined) query = query.where('id', '=', o.id);
  return claimEach(trx, query.limit(o.limit), async ({ id }) => {
    const result = await trx.updateTable('authorizations').set({ status: 'expired', updated_at: at }).where('id', '=', id).where(due).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? id : undefined;
  });
}
