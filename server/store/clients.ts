import { isCompliant, type Verdict } from '../domain/compliance';
import { uuidv7 } from '../domain/ids';
import { type Db, inTransaction, type Tx } from './db';
import type { Outbox } from './events';
import { forUpdate } from './locking';
import { countAndPage, type Page } from './paging';
import type { ClientDocumentRow, ClientIbanRow, ClientRow } from './schema';

// Clients, their IBANs and their documents. A client's compliance state and its IBANs'
// follow from its accepted documents; every change to them locks the client row first,
// so a review, a PATCH and a new IBAN never decide on a state another one is changing.

export type ClientType = 'individual' | 'company';
export type IdType = 'passport' | 'national_id' | 'tax_id' | 'residence_permit' | 'driving_licence' | 'other';

/** A client as the store hands it out: flags as booleans, its kinds as their unions. */
export type Client = Omit<ClientRow, 'client_type' | 'id_type' | 'enabled' | 'enabled_by_compliance'> & {
  client_type: ClientType | null;
  id_type: IdType | null;
  enabled: boolean;
  enabled_by_compliance: boolean;
};

/** An IBAN as the store hands it out: flags as booleans. */
export type ClientIban = Omit<ClientIbanRow, 'enabled' | 'enabled_by_compliance'> & { enabled: boolean; enabled_by_compliance: boolean };

// Both engines store 0/1; the store decodes on read and encodes on write, here only.
const clientOf = (r: ClientRow): Client => ({
  ...r,
  client_type: r.client_type as ClientType | null,
  id_type: r.id_type as IdType | null,
  enabled: r.enabled === 1,
  enabled_by_compliance: r.enabled_by_compliance === 1,
});
const ibanOf = (r: ClientIbanRow): ClientIban => ({ ...r, enabled: r.enabled === 1, enabled_by_compliance: r.enabled_by_compliance === 1 });
const bit = (b: boolean) => (b ? 1 : 0);

type OwnFields = 'id' | 'environment_id' | 'created_at' | 'updated_at' | 'enabled_by_compliance';
export type ClientValues = Omit<Client, OwnFields>;
export type IbanValues = Omit<ClientIban, OwnFields | 'client_ref'>;
export interface DocumentValues {
  type: string;
  file_name: string;
  content_type: string;
  size: number;
  sha256: string;
}

/** An external id already taken (a unique index refused the write). */
export class DuplicateKeyError extends Error {}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

async function uniquely<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw new DuplicateKeyError();
    throw err;
  }
}

const owned = (environmentId: string, now: Date) => {
  const at = now.toISOString();
  return { id: uuidv7(now.getTime()), environment_id: environmentId, created_at: at, updated_at: at };
};

export async function getClient(db: Db, environmentId: string | null, id: string): Promise<Client | undefined> {
  let query = db.selectFrom('clients').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  const row = await query.executeTakeFirst();
  return row && clientOf(row);
}

async function lockClient(trx: Tx, environmentId: string, id: string): Promise<ClientRow | undefined> {
  return forUpdate(
    trx,
    trx.selectFrom('clients').selectAll().where('environment_id', '=', environmentId).where('id', '=', id),
  ).executeTakeFirst();
}

export interface ClientFilters {
  client_id?: string;
  enabled?: boolean;
  enabled_by_compliance?: boolean;
}

export async function listClients(db: Db, environmentId: string, f: ClientFilters, page: Page) {
  let query = db.selectFrom('clients').where('environment_id', '=', environmentId);
  if (f.client_id !== undefined) query = query.where('client_id', '=', f.client_id);
  if (f.enabled !== undefined) query = query.where('enabled', '=', bit(f.enabled));
  if (f.enabled_by_compliance !== undefined) query = query.where('enabled_by_compliance', '=', bit(f.enabled_by_compliance));
  const { count, rows } = await countAndPage<ClientRow>(query, page);
  return { count, rows: rows.map(clientOf) };
}

export async function insertClient(db: Db, environmentId: string, values: ClientValues, now: Date, outbox: Outbox) {
  const client: Client = { ...values, ...owned(environmentId, now), enabled_by_compliance: false };
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      await trx.insertInto('clients').values({ ...client, enabled: bit(client.enabled), enabled_by_compliance: 0 }).execute();
      await outbox.emit(trx, 'client.created', client.id, now);
      return client;
    }),
  );
}

/**
 * Writes the whole (merged, re-validated) client; its compliance is decided again, since
 * a change of `client_type` changes which documents it needs.
 */
export async function updateClient(
  db: Db,
  environmentId: string,
  id: string,
  merge: (current: Client) => ClientValues,
  now: Date,
  outbox: Outbox,
): Promise<Client | undefined> {
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      const current = await lockClient(trx, environmentId, id);
      if (!current) return undefined;
      const values = merge(clientOf(current));
      await trx
        .updateTable('clients')
        .set({ ...values, enabled: bit(values.enabled), updated_at: now.toISOString() })
        .where('id', '=', id)
        .execute();
      await outbox.emit(trx, 'client.updated', id, now);
      await decideCompliance(trx, id, now, outbox);
      return getClient(trx, environmentId, id);
    }),
  );
}

/** Sets the client's and its IBANs' `enabled_by_compliance` from its accepted documents. */
async function decideCompliance(trx: Tx, clientId: string, now: Date, outbox: Outbox): Promise<void> {
  const client = await trx
    .selectFrom('clients')
    .select(['client_type', 'enabled_by_compliance'])
    .where('id', '=', clientId)
    .executeTakeFirstOrThrow();
  const accepted = await trx
    .selectFrom('client_documents')
    .select('type')
    .distinct()
    .where('client_ref', '=', clientId)
    .where('status', '=', 'accepted')
    .execute();
  const enabled = isCompliant(client.client_type, new Set(accepted.map((d) => d.type))) ? 1 : 0;
  if (enabled === client.enabled_by_compliance) return;
  const at = now.toISOString();
  await trx.updateTable('clients').set({ enabled_by_compliance: enabled, updated_at: at }).where('id', '=', clientId).execute();
  await outbox.emit(trx, 'client.compliance_changed', clientId, now);
  const ibans = await trx
    .updateTable('client_ibans')
    .set({ enabled_by_compliance: enabled, updated_at: at })
    .where('client_ref', '=', clientId)
    .where('enabled_by_compliance', '!=', enabled)
    .returning('id')
    .execute();
  for (const { id } of ibans) await outbox.emit(trx, 'iban.compliance_changed', id, now);
}

// IBANs

export async function getIban(db: Db, environmentId: string | null, clientId: string | null, id: string) {
  let query = db.selectFrom('client_ibans').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  if (clientId !== null) query = query.where('client_ref', '=', clientId);
  const row = await query.executeTakeFirst();
  return row && ibanOf(row);
}

export interface IbanFilters {
  iban_id?: string;
  enabled?: boolean;
}

export async function listIbans(db: Db, environmentId: string, clientId: string, f: IbanFilters, page: Page) {
  let query = db.selectFrom('client_ibans').where('environment_id', '=', environmentId).where('client_ref', '=', clientId);
  if (f.iban_id !== undefined) query = query.where('iban_id', '=', f.iban_id);
  if (f.enabled !== undefined) query = query.where('enabled', '=', bit(f.enabled));
  const { count, rows } = await countAndPage<ClientIbanRow>(query, page);
  return { count, rows: rows.map(ibanOf) };
}

/** An IBAN starts as enabled by compliance as its client is; undefined when there is no such client. */
export async function insertIban(
  db: Db,
  environmentId: string,
  clientId: string,
  values: IbanValues,
  now: Date,
  outbox: Outbox,
): Promise<ClientIban | undefined> {
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      const client = await lockClient(trx, environmentId, clientId);
      if (!client) return undefined;
      const row: ClientIbanRow = {
        ...values,
        ...owned(environmentId, now),
        client_ref: clientId,
        enabled: bit(values.enabled),
        enabled_by_compliance: client.enabled_by_compliance,
      };
      await trx.insertInto('client_ibans').values(row).execute();
      await outbox.emit(trx, 'iban.created', row.id, now);
      return ibanOf(row);
    }),
  );
}

export async function updateIban(
  db: Db,
  environmentId: string,
  clientId: string,
  id: string,
  merge: (current: ClientIban) => IbanValues,
  now: Date,
  outbox: Outbox,
): Promise<ClientIban | undefined> {
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      const current = await forUpdate(
        trx,
        trx
          .selectFrom('client_ibans')
          .selectAll()
          .where('environment_id', '=', environmentId)
          .where('client_ref', '=', clientId)
          .where('id', '=', id),
      ).executeTakeFirst();
      if (!current) return undefined;
      const values = merge(ibanOf(current));
      await trx
        .updateTable('client_ibans')
        .set({ ...values, enabled: bit(values.enabled), updated_at: now.toISOString() })
        .where('id', '=', id)
        .execute();
      await outbox.emit(trx, 'iban.updated', id, now);
      return getIban(trx, environmentId, clientId, id);
    }),
  );
}

// Documents

export async function getDocument(db: Db, environmentId: string | null, clientId: string | null, id: string) {
  let query = db.selectFrom('client_documents').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  if (clientId !== null) query = query.where('client_ref', '=', clientId);
  return query.executeTakeFirst();
}

export async function getDocumentFile(db: Db, environmentId: string, clientId: string, id: string) {
  return db
    .selectFrom('client_documents')
    .innerJoin('client_document_files', 'client_document_files.document_id', 'client_documents.id')
    .select(['client_documents.file_name', 'client_documents.content_type', 'client_document_files.data'])
    .where('client_documents.environment_id', '=', environmentId)
    .where('client_documents.client_ref', '=', clientId)
    .where('client_documents.id', '=', id)
    .executeTakeFirst();
}

export interface DocumentFilters {
  type?: string;
  status?: ClientDocumentRow['status'];
}

export function listDocuments(db: Db, environmentId: string, clientId: string, f: DocumentFilters, page: Page) {
  let query = db.selectFrom('client_documents').where('environment_id', '=', environmentId).where('client_ref', '=', clientId);
  if (f.type !== undefined) query = query.where('type', '=', f.type);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  return countAndPage<ClientDocumentRow>(query, page);
}

/** The document and its bytes in one transaction; undefined when there is no such client. */
export async function insertDocument(
  db: Db,
  environmentId: string,
  clientId: string,
  values: DocumentValues,
  data: Uint8Array,
  now: Date,
): Promise<ClientDocumentRow | undefined> {
  return inTransaction(db, async (trx) => {
    const client = await trx
      .selectFrom('clients')
      .select('id')
      .where('environment_id', '=', environmentId)
      .where('id', '=', clientId)
      .executeTakeFirst();
    if (!client) return undefined;
    const row: ClientDocumentRow = {
      ...values,
      ...owned(environmentId, now),
      client_ref: clientId,
      status: 'pending',
      status_reason: null,
      reviewed_at: null,
    };
    await trx.insertInto('client_documents').values(row).execute();
    await trx.insertInto('client_document_files').values({ document_id: row.id, data }).execute();
    return row;
  });
}

/** Ids of documents waiting for review, oldest first. */
export async function pendingDocuments(db: Db, limit: number): Promise<{ id: string; client_ref: string; environment_id: string; file_name: string }[]> {
  return db
    .selectFrom('client_documents')
    .select(['id', 'client_ref', 'environment_id', 'file_name'])
    .where('status', '=', 'pending')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Records a verdict on a pending document and what follows from it, in one transaction.
 * The claim is the conditional UPDATE (`status = 'pending'`): of two reviewers racing for
 * one document exactly one records it; false for the other.
 */
export async function recordVerdict(
  db: Db,
  doc: { id: string; client_ref: string; environment_id: string },
  verdict: Verdict,
  now: Date,
  outbox: Outbox,
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    await lockClient(trx, doc.environment_id, doc.client_ref);
    const at = now.toISOString();
    const claimed = await trx
      .updateTable('client_documents')
      .set({ status: verdict.status, status_reason: verdict.reason, reviewed_at: at, updated_at: at })
      .where('id', '=', doc.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    await outbox.emit(trx, verdict.status === 'accepted' ? 'document.accepted' : 'document.rejected', doc.id, now);
    await decideCompliance(trx, doc.client_ref, now, outbox);
    return true;
  });
}
