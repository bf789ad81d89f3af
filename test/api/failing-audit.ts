import { sql } from 'kysely';
import type { Db } from '../../server/store/db';
import type { EngineName } from './harness';

/**
 * Makes the database refuse every audit entry of one environment (a trigger, on both
 * engines) while `during` runs: a change written apart from its entry would be stored
 * anyway; written in one transaction with it, it is not. Only that environment's entries
 * fail, so other files' services on the same database audit as usual.
 */
export async function withAuditFailing(engine: EngineName, db: Db, environmentId: string, during: () => Promise<void>): Promise<void> {
  const name = sql.id(`audit_fails_${environmentId.replaceAll('-', '_')}`);
  const id = sql.lit(environmentId);
  if (engine === 'sqlite') {
    await sql`create trigger ${name} before insert on audit_log when new.environment_id = ${id} begin select raise(abort, 'audit log unavailable'); end`.execute(db);
  } else {
    await sql`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'audit log unavailable'; end $$`.execute(db);
    await sql`create trigger ${name} before insert on audit_log for each row when (new.environment_id = ${id}) execute function ${name}()`.execute(db);
  }
  try {
    await during();
  } finally {
    await sql`drop trigger ${name}${engine === 'postgres' ? sql` on audit_log` : sql``}`.execute(db);
    if (engine === 'postgres') await sql`drop function ${name}()`.execute(db);
  }
}
