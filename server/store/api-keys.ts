import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { uuidv7 } from '../domain/ids';
import { keysChanged } from './auth-changes';
import { compiledOnce } from './compiled';
import type { Db } from './db';
import type { ApiKeyRow, EnvironmentMode, EnvironmentRow } from './schema';

// An environment's API key pairs: several per environment, each labelled; rolled with an
// overlap window during which the replaced secret still works; revoked at once.

/**
 * The secret key is 256 random bits: a plain SHA-256 is enough to make the stored value
 * useless to a reader of the database, and cheap on every request.
 */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest();

// The prefix says which kind of environment a key opens (pk_test_ / pk_live_), so a live
// key pasted into a test set-up shows at a glance. Keys made before had none (pk_…) and
// keep working: a key is found by its whole public key, never by its prefix.
const KEY_MODE = { sandbox: 'test', live: 'live' } as const;
export const newPublicKey = (mode: EnvironmentMode) => `pk_${KEY_MODE[mode]}_${randomBytes(18).toString('base64url')}`;
export const newSecretKey = (mode: EnvironmentMode) => `sk_${KEY_MODE[mode]}_${randomBytes(32).toString('base64url')}`;

export interface NewApiKey {
  id: string;
  label: string;
  public_key: string;
  /** Shown once, never stored. */
  secret_key: string;
}

/** The row of a new key pair (the caller inserts it, alone or with its environment). */
export function newApiKeyRow(
  environment: { id: string; mode: EnvironmentMode },
  label: string,
  now: Date,
  id = uuidv7(now.getTime()),
): { row: ApiKeyRow; key: NewApiKey } {
  const environmentId = environment.id;
  const publicKey = newPublicKey(environment.mode);
  const secretKey = newSecretKey(environment.mode);
  const row: ApiKeyRow = {
    id,
    environment_id: environmentId,
    label,
    public_key: publicKey,
    secret_hash: hashSecret(secretKey).toString('hex'),
    previous_secret_hash: null,
    previous_expires_at: null,
    revoked_at: null,
    rolled_at: null,
    created_at: now.toISOString(),
  };
  return { row, key: { id, label, public_key: publicKey, secret_key: secretKey } };
}

export async function createApiKey(db: Db, environment: { id: string; mode: EnvironmentMode }, label: string, now: Date): Promise<NewApiKey> {
  const { row, key } = newApiKeyRow(environment, label, now);
  await db.insertInto('api_keys').values(row).execute();
  return key;
}

/** A key as its owners see it: no hashes. */
export type ApiKey = Omit<ApiKeyRow, 'secret_hash' | 'previous_secret_hash'>;

const shown = ['id', 'environment_id', 'label', 'public_key', 'previous_expires_at', 'revoked_at', 'rolled_at', 'created_at'] as const;

export function listApiKeys(db: Db, environmentId: string): Promise<ApiKey[]> {
  return db.selectFrom('api_keys').select(shown).where('environment_id', '=', environmentId).orderBy('created_at').orderBy('id').execute();
}

/** One of the environment's keys, by id or public key; another environment's is not found. */
export function findApiKey(db: Db, environmentId: string, idOrPublicKey: string): Promise<ApiKey | undefined> {
  return db
    .selectFrom('api_keys')
    .select(shown)
    .where('environment_id', '=', environmentId)
    .where((eb) => eb.or([eb('id', '=', idOrPublicKey), eb('public_key', '=', idOrPublicKey)]))
    .executeTakeFirst();
}

/** Finds a key by public key alone (the CLI, whose operator may act on any environment). */
export function findApiKeyByPublicKey(db: Db, publicKey: string): Promise<ApiKey | undefined> {
  return db.selectFrom('api_keys').select(shown).where('public_key', '=', publicKey).executeTakeFirst();
}

/**
 * A new secret for a live key; the old one keeps working for `overlapMs` (0: stops at
 * once). A roll during an overlap ends the earlier old secret: only one is kept.
 * undefined when the key is not the environment's or is revoked.
 */
export async function rollApiKey(
  db: Db,
  environmentId: string,
  keyId: string,
  overlapMs: number,
  now: Date,
): Promise<(NewApiKey & { previous_expires_at: string | null }) | undefined> {
  const key = await findApiKey(db, environmentId, keyId);
  if (!key || key.revoked_at) return undefined;
  const { mode } = await db.selectFrom('environments').select('mode').where('id', '=', environmentId).executeTakeFirstOrThrow();
  const secretKey = newSecretKey(mode);
  const previousExpiresAt = overlapMs > 0 ? new Date(now.getTime() + overlapMs).toISOString() : null;
  const result = await db
    .updateTable('api_keys')
    .set((eb) => ({
      previous_secret_hash: overlapMs > 0 ? eb.ref('secret_hash') : null,
      previous_expires_at: previousExpiresAt,
      secret_hash: hashSecret(secretKey).toString('hex'),
      rolled_at: now.toISOString(),
    }))
    .where('id', '=', key.id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  keysChanged();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  return { id: key.id, label: key.label, public_key: key.public_key, secret_key: secretKey, previous_expires_at: previousExpiresAt };
}

/** Revokes a key at once (its secret and any rolled one); false when there was none to revoke. */
export async function revokeApiKey(db: Db, environmentId: string, keyId: string, now: Date): Promise<boolean> {
  const key = await findApiKey(db, environmentId, keyId);
  if (!key) return false;
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now.toISOString(), previous_secret_hash: null, previous_expires_at: null })
    .where('id', '=', key.id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  keysChanged();
  return Number(result.numUpdatedRows) === 1;
}

// Compared against when there is nothing to compare, so every failure costs the same.
const DUMMY_HASH = hashSecret('dummy').toString('hex');

/**
 * What a request knows of its environment: everything but its secrets, which only the
 * code that signs reads (and which would be opened, sealed-secrets.ts, on every request).
 */
const AUTHENTICATED_COLUMNS = [
  'id',
  'name',
  'public_key',
  'allowed_origins',
  'is_demo',
  'mode',
  'created_at',
  'rate_limit',
  'support_email',
  'display_name',
  'brand_color',
  'accent_color',
  'logo_sha256',
] as const satisfies readonly (keyof EnvironmentRow)[];
export type AuthenticatedEnvironment = Pick<EnvironmentRow, (typeof AUTHENTICATED_COLUMNS)[number]>;

// One indexed lookup by public key, compiled once: what a key check reads (key-checks.ts keeps it).
const keyByPublicKey = compiledOnce((db, publicKey: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('environments', 'environments.id', 'api_keys.environment_id')
    .select(AUTHENTICATED_COLUMNS.map((c) => `environments.${c}` as const))
    .select([
      'api_keys.secret_hash as key_secret_hash',
      'api_keys.previous_secret_hash as key_previous_hash',
      'api_keys.previous_expires_at as key_previous_expires_at',
      'api_keys.revoked_at as key_revoked_at',
    ])
    .where('api_keys.public_key', '=', publicKey),
);

/** A key as a key check reads it: its environment, its hashes and its state. */
export type KeyRow = Awaited<ReturnType<typeof keyByPublicKey>>[number];

export async function readKeyRow(db: Db, publicKey: string): Promise<KeyRow | undefined> {
  const [row] = await keyByPublicKey(db, publicKey);
  return row;
}

/**
 * The environment whose key pair this is, or null: unknown public key (no row), revoked
 * key, or a secret that is neither the current one nor a rolled one still within its
 * overlap. Both hashes are always compared, in constant time.
 */
export function verifyKey(row: KeyRow | undefined, secretKey: string, now: Date): AuthenticatedEnvironment | null {
  const given = hashSecret(secretKey);
  const current = timingSafeEqual(given, Buffer.from(row?.key_secret_hash ?? DUMMY_HASH, 'hex'));
  const previousValid = !!row?.key_previous_hash && !!row.key_previous_expires_at && now.toISOString() < row.key_previous_expires_at;
  const previous = timingSafeEqual(given, Buffer.from(previousValid ? row!.key_previous_hash! : DUMMY_HASH, 'hex')) && previousValid;
  if (!row || row.key_revoked_at || !(current || previous)) return null;
  const { key_secret_hash: _a, key_previous_hash: _b, key_previous_expires_at: _c, key_revoked_at: _d, ...environment } = row;
  return environment;
}
