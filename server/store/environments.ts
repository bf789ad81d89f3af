import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { uuidv7 } from '../domain/ids';
import { newApiKeyRow } from './api-keys';
import { type Actor, recordAuditEach } from './audit';
import { changesOf, keptUntilChanged, settingsChanged } from './auth-changes';
import { pairedIds, withItsPair } from './environment-pairs';
import { type Db, inTransaction } from './db';
import type { EnvironmentMode, EnvironmentRow } from './schema';

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
    await trx.insertInto('api_keys').values(key).execute();
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
const keptSecrets = new WeakMap<Db, (environmentId: string) => ReturnType<typeof returnSecretsRow>>();

export async function findReturnSecrets(db: Db, environmentId: string, now: Date): Promise<ReturnSecrets> {
  // Inside a transaction, what it sees (a roll it made, perhaps).
  if (db.isTransaction) return returnSecretsOf(await returnSecretsRow(db, environmentId), now);
  let read = keptSecrets.get(db);
  if (!read) keptSecrets.set(db, (read = keptUntilChanged(changesOf(db), (id) => returnSecretsRow(db, id))));
  return returnSecretsOf(await read(environmentId), now);
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
