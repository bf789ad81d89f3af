import type { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, type FieldError, invalid, zodErrors } from '../http/problem';
import { type CatalogueTable, getItem, insertItem, updateItem } from '../store/catalogue';
import { type Db, inTransaction, type Tx } from '../store/db';
import type { EventType } from '../domain/event-types';
import { CATALOGUE, type Group, patchOf, type Row } from '../schemas/catalogue';

// Creating and changing a catalogue object, with its event in the same database
// transaction: one copy of the steps, called by the API's routes (api/catalogue-routes.ts)
// and by the dashboard's catalogue pages (dashboard/catalogue-routes.ts).

/** Checks the rules across fields and maps the value to a row (throws a field's ApiError). */
function build<T extends CatalogueTable>(g: Group<T, z.ZodObject>, value: z.output<z.ZodObject>) {
  g.check?.(value);
  return g.toRow(value);
}

function emit(trx: Tx, g: Group<CatalogueTable, z.ZodObject>, change: 'created' | 'updated', id: string, deps: Deps, now: Date) {
  return deps.outbox.emit(trx, `${g.group}.${change}` as EventType, id, now);
}

/** A new object from a value already parsed by `g.fields`; its `<group>.created` event with it. */
export async function createCatalogueItem<T extends CatalogueTable>(deps: Deps, db: Db, g: Group<T, z.ZodObject>, environmentId: string, value: z.output<z.ZodObject>): Promise<Row<T>> {
  const now = deps.now();
  return inTransaction(db, async (trx) => {
    const row = await insertItem(trx, g.table, environmentId, build(g, value), now);
    await emit(trx, g, 'created', row.id, deps, now);
    return row;
  });
}

/**
 * Merges a patch (parsed by `patchOf(g.fields)`) into the current object and checks the
 * whole again; undefined when there is no such object in the environment.
 */
export async function changeCatalogueItem<T extends CatalogueTable>(
  deps: Deps,
  db: Db,
  g: Group<T, z.ZodObject>,
  environmentId: string,
  id: string,
  patch: Record<string, unknown>,
): Promise<Row<T> | undefined> {
  const row = await getItem(db, g.table, environmentId, id);
  if (!row) return undefined;
  const merged = g.fields.safeParse({ ...g.toApi(row), ...patch });
  if (!merged.success) throw invalid(merged.error);
  const now = deps.now();
  return inTransaction(db, async (trx) => {
    const updated = await updateItem(trx, g.table, environmentId, id, build(g, merged.data), now);
    if (updated) await emit(trx, g, 'updated', updated.id, deps, now);
    return updated;
  });
}

/** What a change came to, for a caller without problem+json: the object, or the fields at fault. */
export type ChangeOutcome = { ok: true; row: Row<CatalogueTable> } | { ok: false; errors: FieldError[] };

async function outcomeOf(work: () => Promise<Row<CatalogueTable> | undefined>): Promise<ChangeOutcome | undefined> {
  try {
    const row = await work();
    return row && { ok: true, row };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'invalid_request' && err.errors) return { ok: false, errors: err.errors };
    throw err;
  }
}

/** One group of the catalogue for a form: the API's schema, its view of a row, and the same create and change as the API, from input not yet parsed. */
export interface CatalogueGroupChanges {
  group: string;
  table: CatalogueTable;
  /** The API's create schema. */
  fields: z.ZodObject;
  /** A row as the API shows it: amounts in major units. */
  toApi(row: Row<CatalogueTable>): Record<string, unknown>;
  create(environmentId: string, input: unknown): Promise<ChangeOutcome>;
  /** Undefined: no such object in the environment. */
  change(environmentId: string, id: string, input: unknown): Promise<ChangeOutcome | undefined>;
}

/** Every group of the catalogue, as CatalogueGroupChanges. */
export function catalogueChanges(deps: Deps): CatalogueGroupChanges[] {
  const db = deps.database.db;
  return CATALOGUE.map((g) => {
    const patch = patchOf(g.fields);
    return {
      group: g.group,
      table: g.table,
      fields: g.fields,
      toApi: (row: Row<CatalogueTable>) => g.toApi(row) as Record<string, unknown>,
      async create(environmentId: string, input: unknown): Promise<ChangeOutcome> {
        const value = g.fields.safeParse(input);
        if (!value.success) return { ok: false, errors: zodErrors(value.error) };
        return (await outcomeOf(() => createCatalogueItem(deps, db, g, environmentId, value.data)))!;
      },
      async change(environmentId: string, id: string, input: unknown): Promise<ChangeOutcome | undefined> {
        const value = patch.safeParse(input);
        if (!value.success) return (await getItem(db, g.table, environmentId, id)) ? { ok: false, errors: zodErrors(value.error) } : undefined;
        return outcomeOf(() => changeCatalogueItem(deps, db, g, environmentId, id, value.data));
      },
    };
  });
}
