import type { QueryCreator } from 'kysely';
import { randomBytes } from 'node:crypto';
import { uuidv7 } from '../domain/ids';
import { changesOf, keptUntilChanged, settingsChanged } from './auth-changes';
import { databaseOf, type Db, inTransaction, type Tx } from './db';
import type { EventType } from '../domain/event-types';
import type { FailingSpell } from './failing-endpoints';
import { countAndPage, type Page } from './paging';
import type { Tables, WebhookEndpointRow } from './schema';

// Webhook endpoints: URLs of an environment that receive its events, each with a signing
// secret of its own (rolled with an overlap window during which the old one signs too).

/** Standard Webhooks form: whsec_ + base64 of 32 random bytes. */
const newEndpointSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Event types, or '*' for every one. */
export type EnabledEvent = EventType | '*';

export interface EndpointFields {
  url: string;
  description: string | null;
  enabled_events: EnabledEvent[];
  enabled: boolean;
}

/** The endpoint as the store hands it out: its event list parsed. */
export type StoredEndpoint = Omit<WebhookEndpointRow, 'enabled_events'> & { enabled_events: EnabledEvent[] };
const endpointOf = (row: WebhookEndpointRow): StoredEndpoint => ({ ...row, enabled_events: JSON.parse(row.enabled_events) as EnabledEvent[] });

/** True when an endpoint that lists `events` takes an event of `type`. */
const takesEvent = (events: EnabledEvent[], type: string) => events.includes('*') || events.includes(type as EventType);

/** Where an event goes: what a delivery needs of an endpoint, without its secrets (never opened per event). */
export type EventDestination = Pick<WebhookEndpointRow, 'id' | 'url'>;

/** What an event's delivery needs of an enabled endpoint, with the events it takes. */
type EnabledEndpoint = EventDestination & { enabled_events: EnabledEvent[] };

const readEnabled = async (db: Db, environmentId: string): Promise<EnabledEndpoint[]> =>
  (
    await db
      .selectFrom('webhook_endpoints')
      .select(['id', 'url', 'enabled_events'])
      .where('environment_id', '=', environmentId)
      .where('enabled', '=', 1)
      .orderBy('id')
      .execute()
  ).map((row) => ({ id: row.id, url: row.url, enabled_events: JSON.parse(row.enabled_events) as EnabledEvent[] }));

// Every change that tells an event reads its environment's enabled endpoints (two reads of
// every payment, issue 49): each process keeps them until a setting may have changed (the
// key checks' watch, auth-changes.ts: this process's writes at once, another's within the
// watch's window, migration 133). A transaction that wrote an endpoint reads them itself,
// as it sees them, once (forgetRead: again after its next write).
const kept = new WeakMap<Db, (environmentId: string, db?: Db) => Promise<EnabledEndpoint[]>>();
const readInTransaction = new WeakMap<Db, Map<string, Promise<EnabledEndpoint[]>>>();
/** Transactions that wrote an endpoint: what they read may never be committed, so it is not kept. */
const wroteEndpoints = new WeakSet<Db>();

function enabledEndpoints(db: Db, environmentId: string): Promise<EnabledEndpoint[]> {
  const database = databaseOf(db);
  let endpointsOf = kept.get(database);
  if (!endpointsOf) {
    const read = (id: string, through = database) => readEnabled(through, id);
    kept.set(database, (endpointsOf = keptUntilChanged(changesOf(database), read, { clean: (trx) => !wroteEndpoints.has(trx) })));
  }
  if (!db.isTransaction) return endpointsOf(environmentId);
  let perEnvironment = readInTransaction.get(db);
  if (!perEnvironment) readInTransaction.set(db, (perEnvironment = new Map()));
  let endpoints = perEnvironment.get(environmentId);
  if (!endpoints) perEnvironment.set(environmentId, (endpoints = endpointsOf(environmentId, db)));
  return endpoints;
}

/** An endpoint written: the transaction reads them again, and every kept list is dropped. */
function forgetRead(db: Db) {
  readInTransaction.delete(db);
  if (db.isTransaction) wroteEndpoints.add(db);
  settingsChanged();
}

export async function createEndpoint(db: Db, environmentId: string, f: EndpointFields, now: Date): Promise<StoredEndpoint> {
  const at = now.toISOString();
  const row: WebhookEndpointRow = {
    id: uuidv7(now.getTime()),
    environment_id: environmentId,
    url: f.url,
    description: f.description,
    enabled_events: JSON.stringify(f.enabled_events),
    enabled: f.enabled ? 1 : 0,
    disabled_reason: null,
    secret: newEndpointSecret(),
    previous_secret: null,
    previous_expires_at: null,
    last_delivered_at: null,
    created_at: at,
    updated_at: at,
  };
  await db.insertInto('webhook_endpoints').values(row).execute();
  forgetRead(db);
  return endpointOf(row);
}

export async function getEndpoint(db: Db, environmentId: string | null, id: string): Promise<StoredEndpoint | undefined> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  const row = await query.executeTakeFirst();
  return row && endpointOf(row);
}

export async function listEndpoints(db: Db, environmentId: string, page: Page) {
  const { count, rows } = await countAndPage<WebhookEndpointRow>(
    db.selectFrom('webhook_endpoints').where('environment_id', '=', environmentId),
    page,
  );
  return { count, rows: rows.map(endpointOf) };
}

/** The environment's enabled endpoints that take events of `type`. */
export async function matchingEndpoints(db: Db, environmentId: string, type: string): Promise<EventDestination[]> {
  return (await enabledEndpoints(db, environmentId)).filter((e) => takesEvent(e.enabled_events, type)).map(({ id, url }) => ({ id, url }));
}

export async function updateEndpoint(
  db: Db,
  environmentId: string,
  id: string,
  patch: Partial<EndpointFields>,
  now: Date,
): Promise<StoredEndpoint | undefined> {
  const values: Partial<WebhookEndpointRow> = { updated_at: now.toISOString() };
  if (patch.url !== undefined) values.url = patch.url;
  if (patch.description !== undefined) values.description = patch.description;
  if (patch.enabled_events !== undefined) values.enabled_events = JSON.stringify(patch.enabled_events);
  // Enabling again clears why the service disabled it.
  if (patch.enabled !== undefined) Object.assign(values, { enabled: patch.enabled ? 1 : 0, disabled_reason: null });
  await db.updateTable('webhook_endpoints').set(values).where('environment_id', '=', environmentId).where('id', '=', id).execute();
  forgetRead(db);
  return getEndpoint(db, environmentId, id);
}

/** Deletes the endpoint (its deliveries not yet made are stopped first: events.ts stopEndpointDeliveries). */
export async function deleteEndpoint(db: Db, environmentId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  forgetRead(db);
  return Number(result.numDeletedRows) === 1;
}

/** A new secret; the one it replaces goes on signing until `overlapEnds`. */
export async function rollEndpointSecret(db: Db, environmentId: string, id: string, now: Date, overlapEnds: Date) {
  // The secret also as stored (sealed), under another name so it is not opened: a roll racing another replaces only what it read.
  const current = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => ['secret', eb.ref('secret').as('stored')])
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!current) return undefined;
  await db
    .updateTable('webhook_endpoints')
    .set({
      secret: newEndpointSecret(),
      previous_secret: current.secret,
      previous_expires_at: overlapEnds.toISOString(),
      updated_at: now.toISOString(),
    })
    .where('id', '=', id)
    .where('secret', '=', current.stored)
    .execute();
  return getEndpoint(db, environmentId, id);
}

/** What a delivery is signed with: an endpoint's secrets, or an environment's secret for a notify_url (no previous one). */
export type Signer = Pick<WebhookEndpointRow, 'secret' | 'previous_secret' | 'previous_expires_at'>;

/** The secrets that sign a delivery made at `now`: the current one, and the previous one within its overlap. */
export const signingSecrets = (e: Signer, now: Date): string[] =>
  e.previous_secret && e.previous_expires_at && now.toISOString() < e.previous_expires_at ? [e.secret, e.previous_secret] : [e.secret];

/** The endpoint received a delivery at `now`: the UPDATE, for the attempt's record to run with its own writes (store/events.ts). */
export const markEndpointDelivered = (q: QueryCreator<Tables>, id: string, now: Date) =>
  q.updateTable('webhook_endpoints').set({ last_delivered_at: now.toISOString() }).where('id', '=', id);

/**
 * Disables an endpoint that has received nothing since `failingSince` (the creation of a
 * delivery whose retries ran out). True when this call disabled it.
 */
export async function disableFailingEndpoint(db: Db, id: string, failingSince: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_reason: 'failing', updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('last_delivered_at', 'is', null), eb('last_delivered_at', '<', failingSince)]))
    .executeTakeFirst();
  const disabled = Number(result.numUpdatedRows) === 1;
  if (disabled) forgetRead(db);
  return disabled;
}

/**
 * Marks the spell mailed with a conditional UPDATE and, when this call marked it, runs
 * `queue` in the same transaction: two processes never mail one spell twice.
 */
export async function markSpellMailed(db: Db, spell: FailingSpell, queue: (trx: Tx) => Promise<void>): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const marked = await trx
      .updateTable('webhook_endpoints')
      .set({ failing_mailed_for: spell.since })
      .where('id', '=', spell.id)
      .where((eb) => eb.or([eb('failing_mailed_for', 'is', null), eb('failing_mailed_for', '<', spell.since)]))
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) !== 1) return false;
    await queue(trx);
    return true;
  });
}
