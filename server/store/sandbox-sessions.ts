import type { Db } from './db';
import type { SandboxSessionRow } from './schema';

// The sandbox processor's open sessions (migration 143), written on the pool as its books
// are (store/sandbox-books.ts), never inside one of our transactions. No retention purge,
// like the books: one short row per sandbox redirect or challenge, made by test traffic only.

/** Opens `session`, or replaces the one of its id: a repeated call opens it again, as the processor's last word. */
export async function keepSandboxSession(db: Db, session: SandboxSessionRow): Promise<void> {
  await db
    .insertInto('sandbox_sessions')
    .values(session)
    .onConflict((oc) => oc.column('id').doUpdateSet({ state: session.state, created_at: session.created_at }))
    .execute();
}

/** The session of `id`, if the sandbox opened it. */
export async function sandboxSession(db: Db, id: string): Promise<SandboxSessionRow | undefined> {
  return db.selectFrom('sandbox_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}
