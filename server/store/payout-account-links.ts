import { type Db, inTransaction } from './db';
import { endPayoutHold } from './merchant-payouts';
import type { PayoutAccountLinkRow } from './schema';

// The confirm links of a held bank account (docs/balance.md "A new bank account is held"):
// one per email to an owner, single-use, only their SHA-256 stored (the token arrives here
// hashed, as every dashboard token does). A link confirms the hold it was sent for and no
// other: a newer change, or the hold's end, leaves it confirming nothing.

export async function createPayoutAccountLink(db: Db, row: PayoutAccountLinkRow): Promise<void> {
  await db.insertInto('payout_account_links').values(row).execute();
}

/** The hold a link of `environmentId` confirms, while that hold lasts; undefined: none (used, replaced, ended, or another environment's). */
export function findPayoutAccountLink(db: Db, tokenHash: string, environmentId: string, now: Date): Promise<{ held_until: string } | undefined> {
  return db
    .selectFrom('payout_account_links as l')
    .innerJoin('merchant_payout_settings as s', (j) => j.onRef('s.environment_id', '=', 'l.environment_id').onRef('s.payouts_held_until', '=', 'l.held_until'))
    .select('l.held_until')
    .where('l.token_hash', '=', tokenHash)
    .where('l.environment_id', '=', environmentId)
    .where('l.held_until', '>', now.toISOString())
    .executeTakeFirst();
}

/**
 * Confirms the held account with a link, once: the link taken by a conditional delete (two
 * submits cannot both use it), the hold it was sent for ended, every other link of the
 * environment spent with it. False when the link confirms nothing.
 */
export function confirmPayoutAccount(db: Db, tokenHash: string, environmentId: string, now: Date): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const link = await findPayoutAccountLink(trx, tokenHash, environmentId, now);
    if (!link) return false;
    const taken = await trx.deleteFrom('payout_account_links').where('token_hash', '=', tokenHash).executeTakeFirst();
    if (Number(taken.numDeletedRows) !== 1) return false;
    await endPayoutHold(trx, environmentId, link.held_until);
    await endPayoutAccountLinks(trx, environmentId);
    return true;
  });
}

/** Every link of the environment spent: a newer change holds again, with links of its own. */
export async function endPayoutAccountLinks(db: Db, environmentId: string): Promise<void> {
  await db.deleteFrom('payout_account_links').where('environment_id', '=', environmentId).execute();
}
