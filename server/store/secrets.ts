import { randomBytes } from 'node:crypto';
import type { Db } from './db';

/** A named server secret, created once and shared by every process on this database. */
export async function serverSecret(db: Db, name: string): Promise<string> {
  await db
    .insertInto('secrets')
    .values({ name, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
