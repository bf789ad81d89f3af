import { uuidv7 } from '../domain/ids';
import type { Db } from './db';
import type { Tables } from './schema';
import { countAndPage, type Page } from './paging';

export type CatalogueTable = 'products' | 'plans' | 'taxes' | 'shipping' | 'coupons';
type OwnFields = 'id' | 'environment_id' | 'created_at' | 'updated_at';

// The five catalogue tables share their access pattern; Kysely cannot type a table chosen
// at run time, so these helpers take the table name and the row shape from the caller.

type AnyDb = Db & any;

export async function insertItem<T extends CatalogueTable>(
  db: Db,
  table: T,
  environmentId: string,
  values: Omit<Tables[T], OwnFields>,
  now: Date,
): Promise<Tables[T]> {
  const at = now.toISOString();
  const row = { ...values, id: uuidv7(now.getTime()), environment_id: environmentId, created_at: at, updated_at: at };
  await (db as AnyDb).insertInto(table).values(row).execute();
  return row as Tables[T];
}

export async function getItem<T extends CatalogueTable>(
  db: Db,
  table: T,
  environmentId: string,
  id: string,
): Promise<Tables[T] | undefined> {
  return (db as AnyDb)
    .selectFrom(table)
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateItem<T extends CatalogueTable>(
  db: Db,
  table: T,
  environmentId: string,
  id: string,
  values: Omit<Tables[T], OwnFields>,
  now: Date,
): Promise<Tables[T] | undefined> {
  await (db as AnyDb)
    .updateTable(table)
    .set({ ...values, updated_at: now.toISOString() })
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .execute();
  return getItem(db, table, environmentId, id);
}

export async function deleteItem(db: Db, table: CatalogueTable, environmentId: string, id: string) {
  const result = await (db as AnyDb)
    .deleteFrom(table)
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function listItems<T extends CatalogueTable>(
  db: Db,
  table: T,
  environmentId: string,
  filters: Record<string, string | number>,
  page: Page,
): Promise<{ count: number; rows: Tables[T][] }> {
  let query = (db as AnyDb).selectFrom(table).where('environment_id', '=', environmentId);
  for (const [column, value] of Object.entries(filters)) query = query.where(column, '=', value);
  return countAndPage(query, page);
}
