import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { uuidv7 } from '../domain/ids';
import { settingsChanged } from './auth-changes';
import { compiledOnce } from './compiled';
import { type Db, inTransaction, type Tx } from './db';
import type { ApiKeyRow, EnvironmentMode, EnvironmentRow } from './schema';

// An environment's API key pairs: several per environment, each labelled; rolled with an
// overlap window during which the replaced secret still works (one such older secret at a
// time, each keeping the expiry it was given); revoked at once.

/**
 * The secret key is 256 random bits: a plain SHA-256 is enough to make the stored value
 * useless to a reader of the database, and cheap on every request.
 */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest();

// The prefix says which kind of environment a key opens (pk_test_ / pk_live_), so a live
// key pasted into a test set-up shows at a glance. Keys made before had none (pk_…) and
// keep working: a key is found by its whole public key, never by its prefix.
const KEY_MODE = { sandbox: 'test', live: 'live' } as const;
const newPublicKey = (mode: EnvironmentMode) => `pk_${KEY_MODE[mode]}_${randomBytes(18).toString('base64url')}`;
const newSecretKey = (mode: EnvironmentMode) => `sk_${KEY_MODE[mode]}_${randomBytes(32).toString('base64url')}`;

/** A key's label: one line (the shared text rule, checked where it is read), at most this long. */
export const KEY_LABEL_MAX = 100;

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

/** Inserts a key's row: a new key, or an environment's first (store/environments.ts). */
export async function insertApiKey(trx: Tx, row: ApiKeyRow): Promise<void> {
  await trx.insertInto('api_keys').values(row).execute();
}

export async function createApiKey(db: Db, environment: { id: string; mode: EnvironmentMode }, label: string, now: Date, keep?: KeepNewSecret): Promise<NewApiKey> {
  const { row, key } = newApiKeyRow(environment, label, now);
  await inTransaction(db, async (trx) => {
    await insertApiKey(trx, row);
    await keep?.(trx, key);
  });
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

/** What a roll did: the new secret, or why nothing changed. */
export type RollOutcome =
  /** `olderUntil`: when the older secret still accepted stops (null: none is). */
  | { kind: 'rolled'; key: NewApiKey; olderUntil: string | null }
  /** Not the environment's key, or revoked. */
  | { kind: 'gone' }
  /** An overlap asked while an older secret is still within its own: it keeps its promise, so no roll. */
  | { kind: 'older_secret_working'; until: string };

/** Runs in the roll's or creation's transaction with the new secret (the dashboard keeps it there for its one showing). */
export type KeepNewSecret = (trx: Db, key: NewApiKey) => Promise<void>;

/**
 * A new secret for a live key. With an overlap, the replaced secret keeps working that long
 * and takes the one older-secret slot, which must be free: a roll within an older secret's
 * window is refused (`older_secret_working`), since ending it early would break the
 * servers it was promised to. Without an overlap the replaced secret stops at once and the
 * older one, if any, keeps its own expiry: always allowed. The check and the write are one
 * conditional UPDATE, so of two concurrent rolls with an overlap only one can pass.
 */
export async function rollApiKey(db: Db, environmentId: string, keyId: string, overlapMs: number, now: Date, keep?: KeepNewSecret): Promise<RollOutcome> {
  const at = now.toISOString();
  const outcome = await inTransaction(db, async (trx): Promise<RollOutcome> => {
    const env = await trx.selectFrom('environments').select('mode').where('id', '=', environmentId).executeTakeFirst();
    if (!env) return { kind: 'gone' };
    const secretKey = newSecretKey(env.mode);
    const secretHash = hashSecret(secretKey).toString('hex');
    const rolled = await trx
      .updateTable('api_keys')
      .set((eb) =>
        overlapMs > 0
          ? { previous_secret_hash: eb.ref('secret_hash'), previous_expires_at: new Date(now.getTime() + overlapMs).toISOString(), secret_hash: secretHash, rolled_at: at }
          : { secret_hash: secretHash, rolled_at: at },
      )
      .where('environment_id', '=', environmentId)
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .$if(overlapMs > 0, (q) => q.where((eb) => eb.or([eb('previous_expires_at', 'is', null), eb('previous_expires_at', '<=', at)])))
      .returning(['id', 'label', 'public_key', 'previous_expires_at', 'revoked_at'])
      .executeTakeFirst();
    if (!rolled) return refusal(trx, environmentId, keyId, now);
    const key = { id: rolled.id, label: rolled.label, public_key: rolled.public_key, secret_key: secretKey };
    await keep?.(trx, key);
    return { kind: 'rolled', key, olderUntil: olderSecretUntil(rolled, now) };
  });
  settingsChanged();
  return outcome;
}

/** When the key's older secret stops, while it still works; else null. */
export const olderSecretUntil = (key: Pick<ApiKeyRow, 'revoked_at' | 'previous_expires_at'>, now: Date): string | null =>
  !key.revoked_at && key.previous_expires_at && key.previous_expires_at > now.toISOString() ? key.previous_expires_at : null;

/** Why a roll changed nothing. */
async function refusal(db: Db, environmentId: string, keyId: string, now: Date): Promise<RollOutcome> {
  const key = await findApiKey(db, environmentId, keyId);
  const until = key ? olderSecretUntil(key, now) : null;
  return until ? { kind: 'older_secret_working', until } : { kind: 'gone' };
}

/**
 * Ends the key's older secret now, before the expiry a roll gave it (a leaked secret);
 * false when none was still working.
 */
export async function endOlderSecret(db: Db, environmentId: string, keyId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ previous_secret_hash: null, previous_expires_at: null })
    .where('environment_id', '=', environmentId)
    .where('id', '=', keyId)
    .where('previous_expires_at', '>', now.toISOString())
    .executeTakeFirst();
  settingsChanged();
  return Number(result.numUpdatedRows) === 1;
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
  settingsChanged();
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
