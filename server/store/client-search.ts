import { sql } from 'kysely';
import { containsPattern } from '../domain/transaction-search';
import type { Db } from './db';
import { countAndPage, type Page } from './paging';
import type { ClientRow } from './schema';

// The dashboard's search of an environment's clients: a text anywhere in the name or the
// email, case-insensitive, every LIKE escaped so the text is only ever text.

export async function searchClients(db: Db, environmentId: string, text: string | undefined, page: Page) {
  let query = db.selectFrom('clients').where('environment_id', '=', environmentId);
  if (text) {
    const pattern = containsPattern(text.toLowerCase());
    query = query.where((eb) =>
      eb.or([sql<boolean>`lower(${sql.ref('name')}) like ${pattern} escape '\\'`, sql<boolean>`lower(coalesce(${sql.ref('email')}, '')) like ${pattern} escape '\\'`]),
    );
  }
  const { count, rows } = await countAndPage<ClientRow>(query, page);
  return { count, rows: rows.map((r) => ({ ...r, enabled: r.enabled === 1, enabled_by_compliance: r.enabled_by_compliance === 1 })) };
}
