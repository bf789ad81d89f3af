import { uuidv7 } from '../domain/ids';
import { secureRandomBytes } from '../domain/random';
import type { ExpressionBuilder } from 'kysely';
import { type Db, inTransaction, type Tx } from './db';
import { claimEach } from './locking';
import { MERCHANT_COLUMNS, type Merchant, splitMerchant } from './environments';
import { settleCall } from './gateway-calls';
import { cardlessAuthorization } from './sales';
import type { AuthorizationRow, Tables } from './schema';

// Saving a card without touching it (docs/payments.md, "Save a card on the hosted page"):
// an authorization that waits for its customer on the hosted page `/pay/sav_…/`, and the
// issuer's challenge a store may ask for (`requires_action`). What the gateway finally
// answers is recorded as any store is (payments/store-card.ts: recordStoredCard, failStoredCard).

/** How long a customer has to answer the challenge of a store, as for payments (store/challenges.ts). */
const STORE_CHALLENGE_MS = 15 * 60_000;

/** How long a hosted page waits for its customer's card: as long as a transaction's default expiry. */
export const SAVE_PAGE_MS = 7 * 24 * 60 * 60_000;

/** The hosted page's token: `sav_` and 24 random bytes, URL-safe (so the page never mistakes it for a payment's). */
const newSaveToken = () => `sav_${secureRandomBytes(24).toString('base64url')}`;

export const SAVE_TOKEN = /^sav_[A-Za-z0-9_-]{32}$/;

/** POST /v1/authorization/ without a card: a pending authorization whose page takes the card. */
export async function createSaveRequest(
  db: Db,
  r: { environmentId: string; gatewayId: string; notifyUrl: string | null; clientId: string | null; returnUrl: string | null; cancelUrl: string | null; now: Date },
): Promise<AuthorizationRow> {
  const at = r.now.toISOString();
  const row = cardlessAuthorization({
    id: uuidv7(r.now.getTime()),
    environment_id: r.environmentId,
    gateway_id: r.gatewayId,
    notify_url: r.notifyUrl,
    token: newSaveToken(),
    return_url: r.returnUrl,
    cancel_url: r.cancelUrl,
    hosted_page: 1,
    client_id: r.clientId,
    gateway_challenge: null,
    challenge_expires_at: null,
    created_at: at,
    updated_at: at,
  });
  await inTransaction(db, (trx) => trx.insertInto('authorizations').values(row).execute());
  return row;
}

export interface SavePage {
  row: AuthorizationRow;
  merchant: Merchant;
}

/** The authorization a hosted page's token names, with the merchant it is for. */
export async function findSave(db: Db, token: string): Promise<SavePage | undefined> {
  const found = await db
    .selectFrom('authorizations')
    .innerJoin('environments', 'environments.id', 'authorizations.environment_id')
    .selectAll('authorizations')
    .select(MERCHANT_COLUMNS)
    .where('authorizations.token', '=', token)
    .executeTakeFirst();
  if (!found) return undefined;
  return splitMerchant(found);
}

/** A store of this authorization whose outcome is not known yet: the page takes no other card meanwhile. */
export async function storeInDoubt(db: Db, authorizationId: string): Promise<boolean> {
  const call = await db
    .selectFrom('gateway_calls')
    .select('id')
    .where('subject_id', '=', authorizationId)
    .where('kind', '=', 'store')
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return call !== undefined;
}

/**
 * The gateway answered a store with the issuer's challenge: the call ends (nothing was
 * stored), and the authorization waits for the customer (`requires_action`), all at once.
 * A hosted page's authorization already exists; one the API asked for is created here,
 * with a token for the page that shows the challenge. null when settled elsewhere.
 */
export async function openStoreChallenge(
  db: Db,
  c: {
    callId: string;
    authorizationId: string;
    environmentId: string;
    gatewayId: string;
    notifyUrl: string | null;
    gatewayChallenge: string;
    returnUrl: string | null;
    cancelUrl: string | null;
  },
  now: Date,
): Promise<AuthorizationRow | null> {
  return inTransaction(db, async (trx) => {
    if (!(await settleCall(trx, c.callId, ['pending'], 'failed', now))) return null;
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
          gateway_id: c.gatewayId,
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

/** Challenges of stores nobody answered in time (STORE_CHALLENGE_MS), oldest first, for the expiry job to close. */
export async function lapsedStoreChallenges(db: Db, now: Date, limit: number): Promise<AuthorizationRow[]> {
  return db
    .selectFrom('authorizations')
    .selectAll()
    .where('status', '=', 'requires_action')
    .where('gateway_challenge', 'is not', null)
    .where('challenge_expires_at', '<=', now.toISOString())
    .orderBy('challenge_expires_at')
    .limit(limit)
    .execute();
}

/** Whether the environment's API takes raw card numbers (the `raw_card_numbers` setting). */
export async function rawCardNumbers(db: Db, environmentId: string): Promise<boolean> {
  const row = await db.selectFrom('environments').select('raw_card_numbers').where('id', '=', environmentId).executeTakeFirst();
  return (row?.raw_card_numbers ?? 1) === 1;
}

export async function setRawCardNumbers(db: Db, environmentId: string, on: boolean): Promise<boolean> {
  const set = await inTransaction(db, (trx) => trx.updateTable('environments').set({ raw_card_numbers: on ? 1 : 0 }).where('id', '=', environmentId).executeTakeFirst());
  return Number(set.numUpdatedRows) === 1;
}
