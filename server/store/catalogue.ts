import { uuidv7 } from '../domain/ids';
import type { Db } from './db';
import type { Tables } from './schema';
import { countAndPage, type Page } from './paging';

export type CatalogueTable = 'products' | 'plans' | 'taxes' | 'shipping' | 'coupons';
type OwnFields = 'id' | 'environment_id' | 'created_at' | 'updated_at';

// The five catalogue tables share their access pattern; Kysely cannot type a table chosen
// at run time, so these helpers take the table name and the row shape from the caller.

type AnyDb = Db & any;

/** A catalogue row as the store hands it out: `enabled` decoded from 0/1. */
export type CatalogueItem<T extends CatalogueTable> = Omit<Tables[T], 'enabled'> & { enabled: boolean };
type ItemValues<T extends CatalogueTable> = Omit<CatalogueItem<T>, OwnFields>;

const fromRow = <T extends CatalogueTable>(row: Tables[T]): CatalogueItem<T> => ({ ...row, enabled: row.enabled === 1 });
const toColumns = <V extends { enabled: boolean }>(values: V) => ({ ...values, enabled: values.enabled ? 1 : 0 });

export async function insertItem<T extends CatalogueTable>(
  db: Db,
  table: T,
  environmentId: string,
  values: ItemValues<T>,
  now: Date,
): Promise<CatalogueItem<T>> {
  const at = now.toISOString();
  const item = { ...values, id: uuidv7(now.getTime()), environment_id: environmentId, created_at: at, updated_at: at };
  await (db as AnyDb).insertInto(table).values(toColumns(item)).execute();
  return item as CatalogueItem<T>;
}

/** `environmentId` null: whichever environment it is in (the outbox reads the object of an event by its id). */
export async function getItem<T extends CatalogueTable>(
  db: Db,
  table: T,
  environmentId: string | null,
  id: string,
): Promise<CatalogueItem<T> | undefined> {
  let query = (db as AnyDb).selectFrom(table).selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  const row: Tables[T] | undefined = await query.executeTakeFirst();
  return row && fromRow(row);
}

export async function updateItem<T extends CatalogueTable>(
  db: Db,
  table: T,
  environmentId: string,
  id: string,
  values: ItemValues<T>,
  now: Date,
): Promise<CatalogueItem<T> | undefined> {
  await (db as AnyDb)
    .updateTable(table)
    .set({ ...toColumns(values), updated_at: now.toISOString() })
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
  filters: Record<string, string | boolean>,
  page: Page,
): Promise<{ count: number; rows: CatalogueItem<T>[] }> {
  let query = (db as AnyDb).selectFrom(table).where('environment_id', '=', environmentId);
  for (const [column, value] of Object.entries(filters)) query = query.where(column, '=', typeof value === 'boolean' ? Number(value) : value);
  const { count, rows } = await countAndPage<Tables[T]>(query, page);
  return { count, rows: rows.map((r) => fromRow<T>(r)) };
}
