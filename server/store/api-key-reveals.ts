import type { Db } from './db';
import { inTransaction } from './db';

// A key's new secret waiting for its one showing in the dashboard (migration 094): kept by
// the POST that made it, taken by the GET its redirect leads to. What is stored is sealed
// by the caller for the session that asked (dashboard/key-reveal.ts); this module only
// keeps it, hands it to that session once, and forgets it.

/** Long enough to follow the POST's redirect on a slow connection; an unread secret is then forgotten. */
const REVEAL_TTL_MS = 10 * 60_000;

/** Keeps the key's sealed new secret for `sessionIdHash`, in place of an unshown earlier one (which a roll made useless). */
export async function keepReveal(db: Db, reveal: { keyId: string; sessionIdHash: string; sealed: string }, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    // Unread ones past their time go too: the table never holds more than a few minutes' worth.
    await trx
      .deleteFrom('api_key_reveals')
      .where((eb) => eb.or([eb('key_id', '=', reveal.keyId), eb('expires_at', '<=', now.toISOString())]))
      .execute();
    await trx
      .insertInto('api_key_reveals')
      .values({ key_id: reveal.keyId, session_id_hash: reveal.sessionIdHash, sealed_secret: reveal.sealed, expires_at: new Date(now.getTime() + REVEAL_TTL_MS).toISOString() })
      .execute();
  });
}

/**
 * The sealed secret kept for this key and session, deleted by the same statement that
 * reads it (so two loads of the page cannot both get it); undefined when there is none:
 * already shown, replaced, past its time, or another session's.
 */
export async function takeReveal(db: Db, keyId: string, sessionIdHash: string, now: Date): Promise<string | undefined> {
  const row = await db
    .deleteFrom('api_key_reveals')
    .where('key_id', '=', keyId)
    .where('session_id_hash', '=', sessionIdHash)
    .where('expires_at', '>', now.toISOString())
    .returning('sealed_secret')
    .executeTakeFirst();
  return row?.sealed_secret;
}
