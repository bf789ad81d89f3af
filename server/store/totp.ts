import { type Db, inTransaction } from './db';
import type { UserTotpRow } from './schema';

// Dashboard users' second factor: the authenticator's secret, its recovery codes (hashed),
// and the sign-ins waiting for a code.

export function totpOf(db: Db, userId: string): Promise<UserTotpRow | undefined> {
  return db.selectFrom('user_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** A new unconfirmed secret, replacing an unconfirmed one; false when one is confirmed already. */
export async function startTotp(db: Db, userId: string, secret: string, now: Date): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const existing = await trx.selectFrom('user_totp').select('confirmed_at').where('user_id', '=', userId).executeTakeFirst();
    if (existing?.confirmed_at) return false;
    if (existing) await trx.deleteFrom('user_totp').where('user_id', '=', userId).execute();
    await trx.insertInto('user_totp').values({ user_id: userId, secret, confirmed_at: null, last_step: 0, created_at: now.toISOString() }).execute();
    return true;
  });
}

/**
 * Takes time step `step` for the user's code: only when it is later than the last one taken
 * (a code is good once, even under two parallel posts). `confirm` also confirms the secret,
 * with its recovery codes, in the same transaction.
 */
export async function takeStep(db: Db, userId: string, step: number, confirm?: { codeHashes: string[]; now: Date }): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    let update = trx.updateTable('user_totp').set({ last_step: step }).where('user_id', '=', userId).where('last_step', '<', step);
    update = confirm ? update.set({ confirmed_at: confirm.now.toISOString() }).where('confirmed_at', 'is', null) : update.where('confirmed_at', 'is not', null);
    const { numUpdatedRows } = await update.executeTakeFirst();
    if (Number(numUpdatedRows) !== 1) return false;
    if (confirm) {
      await trx.deleteFrom('totp_recovery_codes').where('user_id', '=', userId).execute();
      await trx.insertInto('totp_recovery_codes').values(confirm.codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null }))).execute();
    }
    return true;
  });
}

/** Uses one recovery code, once. */
export async function useRecoveryCode(db: Db, userId: string, codeHash: string, now: Date): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('totp_recovery_codes')
    .set({ used_at: now.toISOString() })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(numUpdatedRows) === 1;
}

export async function unusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const { n } = await db
    .selectFrom('totp_recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The second factor off: the secret and every recovery code gone. */
export async function removeTotp(db: Db, userId: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.deleteFrom('totp_recovery_codes').where('user_id', '=', userId).execute();
    await trx.deleteFrom('user_totp').where('user_id', '=', userId).execute();
  });
}

/** A new challenge; the user's expired ones go (an abandoned code step leaves nothing behind for long). */
export async function createChallenge(db: Db, row: { id_hash: string; user_id: string; expires_at: string }, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.deleteFrom('sign_in_challenges').where('user_id', '=', row.user_id).where('expires_at', '<=', now.toISOString()).execute();
    await trx.insertInto('sign_in_challenges').values({ ...row, created_at: now.toISOString() }).execute();
  });
}

/** The user a live challenge belongs to, with their email. */
export function findChallenge(db: Db, idHash: string, now: Date) {
  return db
    .selectFrom('sign_in_challenges')
    .innerJoin('users', 'users.id', 'sign_in_challenges.user_id')
    .select(['sign_in_challenges.user_id', 'users.email'])
    .where('sign_in_challenges.id_hash', '=', idHash)
    .where('sign_in_challenges.expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

/** Ends a challenge; false when it was ended already (a second post of the same code). */
export async function endChallenge(db: Db, idHash: string): Promise<boolean> {
  const { numDeletedRows } = await db.deleteFrom('sign_in_challenges').where('id_hash', '=', idHash).executeTakeFirst();
  return Number(numDeletedRows) === 1;
}
