import { uuidv7 } from '../domain/ids';
import { settingsChanged } from './auth-changes';
import { type Db, inTransaction } from './db';
import { isUniqueViolation } from './errors';
import { claimEach } from './locking';
import { countAndPage, type Page } from './paging';
import type { EnvironmentMode, ProcessorRow, ProcessorType } from './schema';

// Processors an environment connected (migration 099): rows with their credentials as one
// sealed JSON text (the sealing plugin seals and opens `credentials` on every write and
// read). What the API and the dashboard read never carries the credentials: only the
// gateway loader (payments/processor-gateways.ts) asks for them.

/** What a Stripe processor's gateways are built from: written once, never shown again. */
export interface StripeCredentials {
  secret_key: string;
  webhook_secret: string;
  publishable_key: string;
}

/** A Redsys terminal's: its key and what names it, and whether its bank enabled the query service (found when connecting). */
export interface RedsysCredentials {
  merchant_code: string;
  terminal: string;
  secret_key: string;
  signature_version: 'HMAC_SHA256_V1' | 'HMAC_SHA512_V2';
  query_service: boolean;
}

export type ProcessorCredentials = StripeCredentials | RedsysCredentials;

/** A processor as the API and the dashboard see it: no credentials. */
export type StoredProcessor = Omit<ProcessorRow, 'credentials' | 'sweep_due_at'>;

/** A processor with its credentials opened, for the gateway loader only: the credentials of its type. */
export type ProcessorWithCredentials = Omit<StoredProcessor, 'type'> & { environment_mode: EnvironmentMode } & (
    | { type: 'stripe'; credentials: StripeCredentials }
    | { type: 'redsys'; credentials: RedsysCredentials }
  );

const SHOWN = ['id', 'environment_id', 'type', 'secret_key_last4', 'statement_descriptor', 'version', 'deleted_at', 'created_at', 'updated_at'] as const;

/** The processor of a type that is not deleted, if the environment has one. */
export async function connectedOfType(db: Db, environmentId: string, type: ProcessorType): Promise<StoredProcessor | undefined> {
  return db.selectFrom('processors').select(SHOWN).where('environment_id', '=', environmentId).where('type', '=', type).where('deleted_at', 'is', null).executeTakeFirst();
}

/** The new processor; 'taken': the environment already has one of this type (the unique index decided). */
export async function insertProcessor(
  db: Db,
  environmentId: string,
  p: { type: ProcessorType; credentials: ProcessorCredentials; statement_descriptor: string | null; sweep_due_at: Date },
  now: Date,
): Promise<StoredProcessor | 'taken'> {
  const at = now.toISOString();
  const row: ProcessorRow = {
    id: uuidv7(now.getTime()),
    environment_id: environmentId,
    type: p.type,
    credentials: JSON.stringify(p.credentials),
    secret_key_last4: p.credentials.secret_key.slice(-4),
    statement_descriptor: p.statement_descriptor,
    version: 1,
    deleted_at: null,
    created_at: at,
    updated_at: at,
    sweep_due_at: p.sweep_due_at.toISOString(),
  };
  try {
    // Called outside any transaction (the use case has just asked the processor): on
    // PostgreSQL a refused insert would end the transaction it is in.
    await db.insertInto('processors').values(row).execute();
  } catch (err) {
    if (isUniqueViolation(err)) return 'taken';
    throw err;
  }
  settingsChanged();
  const { credentials: _sealed, sweep_due_at: _due, ...shown } = row;
  return shown;
}

/** A processor of the environment that is not deleted. */
export async function getProcessor(db: Db, environmentId: string, id: string): Promise<StoredProcessor | undefined> {
  return db.selectFrom('processors').select(SHOWN).where('environment_id', '=', environmentId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** The environment's processors that are not deleted, newest first. */
export async function listProcessors(db: Db, environmentId: string, page: Page): Promise<{ count: number; rows: StoredProcessor[] }> {
  const { count, rows } = await countAndPage<ProcessorRow>(db.selectFrom('processors').where('environment_id', '=', environmentId).where('deleted_at', 'is', null), page);
  return { count, rows: rows.map(({ credentials: _sealed, ...shown }) => shown) };
}

/** What a change replaces: credentials given replace those stored one by one. */
export interface ProcessorChange {
  credentials?: Partial<StripeCredentials> | Partial<RedsysCredentials>;
  statement_descriptor?: string | null;
}

/**
 * Applies a change to a processor that is not deleted. Undefined: no such processor;
 * 'changed': another change was written between the read and the write (its version moved
 * on), so this one was not: merging credentials read before it would undo it.
 */
export async function changeProcessor(db: Db, environmentId: string, id: string, change: ProcessorChange, now: Date): Promise<StoredProcessor | 'changed' | undefined> {
  const changed = await inTransaction(db, async (trx) => {
    const current = await trx
      .selectFrom('processors')
      .select(['credentials', 'version'])
      .where('environment_id', '=', environmentId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!current) return undefined;
    const credentials = { ...(JSON.parse(current.credentials) as ProcessorCredentials), ...change.credentials } as ProcessorCredentials;
    const done = await trx
      .updateTable('processors')
      .set({
        credentials: JSON.stringify(credentials),
        secret_key_last4: credentials.secret_key.slice(-4),
        ...(change.statement_descriptor !== undefined ? { statement_descriptor: change.statement_descriptor } : {}),
        version: current.version + 1,
        updated_at: now.toISOString(),
      })
      .where('id', '=', id)
      .where('version', '=', current.version)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) !== 1) return 'changed';
    return getProcessor(trx, environmentId, id);
  });
  if (changed && changed !== 'changed') settingsChanged();
  return changed;
}

/** Marks a processor deleted, its credentials kept; false: no such processor (or already deleted). */
export async function deleteProcessor(db: Db, environmentId: string, id: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const done = await db
    .updateTable('processors')
    .set((eb) => ({ deleted_at: at, updated_at: at, version: eb('version', '+', 1) }))
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  settingsChanged();
  return Number(done.numUpdatedRows) === 1;
}

/**
 * Every processor of the environment, deleted ones included, newest first, with its
 * credentials opened and the environment's mode: the gateway loader's one indexed query.
 */
export async function processorsForGateways(db: Db, environmentId: string): Promise<ProcessorWithCredentials[]> {
  const rows = await db
    .selectFrom('processors')
    .innerJoin('environments', 'environments.id', 'processors.environment_id')
    .selectAll('processors')
    .select('environments.mode as environment_mode')
    .where('processors.environment_id', '=', environmentId)
    .orderBy('processors.id', 'desc')
    .execute();
  return rows.map((r) => ({ ...r, credentials: JSON.parse(r.credentials) as ProcessorCredentials }) as ProcessorWithCredentials);
}

/** The environment and type of a processor, deleted or not, by its id alone: an inbound event names only the processor. */
export async function processorOwner(db: Db, id: string): Promise<{ environment_id: string; type: ProcessorType } | undefined> {
  return db.selectFrom('processors').select(['environment_id', 'type']).where('id', '=', id).executeTakeFirst();
}

/** A processor the daily sweep claimed. */
export type SweptProcessor = Pick<ProcessorRow, 'id' | 'environment_id' | 'created_at' | 'deleted_at'>;

/** Claims, until `until`, the processors whose sweep is due: the connected ones, and those disconnected after `disconnectedSince`. */
export function claimSweeps(db: Db, c: { now: Date; until: Date; disconnectedSince: Date; limit: number }): Promise<SweptProcessor[]> {
  const { until, limit } = c;
  const at = c.now.toISOString();
  const due = db
    .selectFrom('processors')
    .select(['id', 'environment_id', 'created_at', 'deleted_at'])
    .where((eb) => eb.or([eb('deleted_at', 'is', null), eb('deleted_at', '>', c.disconnectedSince.toISOString())]))
    .where((eb) => eb.or([eb('sweep_due_at', 'is', null), eb('sweep_due_at', '<=', at)]))
    .orderBy('id')
    .limit(limit);
  return claimEach(db, due, async (row) => {
    const taken = await db
      .updateTable('processors')
      .set({ sweep_due_at: until.toISOString() })
      .where('id', '=', row.id)
      .where((eb) => eb.or([eb('sweep_due_at', 'is', null), eb('sweep_due_at', '<=', at)]))
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1 ? row : undefined;
  });
}

/** When the processor's next sweep is due. */
export async function sweepDueAt(db: Db, id: string, next: Date): Promise<void> {
  await db.updateTable('processors').set({ sweep_due_at: next.toISOString() }).where('id', '=', id).execute();
}
