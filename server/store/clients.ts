import type { Verdict } from '../domain/compliance';
import { uuidv7 } from '../domain/ids';
import { type Db, inTransaction, type Tx } from './db';
import { forUpdate } from './locking';
import { countAndPage, type Page } from './paging';
import type { ClientDocumentRow, ClientIbanRow, ClientRow } from './schema';

// Clients, their IBANs and their documents: their rows. What each change writes, tells and
// decides (the compliance that follows from the accepted documents) is the use cases'
// (server/clients/client-changes.ts).

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

/** Runs a write, turning a unique index's refusal into DuplicateKeyError. */
export async function uniquely<T>(write: () => Promise<T>): Promise<T> {
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

/** Whether the client `id` is on (the merchant's `enabled` switch); a client not there is not. */
export async function clientEnabled(db: Db, environmentId: string, id: string): Promise<boolean> {
  const row = await db.selectFrom('clients').select('enabled').where('id', '=', id).where('environment_id', '=', environmentId).executeTakeFirst();
  return row?.enabled === 1;
}

export async function getClient(db: Db, environmentId: string | null, id: string): Promise<Client | undefined> {
  let query = db.selectFrom('clients').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  const row = await query.executeTakeFirst();
  return row && clientOf(row);
}

/** The client, its row locked until the transaction ends: every change to its compliance takes it first. */
export async function lockClient(trx: Tx, environmentId: string, id: string): Promise<Client | undefined> {
  const row = await forUpdate(trx, trx.selectFrom('clients').selectAll().where('environment_id', '=', environmentId).where('id', '=', id)).executeTakeFirst();
  return row && clientOf(row);
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

/** A new client's row: not enabled by compliance until its documents say so. */
export async function insertClient(trx: Tx, environmentId: string, values: ClientValues, now: Date): Promise<Client> {
  const client: Client = { ...values, ...owned(environmentId, now), enabled_by_compliance: false };
  await trx.insertInto('clients').values({ ...client, enabled: bit(client.enabled), enabled_by_compliance: 0 }).execute();
  return client;
}

/** The whole (merged, re-validated) client written over its row. */
export async function writeClient(trx: Tx, id: string, values: ClientValues, now: Date): Promise<void> {
  await trx
    .updateTable('clients')
    .set({ ...values, enabled: bit(values.enabled), updated_at: now.toISOString() })
    .where('id', '=', id)
    .execute();
}

/** What the client's compliance is decided from: its type, the kinds of its accepted documents, and what it is now. */
export async function complianceFacts(trx: Tx, clientId: string): Promise<{ clientType: string | null; accepted: Set<string>; enabled: boolean }> {
  const client = await trx.selectFrom('clients').select(['client_type', 'enabled_by_compliance']).where('id', '=', clientId).executeTakeFirstOrThrow();
  const accepted = await trx
    .selectFrom('client_documents')
    .select('type')
    .distinct()
    .where('client_ref', '=', clientId)
    .where('status', '=', 'accepted')
    .execute();
  return { clientType: client.client_type, accepted: new Set(accepted.map((d) => d.type)), enabled: client.enabled_by_compliance === 1 };
}

/** Sets the client's and its IBANs' `enabled_by_compliance`; the ids of the IBANs it changed. */
export async function setCompliance(trx: Tx, clientId: string, enabled: boolean, now: Date): Promise<string[]> {
  const at = now.toISOString();
  await trx.updateTable('clients').set({ enabled_by_compliance: bit(enabled), updated_at: at }).where('id', '=', clientId).execute();
  const ibans = await trx
    .updateTable('client_ibans')
    .set({ enabled_by_compliance: bit(enabled), updated_at: at })
    .where('client_ref', '=', clientId)
    .where('enabled_by_compliance', '!=', bit(enabled))
    .returning('id')
    .execute();
  return ibans.map((i) => i.id);
}

// IBANs

/** The account number of an IBAN row (a payout's destination); throws when there is none. */
export function ibanNumber(db: Db, id: string): Promise<{ iban: string }> {
  return db.selectFrom('client_ibans').select('iban').where('id', '=', id).executeTakeFirstOrThrow();
}

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

/** A new IBAN's row: enabled by compliance as its (locked) client is. */
export async function insertIban(trx: Tx, client: Client, values: IbanValues, now: Date): Promise<ClientIban> {
  const row: ClientIbanRow = {
    ...values,
    ...owned(client.environment_id, now),
    client_ref: client.id,
    enabled: bit(values.enabled),
    enabled_by_compliance: bit(client.enabled_by_compliance),
  };
  await trx.insertInto('client_ibans').values(row).execute();
  return ibanOf(row);
}

/** The IBAN, its row locked until the transaction ends. */
export async function lockIban(trx: Tx, environmentId: string, clientId: string, id: string): Promise<ClientIban | undefined> {
  const row = await forUpdate(
    trx,
    trx.selectFrom('client_ibans').selectAll().where('environment_id', '=', environmentId).where('client_ref', '=', clientId).where('id', '=', id),
  ).executeTakeFirst();
  return row && ibanOf(row);
}

/** The whole (merged, re-validated) IBAN written over its row. */
export async function writeIban(trx: Tx, id: string, values: IbanValues, now: Date): Promise<void> {
  await trx
    .updateTable('client_ibans')
    .set({ ...values, enabled: bit(values.enabled), updated_at: now.toISOString() })
    .where('id', '=', id)
    .execute();
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
 * A verdict on a pending document, by a conditional UPDATE (`status = 'pending'`): of two
 * reviewers racing for one document exactly one records it; false for the other.
 */
export async function claimDocument(trx: Tx, docId: string, verdict: Verdict, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const claimed = await trx
    .updateTable('client_documents')
    .set({ status: verdict.status, status_reason: verdict.reason, reviewed_at: at, updated_at: at })
    .where('id', '=', docId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
