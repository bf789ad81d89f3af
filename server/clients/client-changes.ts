import { isCompliant, type Verdict } from '../domain/compliance';
import {
  type Client,
  type ClientIban,
  type ClientValues,
  claimDocument,
  complianceFacts,
  getClient,
  getIban,
  type IbanValues,
  insertClient,
  insertIban,
  lockClient,
  lockIban,
  setCompliance,
  uniquely,
  writeClient,
  writeIban,
} from '../store/clients';
import { type Db, inTransaction, type Tx } from '../store/db';
import type { Outbox } from '../store/events';

// Every change to a client, its IBANs and its documents, with the events that tell it. A
// client's compliance and its IBANs' follow from its accepted documents; every change to
// them locks the client row first, so a review, a PATCH and a new IBAN never decide on a
// state another one is changing. An external id already taken is DuplicateKeyError.

/** Sets the client's and its IBANs' `enabled_by_compliance` from its accepted documents, with their events. */
async function decideCompliance(trx: Tx, clientId: string, now: Date, outbox: Outbox): Promise<void> {
  const facts = await complianceFacts(trx, clientId);
  const enabled = isCompliant(facts.clientType, facts.accepted);
  if (enabled === facts.enabled) return;
  const ibans = await setCompliance(trx, clientId, enabled, now);
  await outbox.emit(trx, 'client.compliance_changed', clientId, now);
  for (const id of ibans) await outbox.emit(trx, 'iban.compliance_changed', id, now);
}

export function createClient(db: Db, environmentId: string, values: ClientValues, now: Date, outbox: Outbox): Promise<Client> {
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      const client = await insertClient(trx, environmentId, values, now);
      await outbox.emit(trx, 'client.created', client.id, now);
      return client;
    }),
  );
}

/**
 * Writes the whole (merged, re-validated) client; its compliance is decided again, since
 * a change of `client_type` changes which documents it needs.
 */
export function changeClient(
  db: Db,
  a: { environmentId: string; id: string; merge: (current: Client) => ClientValues; now: Date; outbox: Outbox },
): Promise<Client | undefined> {
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      const current = await lockClient(trx, a.environmentId, a.id);
      if (!current) return undefined;
      await writeClient(trx, a.id, a.merge(current), a.now);
      await a.outbox.emit(trx, 'client.updated', a.id, a.now);
      await decideCompliance(trx, a.id, a.now, a.outbox);
      return getClient(trx, a.environmentId, a.id);
    }),
  );
}

/** An IBAN starts as enabled by compliance as its client is; undefined when there is no such client. */
export function addIban(db: Db, a: { environmentId: string; clientId: string; values: IbanValues; now: Date; outbox: Outbox }): Promise<ClientIban | undefined> {
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      const client = await lockClient(trx, a.environmentId, a.clientId);
      if (!client) return undefined;
      const iban = await insertIban(trx, client, a.values, a.now);
      await a.outbox.emit(trx, 'iban.created', iban.id, a.now);
      return iban;
    }),
  );
}

export function changeIban(
  db: Db,
  a: { environmentId: string; clientId: string; id: string; merge: (current: ClientIban) => IbanValues; now: Date; outbox: Outbox },
): Promise<ClientIban | undefined> {
  return uniquely(() =>
    inTransaction(db, async (trx) => {
      const current = await lockIban(trx, a.environmentId, a.clientId, a.id);
      if (!current) return undefined;
      await writeIban(trx, a.id, a.merge(current), a.now);
      await a.outbox.emit(trx, 'iban.updated', a.id, a.now);
      return getIban(trx, a.environmentId, a.clientId, a.id);
    }),
  );
}

/**
 * Records a verdict on a pending document and what follows from it, in one transaction:
 * of two reviewers racing for one document exactly one records it; false for the other.
 */
export function recordVerdict(db: Db, doc: { id: string; client_ref: string; environment_id: string }, verdict: Verdict, now: Date, outbox: Outbox): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    await lockClient(trx, doc.environment_id, doc.client_ref);
    if (!(await claimDocument(trx, doc.id, verdict, now))) return false;
    await outbox.emit(trx, verdict.status === 'accepted' ? 'document.accepted' : 'document.rejected', doc.id, now);
    await decideCompliance(trx, doc.client_ref, now, outbox);
    return true;
  });
}
