import type { Db } from './db';
import type { SandboxChargeRow } from './schema';

// The sandbox processor's books (migration 141), as a processor keeps them: each entry is
// written once, on the pool, never inside one of our transactions (a processor has charged
// whether or not our record of it commits). No retention purge: a real processor's books
// outlive our gateway calls' (a lookup may come at any time), and a sandbox entry is one
// short row per sandbox call, made by test traffic only.

/**
 * Keeps `entry` unless the books already hold one for its reference, atomically on both
 * engines (one primary key): the entry the books hold, the first one, either way.
 */
export async function keepSandboxEntry(db: Db, entry: SandboxChargeRow): Promise<SandboxChargeRow> {
  const kept = await db.insertInto('sandbox_charges').values(entry).onConflict((oc) => oc.column('reference').doNothing()).returningAll().executeTakeFirst();
  return kept ?? (await db.selectFrom('sandbox_charges').selectAll().where('reference', '=', entry.reference).executeTakeFirstOrThrow());
}

/** The books' entry for `reference`, if the sandbox ever acted on it. */
export async function sandboxEntry(db: Db, reference: string): Promise<SandboxChargeRow | undefined> {
  return db.selectFrom('sandbox_charges').selectAll().where('reference', '=', reference).executeTakeFirst();
}
