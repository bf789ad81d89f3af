import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { uuidv7 } from '../domain/ids';
import { compiledOnce } from './compiled';
import type { Db } from './db';
import type { EnvironmentRow } from './schema';

export interface NewKeys {
  environment_id: string;
  name: string;
  public_key: string;
  secret_key: string;
  webhook_secret: string;
  allowed_origins: string[];
}

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest();

/** Standard Webhooks form: whsec_ + base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export async function createEnvironment(
  db: Db,
  input: { name: string; allowedOrigins?: string[]; isDemo?: boolean; now: Date },
): Promise<NewKeys> {
  const id = uuidv7(input.now.getTime());
  const publicKey = `pk_${randomBytes(18).toString('base64url')}`;
  const secretKey = `sk_${randomBytes(32).toString('base64url')}`;
  const webhookSecret = newWebhookSecret();
  const allowed = input.allowedOrigins ?? [];
  await db
    .insertInto('environments')
    .values({
      id,
      name: input.name,
      public_key: publicKey,
      // The secret key is 256 random bits: a plain SHA-256 is enough to make the stored
      // value useless to a reader of the database, and cheap on every request.
      secret_hash: hashSecret(secretKey).toString('hex'),
      webhook_secret: webhookSecret,
      allowed_origins: JSON.stringify(allowed),
      is_demo: input.isDemo ? 1 : 0,
      created_at: input.now.toISOString(),
    })
    .execute();
  return {
    environment_id: id,
    name: input.name,
    public_key: publicKey,
    secret_key: secretKey,
    webhook_secret: webhookSecret,
    allowed_origins: allowed,
  };
}

// Compared against when the public key is unknown, so both failures cost the same.
const DUMMY_HASH = hashSecret('dummy').toString('hex');

/** The environment whose key pair this is, or null; constant-time on the secret. */
// Every API request runs it.
const environmentByPublicKey = compiledOnce((db, publicKey: string) =>
  db.selectFrom('environments').selectAll().where('public_key', '=', publicKey),
);

export async function authenticate(
  db: Db,
  publicKey: string,
  secretKey: string,
): Promise<EnvironmentRow | null> {
  const [row] = await environmentByPublicKey(db, publicKey);
  const expected = Buffer.from(row?.secret_hash ?? DUMMY_HASH, 'hex');
  const ok = timingSafeEqual(hashSecret(secretKey), expected);
  return row && ok ? row : null;
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
  patch: { name?: string; allowedOrigins?: string[]; rotateWebhookSecret?: boolean },
): Promise<Environment | undefined> {
  const values: Partial<EnvironmentRow> = {};
  if (patch.name !== undefined) values.name = patch.name;
  if (patch.allowedOrigins) values.allowed_origins = JSON.stringify(patch.allowedOrigins);
  if (patch.rotateWebhookSecret) values.webhook_secret = newWebhookSecret();
  if (Object.keys(values).length) {
    await db.updateTable('environments').set(values).where('id', '=', id).execute();
  }
  const row = await findEnvironment(db, id);
  return row && environmentOf(row);
}

export async function listEnvironments(db: Db) {
  const rows = await db
    .selectFrom('environments')
    .select(['id', 'name', 'public_key', 'allowed_origins', 'created_at'])
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, allowed_origins: JSON.parse(r.allowed_origins) as string[] }));
}

/** The merchant a payment or sign-up page is for: its name and the origins allowed to embed it. */
export interface Merchant {
  name: string;
  allowedOrigins: string[];
}

/** Decodes the environment's columns (allowed_origins is JSON text) into a Merchant. */
export const merchantOf = (name: string, origins: string): Merchant => ({ name, allowedOrigins: JSON.parse(origins) as string[] });
