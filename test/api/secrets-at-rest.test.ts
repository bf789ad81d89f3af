import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SealedSecrets } from '../../server/store/sealed-secrets';
import { freshDatabase } from './database';
import { Client, describeWithSqlite, ENGINES, startTestService, type TestService } from './harness';

// Secrets the service reads back to sign with are sealed at rest under SECRETS_KEY
// (server/store/sealed-secrets.ts): what the database and its backups hold is ciphertext,
// what the service uses is the secret. A database written without a key is sealed at the
// first start with one; a rotated key (SECRETS_KEY_PREVIOUS) still opens, and its values
// are sealed again under the new one; a key that opens nothing, or none, stops the start,
// saying so.

const keyOf = () => randomBytes(32);
const idOf = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

describeWithSqlite('a sealed secret', () => {
  const key = keyOf();
  const secrets = new SealedSecrets({ current: key, previous: [] });

  it('opens to what was sealed, never the same twice, and reads plain text as it is', () => {
    const a = secrets.seal('whsec_abc');
    expect(a).toMatch(new RegExp(`^sealed:v1:${idOf(key)}:[\\w-]+$`));
    expect(a).not.toContain('abc');
    expect(secrets.seal('whsec_abc')).not.toBe(a);
    expect(secrets.open(a)).toBe('whsec_abc');
    expect(secrets.open('whsec_plain')).toBe('whsec_plain');
  });

  it('refuses to open what was altered or sealed under a key it does not have', () => {
    const sealed = secrets.seal('whsec_abc');
    // One bit of the sealed bytes flipped (its last: the tag's). Changing the text's last
    // characters is not enough: base64url's final character carries bits no byte uses.
    const at = sealed.lastIndexOf(':') + 1;
    const bytes = Buffer.from(sealed.slice(at), 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    const altered = sealed.slice(0, at) + bytes.toString('base64url');
    expect(() => secrets.open(altered)).toThrow();
    const other = new SealedSecrets({ current: keyOf(), previous: [] });
    expect(() => other.open(sealed)).toThrow(/sealed under key [0-9a-f]{8}.*neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS/);
    expect(new SealedSecrets({ current: keyOf(), previous: [key] }).open(sealed)).toBe('whsec_abc');
  });
});

describe.each(ENGINES)('secrets at rest on %s', (engine) => {
  it('are sealed at the first start with a key, re-sealed after a rotation, and used as before', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'checkout-sealed-'));
    const database = engine === 'postgres' ? await freshDatabase() : undefined;
    const start = (env: Record<string, string>) => startTestService(engine, { env: { DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}), ...env } });
    /** The stored values, under names the plugin does not open. */
    const stored = async (t: TestService) => {
      const db = t.service.deps.database.db;
      const one = async (query: ReturnType<typeof sql<{ stored: string }>>) => (await query.execute(db)).rows.map((r) => r.stored);
      return [
        ...(await one(sql`select webhook_secret as stored from environments union all select return_secret as stored from environments`)),
        ...(await one(sql`select secret as stored from webhook_endpoints`)),
        ...(await one(sql`select value as stored from secrets`)),
      ];
    };
    const [k1, k2] = [keyOf(), keyOf()];
    let t = await start({ SECRETS_KEY: '' });
    try {
      const api = await t.newEnvironment('Sealed shop');
      const returnSecret = (await api.get('/environment/return_secret/')).body.secret as string;
      const made = await api.post('/webhook_endpoint/', { url: 'https://shop.example/hooks', enabled_events: ['*'] });
      expect(made.status, made.text).toBe(201);
      const plain = await stored(t);
      expect(plain).toContain(returnSecret);
      expect(plain).toContain(made.body.secret);
      await t.close();

      // With a key: every one of them sealed at start, and the API reads them as before.
      t = await start({ SECRETS_KEY: k1.toString('base64') });
      const sealed = await stored(t);
      expect(sealed).toHaveLength(plain.length);
      for (const value of sealed) expect(value).toMatch(new RegExp(`^sealed:v1:${idOf(k1)}:`));
      for (const secret of plain) expect(sealed.join('\n')).not.toContain(secret);
      const again = new Client(t.url, api.keys);
      expect((await again.get('/environment/return_secret/')).body.secret).toBe(returnSecret);
      // A roll compares with the stored (sealed) value: it still takes.
      const rolled = await again.post(`/webhook_endpoint/${made.body.id}/roll_secret/`, { overlap_hours: 1 });
      expect(rolled.status, rolled.text).toBe(200);
      expect(rolled.body.secret).not.toBe(made.body.secret);
      await t.close();

      // Rotated: the old key opens, and every value is sealed again under the new one.
      t = await start({ SECRETS_KEY: k2.toString('base64'), SECRETS_KEY_PREVIOUS: k1.toString('base64') });
      for (const value of await stored(t)) expect(value).toMatch(new RegExp(`^sealed:v1:${idOf(k2)}:`));
      expect((await new Client(t.url, api.keys).get('/environment/return_secret/')).body.secret).toBe(returnSecret);
      await t.close();

      // A key that opens none of it, or none at all: the service does not start, and says which key it needs.
      await expect(start({ SECRETS_KEY: keyOf().toString('base64') })).rejects.toThrow(new RegExp(`sealed under key ${idOf(k2)}`));
      await expect(start({ SECRETS_KEY: '' })).rejects.toThrow(new RegExp(`sealed under key ${idOf(k2)}`));
      t = await start({ SECRETS_KEY: k2.toString('base64') });
    } finally {
      await t.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
