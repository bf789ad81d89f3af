import { uuidv7 } from '../domain/ids';
import { insertAuthorization, newSaveToken, SAVE_TOKEN_PREFIX } from './authorizations';
import { type Db, inTransaction } from './db';
import type { RowGateway } from './gateway-calls';
import { MERCHANT_COLUMNS, type Merchant, splitMerchant } from './environments';
import { cardlessAuthorization } from './sales';
import type { AuthorizationRow } from './schema';

// Saving a card without touching it (docs/payments.md, "Save a card on the hosted page"):
// an authorization that waits for its customer on the hosted page `/pay/sav_…/`, and the
// issuer's challenge a store may ask for (`requires_action`). What the gateway finally
// answers is recorded as any store is (payments/store-card.ts: recordStoredCard, failStoredCard).
// The authorization's writes (the challenge opened, taken, left; a page's expiry) are
// authorizations.ts's, its table's one writer.

export const SAVE_TOKEN = new RegExp(`^${SAVE_TOKEN_PREFIX}[A-Za-z0-9_-]{32}$`);

/** POST /v1/authorization/ without a card: a pending authorization whose page takes the card. */
export async function createSaveRequest(
  db: Db,
  r: { environmentId: string; gateway: RowGateway; notifyUrl: string | null; clientId: string | null; returnUrl: string | null; cancelUrl: string | null; now: Date },
): Promise<AuthorizationRow> {
  const at = r.now.toISOString();
  const row = cardlessAuthorization({
    id: uuidv7(r.now.getTime()),
    environment_id: r.environmentId,
    gateway_id: r.gateway.id,
    gateway_account: r.gateway.account ?? null,
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
  await inTransaction(db, (trx) => insertAuthorization(trx, row));
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
