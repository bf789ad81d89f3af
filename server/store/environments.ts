import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { uuidv7 } from '../domain/ids';
import { insertApiKey, newApiKeyRow } from './api-keys';
import { type Actor, recordAuditEach } from './audit';
import { keptPerDatabase, settingsChanged } from './auth-changes';
import { pairedIds, withItsPair } from './environment-pairs';
import { type Db, inTransaction, type Tx } from './db';
import type { EnvironmentMode, EnvironmentRow } from './schema';

// Environments' rows, written here alone (WRITERS in eslint.config.js): an environment
// created with its first key, its settings, secrets and time zone, and for the other
// modules' flows the brand (branding.ts), the raw card numbers setting (read by
// saved-cards.ts) and a pair made or ended (environment-pairs.ts says where shared settings go).

export interface NewKeys {
  environment_id: string;
  name: string;
  public_key: string;
  secret_key: string;
  webhook_secret: string;
  allowed_origins: string[];
}

/** Standard Webhooks form: whsec_ + base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export async function createEnvironment(
  db: Db,
  input: { name: string; allowedOrigins?: string[]; isDemo?: boolean; mode?: EnvironmentMode; now: Date },
): Promise<NewKeys> {
  const id = uuidv7(input.now.getTime());
  const mode = input.mode ?? 'sandbox';
  // The demo shows test cards working: a live environment has none.
  if (input.isDemo && mode === 'live') throw new Error('a demo environment is always a sandbox');
  // The first key pair, labelled Default, under the environment's id (as migration 031 did
  // for existing environments). The environment row keeps a copy of its public key and
  // hash for older readers; authentication reads api_keys (store/api-keys.ts).
  const { row: key, key: pair } = newApiKeyRow({ id, mode }, 'Default', input.now, id);
  const webhookSecret = newWebhookSecret();
  const allowed = input.allowedOrigins ?? [];
  await inTransaction(db, async (trx) => {
    await trx
      .insertInto('environments')
      .values({
        id,
        name: input.name,
        public_key: key.public_key,
        secret_hash: key.secret_hash,
        webhook_secret: webhookSecret,
        return_secret: newWebhookSecret(),
        allowed_origins: JSON.stringify(allowed),
        is_demo: input.isDemo ? 1 : 0,
        mode,
        // A live environment takes cards through the hosted page only, until its operator
        // turns raw card numbers on (docs/payments.md): the API path is the heaviest PCI scope.
        raw_card_numbers: mode === 'live' ? 0 : 1,
        created_at: input.now.toISOString(),
      })
      .execute();
    await insertApiKey(trx, key);
  });
  return {
    environment_id: id,
    name: input.name,
    public_key: pair.public_key,
    secret_key: pair.secret_key,
    webhook_secret: webhookSecret,
    allowed_origins: allowed,
  };
}

export function findEnvironment(db: Db, id: string) {
  return db.selectFrom('environments').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findDemoEnvironment(db: Db) {
  return db.selectFrom('environments').selectAll().where('is_demo', '=', 1).executeTakeFirst();
}

export async function countEnvironments(db: Db): Promise<number> {
  const row = await db
    .selectFrom('environments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** An environment as the keys command shows it: allowed origins decoded (the column is JSON text). */
export type Environment = Omit<EnvironmentRow, 'allowed_origins' | 'is_demo' | 'secret_hash'> & { allowed_origins: string[]; is_demo: boolean };

const environmentOf = ({ secret_hash: _, ...row }: EnvironmentRow): Environment => ({
  ...row,
  allowed_origins: JSON.parse(row.allowed_origins) as string[],
  is_demo: row.is_demo === 1,
});

export async function updateEnvironment(
  db: Db,
  id: string,
  /** rateLimit: requests per second for this environment; null goes back to the service's default. */
  patch: { name?: string; allowedOrigins?: string[]; rotateWebhookSecret?: boolean; rateLimit?: number | null },
): Promise<Environment | undefined> {
  const values: Partial<EnvironmentRow> = {};
  if (patch.name !== undefined) values.name = patch.name;
  if (patch.allowedOrigins) values.allowed_origins = JSON.stringify(patch.allowedOrigins);
  if (patch.rotateWebhookSecret) values.webhook_secret = newWebhookSecret();
  if (patch.rateLimit !== undefined) values.rate_limit = patch.rateLimit;
  if (Object.keys(values).length) {
    await db.updateTable('environments').set(values).where('id', '=', id).execute();
    settingsChanged();
  }
  const row = await findEnvironment(db, id);
  return row && environmentOf(row);
}

/** The shop's time zone for its dashboard (an IANA name the caller has checked), in both halves of a pair. */
/** Saves the time zone where the pair shares it, audited as settings_changed in the same transaction. */
export async function setTimeZone(db: Db, id: string, timeZone: string, by: Actor, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.updateTable('environments').set({ time_zone: timeZone }).where(withItsPair(id)).execute();
    await recordAuditEach(trx, await pairedIds(trx, id), by, 'settings_changed', { fields: 'time_zone', time_zone: timeZone }, now);
  });
}

/** The environment's return-signing secret and, during a roll's overlap, the one it replaced. */
export interface ReturnSecrets {
  secret: string;
  previous: { secret: string; expiresAt: string } | null;
}

const returnSecretsOf = (row: Pick<EnvironmentRow, 'return_secret' | 'previous_return_secret' | 'previous_return_secret_expires_at'>, now: Date): ReturnSecrets => ({
  secret: row.return_secret!,
  previous:
    row.previous_return_secret && row.previous_return_secret_expires_at && Date.parse(row.previous_return_secret_expires_at) > now.getTime()
      ? { secret: row.previous_return_secret, expiresAt: row.previous_return_secret_expires_at }
      : null,
});

const returnSecretsRow = (db: Db, environmentId: string) =>
  db.selectFrom('environments').select(['return_secret', 'previous_return_secret', 'previous_return_secret_expires_at']).where('id', '=', environmentId).executeTakeFirstOrThrow();

/** Each database's return secrets, kept until an environment changes (auth-changes.ts): read by every paid or cancelled answer. */
const keptReturnSecrets = keptPerDatabase(returnSecretsRow);

export async function findReturnSecrets(db: Db, environmentId: string, now: Date): Promise<ReturnSecrets> {
  return returnSecretsOf(await keptReturnSecrets(db, environmentId), now);
}

/** A new return-signing secret; the replaced one keeps signing for `overlapMs` (0: not at all). */
export async function rollReturnSecret(db: Db, environmentId: string, now: Date, overlapMs: number): Promise<ReturnSecrets> {
  const rolled = await inTransaction(db, async (trx) => {
    const { return_secret } = await trx.selectFrom('environments').select('return_secret').where('id', '=', environmentId).executeTakeFirstOrThrow();
    await trx
      .updateTable('environments')
      .set({
        return_secret: newWebhookSecret(),
        previous_return_secret: overlapMs > 0 ? return_secret : null,
        previous_return_secret_expires_at: overlapMs > 0 ? new Date(now.getTime() + overlapMs).toISOString() : null,
      })
      .where('id', '=', environmentId)
      .execute();
    return returnSecretsOf(await returnSecretsRow(trx, environmentId), now);
  });
  settingsChanged();
  return rolled;
}

export async function listEnvironments(db: Db) {
  const rows = await db
    .selectFrom('environments')
    .select(['id', 'name', 'public_key', 'allowed_origins', 'rate_limit', 'created_at'])
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, allowed_origins: JSON.parse(r.allowed_origins) as string[] }));
}

/** The merchant's brand on its pages (api/branding.ts): colours as applied, the logo's hash. */
export interface PageBrand {
  color: string | null;
  accent: string | null;
  logo: string | null;
}

/** The merchant a payment or sign-up page is for: its name, the origins allowed to embed it, its brand. */
export interface Merchant {
  name: string;
  allowedOrigins: string[];
  brand: PageBrand;
  /** A sandbox's pages say they take no real money. */
  sandbox: boolean;
}

/**
 * The environment's columns a page reads, as selections of a query joined to
 * `environments`: the name customers see (the display name, else the environment's).
 */
export const MERCHANT_COLUMNS = [
  sql<string>`coalesce(environments.display_name, environments.name)`.as('merchant_name'),
  'environments.allowed_origins as merchant_origins',
  'environments.brand_color as merchant_color',
  'environments.accent_color as merchant_accent',
  'environments.logo_sha256 as merchant_logo',
  'environments.mode as merchant_mode',
] as const;

export interface MerchantColumns {
  merchant_name: string;
  merchant_origins: string;
  merchant_color?: string | null;
  merchant_accent?: string | null;
  merchant_logo?: string | null;
  merchant_mode: EnvironmentMode;
}

/**
 * A page's row read with MERCHANT_COLUMNS, split in two: the row as it is in its table, and
 * the merchant decoded (allowed_origins is JSON text).
 */
export function splitMerchant<T extends MerchantColumns>(found: T): { row: Omit<T, keyof MerchantColumns>; merchant: Merchant } {
  const { merchant_name, merchant_origins, merchant_color, merchant_accent, merchant_logo, merchant_mode, ...row } = found;
  const merchant: Merchant = {
    name: merchant_name,
    allowedOrigins: JSON.parse(merchant_origins) as string[],
    brand: { color: merchant_color ?? null, accent: merchant_accent ?? null, logo: merchant_logo ?? null },
    sandbox: merchant_mode !== 'live',
  };
  return { row, merchant };
}

/** Saves brand fields (store/branding.ts) where the pair shares them: the environment and, for a live half, its sandbox. */
export async function setSharedFields(trx: Tx, environmentId: string, values: { [field: string]: string | null | undefined }): Promise<void> {
  await trx.updateTable('environments').set(values).where(withItsPair(environmentId)).execute();
}

/** The logo's hash (null: none) in the environments `ids` (store/branding.ts). */
export async function setLogoHash(trx: Tx, ids: string[], sha256: string | null): Promise<void> {
  await trx.updateTable('environments').set({ logo_sha256: sha256 }).where('id', 'in', ids).execute();
}

/** Turns the environment's `raw_card_numbers` setting on or off (read by store/saved-cards.ts rawCardNumbers); false when there is no such environment. */
export async function setRawCardNumbers(db: Db, environmentId: string, on: boolean): Promise<boolean> {
  const set = await inTransaction(db, (trx) => trx.updateTable('environments').set({ raw_card_numbers: on ? 1 : 0 }).where('id', '=', environmentId).executeTakeFirst());
  return Number(set.numUpdatedRows) === 1;
}

// Pairs (store/environment-pairs.ts: where a shared setting goes).

export type PairRefusal = 'not_found' | 'same_mode' | 'demo' | 'already_paired';

/** Pairs two environments, one sandbox and one live, neither the demo nor paired already; in both audit logs. */
export async function pairEnvironments(db: Db, oneId: string, otherId: string, now: Date, by: Actor): Promise<{ pairId: string } | { refused: PairRefusal }> {
  return inTransaction(db, async (trx) => {
    const rows = await trx.selectFrom('environments').select(['id', 'mode', 'is_demo', 'pair_id']).where('id', 'in', [oneId, otherId]).execute();
    const [a, b] = rows;
    if (!a || !b) return { refused: 'not_found' as const };
    if (a.mode === b.mode) return { refused: 'same_mode' as const };
    if (rows.some((r) => r.is_demo === 1)) return { refused: 'demo' as const };
    if (rows.some((r) => r.pair_id)) return { refused: 'already_paired' as const };
    // The sandbox's id names the pair: the environment a shop starts with.
    const pairId = rows.find((r) => r.mode === 'sandbox')!.id;
    // Only rows still unpaired: two pairings at once cannot both take the same environment.
    const paired = await trx.updateTable('environments').set({ pair_id: pairId }).where('id', 'in', [oneId, otherId]).where('pair_id', 'is', null).executeTakeFirst();
    if (Number(paired.numUpdatedRows) !== 2) throw new Error('environment paired concurrently');
    await auditBoth(trx, 'environment_paired', [oneId, otherId], by, now);
    return { pairId };
  });
}

/** Each half's log says which environment it was paired with or parted from, and who did it. */
async function auditBoth(db: Db, action: string, [oneId, otherId]: [string, string], by: Actor, now: Date): Promise<void> {
  for (const [id, other] of [[oneId, otherId], [otherId, oneId]] as const) {
    await recordAuditEach(db, [id], by, action, { with: other }, now);
  }
}

/**
 * Ends the pair the environment is in, named by either half: the switch goes and the brand
 * no longer flows; each keeps the settings it has. Audited in both halves' logs.
 */
export async function unpairEnvironment(db: Db, environmentId: string, now: Date, by: Actor): Promise<{ environments: string[] } | { refused: 'not_found' | 'not_paired' }> {
  return inTransaction(db, async (trx) => {
    const row = await trx.selectFrom('environments').select('pair_id').where('id', '=', environmentId).executeTakeFirst();
    if (!row) return { refused: 'not_found' as const };
    if (!row.pair_id) return { refused: 'not_paired' as const };
    const halves = await trx.selectFrom('environments').select('id').where('pair_id', '=', row.pair_id).orderBy('mode').execute();
    const [one, other] = halves.map((h) => h.id);
    // Only while still paired: of two unpairings at once, one ends the pair and the other finds none.
    const parted = await trx.updateTable('environments').set({ pair_id: null }).where('pair_id', '=', row.pair_id).executeTakeFirst();
    if (Number(parted.numUpdatedRows) !== halves.length) return { refused: 'not_paired' as const };
    await auditBoth(trx, 'environment_unpaired', [one!, other!], by, now);
    return { environments: [one!, other!] };
  });
}
