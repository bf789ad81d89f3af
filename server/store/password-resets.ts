import { type Db, inTransaction } from './db';
import type { PasswordResetRow } from './schema';
import { deleteSessionsOf, setPasswordHash } from './users';

// "Forgot your password?" links: one-time, short-lived, only their SHA-256 stored (the
// token arrives here hashed, as every dashboard token does).

export async function createPasswordReset(db: Db, row: Omit<PasswordResetRow, 'used_at'>): Promise<void> {
  await db.insertInto('password_resets').values({ ...row, used_at: null }).execute();
}

/** An unused, unexpired link with its account's email. */
export function findOpenReset(db: Db, tokenHash: string, now: Date): Promise<{ user_id: string; email: string } | undefined> {
  return db
    .selectFrom('password_resets')
    .innerJoin('users', 'users.id', 'password_resets.user_id')
    .select(['password_resets.user_id', 'users.email'])
    .where('password_resets.token_hash', '=', tokenHash)
    .where('password_resets.used_at', 'is', null)
    .where('password_resets.expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

/** Every unused link of the user is spent: a newer password makes them pointless. */
export async function endResetsOf(db: Db, userId: string, now: Date): Promise<void> {
  await db.updateTable('password_resets').set({ used_at: now.toISOString() }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
}

/**
 * Uses a link once (a conditional write: two submits cannot both use it) to set the
 * password, in one transaction with the end of every session of the user and of their
 * other links. The user's id, or null when the link was used or has expired.
 */
export function resetPassword(db: Db, tokenHash: string, passwordHash: string, now: Date): Promise<string | null> {
  return inTransaction(db, async (trx) => {
    const at = now.toISOString();
    const used = await trx
      .updateTable('password_resets')
      .set({ used_at: at })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', at)
      .returning('user_id')
      .executeTakeFirst();
    if (!used) return null;
    await setPasswordHash(trx, used.user_id, passwordHash);
    await deleteSessionsOf(trx, used.user_id);
    await endResetsOf(trx, used.user_id, now);
    return used.user_id;
  });
}
