import { timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { hashSecret, newApiKeyRow, readKeyRow, verifyKey } from '../../server/store/api-keys';
import { compiledOnce } from '../../server/store/compiled';
import type { Db } from '../../server/store/db';
import { newWebhookSecret } from '../../server/store/environments';
import { uuidv7 } from '../../server/domain/ids';
import type { Store } from './data';
import type { LoadResult } from './load';
import { measured, type RawResult, type RawTiming } from './raw';

// The API key check every request makes, as it is (store/api-keys.ts: the api_keys row by
// its unique public key, joined to its environment) and as it was before api_keys existed
// (the environment row by its own unique public key), measured side by side in one run,
// with one key and with thousands, so the table's index is seen doing its work.

const DUMMY_HASH = hashSecret('dummy').toString('hex');

// The lookup as it was before migration 031 (one key pair per environment, on its row): the baseline.
const environmentByPublicKey = compiledOnce((db, publicKey: string) => db.selectFrom('environments').selectAll().where('public_key', '=', publicKey));

async function legacyAuthenticate(db: Db, publicKey: string, secretKey: string) {
  const [row] = await environmentByPublicKey(db, publicKey);
  const ok = timingSafeEqual(hashSecret(secretKey), Buffer.from(row?.secret_hash ?? DUMMY_HASH, 'hex'));
  return row && ok ? row : null;
}

export interface KeyLookupRow {
  /** Key pairs stored while measuring (each of its own environment, as the legacy layout had them). */
  keys: number;
  current: RawResult[];
  legacy: RawResult[];
  /** GET /v1/transaction/{id}/ through the service: the whole request path, key check included. */
  read: LoadResult[];
}

export function currentLookupRate(store: Store, t: RawTiming): Promise<RawResult> {
  const { public_key, secret_key } = store.keys;
  return measured(async () => {
    if (!(verifyKey(await readKeyRow(store.database.db, public_key), secret_key, new Date()))) throw new Error('the bench key was refused');
  }, t);
}

export function legacyLookupRate(store: Store, t: RawTiming): Promise<RawResult> {
  const { public_key, secret_key } = store.keys;
  return measured(async () => {
    if (!(await legacyAuthenticate(store.database.db, public_key, secret_key))) throw new Error('the bench key was refused (legacy)');
  }, t);
}

export async function countKeys(store: Store): Promise<number> {
  const { n } = await store.database.db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(n);
}

/** `count` environments, each with its key pair in both places (as createEnvironment writes them), 500 per database transaction. */
export async function seedKeys(store: Store, count: number): Promise<void> {
  const db = store.database.db;
  const now = new Date();
  for (let done = 0; done < count; done += 500) {
    const pairs = Array.from({ length: Math.min(500, count - done) }, () => {
      const id = uuidv7(now.getTime());
      return { id, key: newApiKeyRow({ id, mode: 'sandbox' }, 'Default', now, id).row };
    });
    await db.transaction().execute(async (trx) => {
      // 8 and 10 columns a row: far under both engines' cap on bound parameters.
      await trx
        .insertInto('environments')
        .values(
          pairs.map(({ id, key }) => ({
            id,
            name: 'Seeded shop',
            mode: 'sandbox' as const,
            public_key: key.public_key,
            secret_hash: key.secret_hash,
            webhook_secret: newWebhookSecret(),
            allowed_origins: '[]',
            is_demo: 0,
            created_at: now.toISOString(),
          })),
        )
        .execute();
      await trx.insertInto('api_keys').values(pairs.map((p) => p.key)).execute();
    });
  }
  if (store.database.engine === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  else await sql`ANALYZE api_keys, environments`.execute(db);
}
