import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../server/store/api-keys';
import { settingsChanged } from '../../server/store/auth-changes';
import { createKeyChecks, KEY_CHECKS_FRESH_MS } from '../../server/store/key-checks';
import { createEndpoint, matchingEndpoints, updateEndpoint } from '../../server/store/webhook-endpoints';
import type { Tables } from '../../server/store/schema';
import { Client, ENGINES, startTestService, type TestService } from './harness';

// A process keeps the key checks it has made (store/key-checks.ts). What another process
// writes (here a second connection to the same database, as the keys CLI would) reaches it
// through auth_changes' version, read at most once per KEY_CHECKS_FRESH_MS; what this
// process writes, at its next check. The check's clock is a fake one here.

describe.each(ENGINES)('key checks on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let other: Kysely<Tables>;
  beforeAll(async () => {
    t = await startTestService(engine);
    api = await t.newEnvironment('Cached Shop');
    other = new Kysely<Tables>({
      dialect:
        engine === 'sqlite'
          ? new SqliteDialect({ database: new SQLite(join(t.dataDir, 'checkout.db')) })
          : new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1 }) }),
    });
  });
  afterAll(async () => {
    await other?.destroy();
    await t?.close();
  });

  const setup = () => {
    let clock = 0;
    const check = createKeyChecks(t.service.deps.database.db, () => clock);
    const ask = (secret = api.keys.secret_key) => check(api.keys.public_key, secret, new Date());
    return { ask, advance: (ms: number) => void (clock += ms) };
  };
  const revokedAt = (at: string | null) => other.updateTable('api_keys').set({ revoked_at: at }).where('public_key', '=', api.keys.public_key).execute();

  it("sees another process's revocation within KEY_CHECKS_FRESH_MS, and not before: no read a request", async () => {
    const { ask, advance } = setup();
    expect((await ask())?.id).toBe(api.keys.environment_id);
    await revokedAt(new Date().toISOString());
    try {
      // Kept: this check does not read the key again.
      expect((await ask())?.name).toBe('Cached Shop');
      // The secret is still compared on every check.
      expect(await ask('sk_test_wrong')).toBeNull();
      advance(KEY_CHECKS_FRESH_MS);
      expect(await ask()).toBeNull();
    } finally {
      await revokedAt(null);
    }
  });

  it("sees another process's change of the environment, and this process's own at once", async () => {
    const { ask, advance } = setup();
    expect((await ask())?.allowed_origins).toBe('[]');
    await other.updateTable('environments').set({ allowed_origins: '["https://shop.example"]' }).where('id', '=', api.keys.environment_id).execute();
    advance(KEY_CHECKS_FRESH_MS);
    expect((await ask())?.allowed_origins).toBe('["https://shop.example"]');
    await other.updateTable('environments').set({ allowed_origins: '[]' }).where('id', '=', api.keys.environment_id).execute();
    // No time passes: this process's own write (settingsChanged) is enough.
    settingsChanged();
    expect((await ask())?.allowed_origins).toBe('[]');
  });

  it("a key this process revokes (the dashboard's way) is refused by the service's very next request", async () => {
    const db = t.service.deps.database.db;
    const shop = await t.newEnvironment('Revoking Shop');
    const env = { id: shop.keys.environment_id, mode: 'sandbox' as const };
    const created = await createApiKey(db, env, 'Second', new Date());
    const second = new Client(shop.url, { ...shop.keys, public_key: created.public_key, secret_key: created.secret_key });
    expect((await second.get('/transaction/')).status).toBe(200);
    expect((await second.get('/transaction/')).status).toBe(200);
    expect(await revokeApiKey(db, env.id, created.id, new Date())).toBe(true);
    expect((await second.get('/transaction/')).status).toBe(401);
    expect((await shop.get('/transaction/')).status).toBe(200);
  });

  it("a processor connected, changed or removed moves the version every process watches; its sweep's schedule does not; so does a pricing set (migration 131)", async () => {
    const shop = await t.newEnvironment('Processor Changes Shop');
    const version = async () => Number((await other.selectFrom('auth_changes').select('version').where('id', '=', 1).executeTakeFirstOrThrow()).version);
    const id = `proc_${shop.keys.environment_id}`;
    const at = new Date().toISOString();
    const before = await version();
    // Deleted from the start: no request of the service builds a gateway from it.
    await other
      .insertInto('processors')
      .values({ id, environment_id: shop.keys.environment_id, type: 'stripe', credentials: '{}', secret_key_last4: '4242', statement_descriptor: null, version: 1, deleted_at: at, created_at: at, updated_at: at, sweep_due_at: null })
      .execute();
    const inserted = await version();
    expect(inserted).toBeGreaterThan(before);
    await other.updateTable('processors').set({ sweep_due_at: at }).where('id', '=', id).execute();
    expect(await version()).toBe(inserted);
    await other.updateTable('processors').set({ version: 2, statement_descriptor: 'SHOP' }).where('id', '=', id).execute();
    const changed = await version();
    expect(changed).toBeGreaterThan(inserted);
    await other.deleteFrom('processors').where('id', '=', id).execute();
    const deleted = await version();
    expect(deleted).toBeGreaterThan(changed);
    // A pricing set, as the keys CLI sets it: the balance job's kept pricing is read again.
    const pricing = { environment_id: shop.keys.environment_id, charge_percent_e2: 290, charge_fixed: 25, refund_percent_e2: 0, refund_fixed: 0, settlement_delay_days: 2, dispute_fixed: 1500, updated_at: at };
    await other.insertInto('environment_pricing').values(pricing).execute();
    const priced = await version();
    expect(priced).toBeGreaterThan(deleted);
    await other.updateTable('environment_pricing').set({ charge_fixed: 30 }).where('environment_id', '=', shop.keys.environment_id).execute();
    expect(await version()).toBeGreaterThan(priced);
  });

  it("a webhook endpoint created, changed or deleted moves the version; its deliveries' marks do not (migration 133); the endpoints an event goes to follow both processes' changes", async () => {
    const shop = await t.newEnvironment('Endpoint Changes Shop');
    const env = shop.keys.environment_id;
    const db = t.service.deps.database.db;
    const version = async () => Number((await other.selectFrom('auth_changes').select('version').where('id', '=', 1).executeTakeFirstOrThrow()).version);
    const goesTo = async () => (await matchingEndpoints(db, env, 'sale.refunded')).map((e) => e.url);
    expect(await goesTo()).toEqual([]);
    // This process's own write: the next event sees it at once.
    const mine = await createEndpoint(db, env, { url: 'https://shop.example/mine', description: null, enabled_events: ['*'], enabled: true }, new Date());
    expect(await goesTo()).toEqual(['https://shop.example/mine']);
    await updateEndpoint(db, env, mine.id, { enabled: false }, new Date());
    expect(await goesTo()).toEqual([]);
    // Another process's (the second connection): each change moves the version on, so this one reads them again within the watch's window.
    const at = new Date().toISOString();
    const before = await version();
    await other
      .insertInto('webhook_endpoints')
      .values({ id: `we_${env}`, environment_id: env, url: 'https://shop.example/theirs', description: null, enabled_events: '["sale.refunded"]', enabled: 1, disabled_reason: null, secret: 'whsec_x', previous_secret: null, previous_expires_at: null, last_delivered_at: null, created_at: at, updated_at: at })
      .execute();
    const inserted = await version();
    expect(inserted).toBeGreaterThan(before);
    await expect.poll(goesTo).toEqual(['https://shop.example/theirs']);
    // Read in one snapshot around the update: the other test files' changes on a shared PostgreSQL cannot show in it.
    const movedBy = (update: (trx: Kysely<Tables>) => Promise<unknown>) =>
      (engine === 'postgres' ? other.transaction().setIsolationLevel('repeatable read') : other.transaction()).execute(async (trx) => {
        const read = async () => Number((await trx.selectFrom('auth_changes').select('version').where('id', '=', 1).executeTakeFirstOrThrow()).version);
        const was = await read();
        await update(trx);
        return (await read()) - was;
      });
    expect(await movedBy((trx) => trx.updateTable('webhook_endpoints').set({ last_delivered_at: at, failing_mailed_for: at }).where('id', '=', `we_${env}`).execute())).toBe(0);
    expect(await movedBy((trx) => trx.updateTable('webhook_endpoints').set({ url: 'https://shop.example/moved' }).where('id', '=', `we_${env}`).execute())).toBe(1);
    const moved = await version();
    await expect.poll(goesTo).toEqual(['https://shop.example/moved']);
    await other.updateTable('webhook_endpoints').set({ enabled_events: '["sale.created"]' }).where('id', '=', `we_${env}`).execute();
    const narrowed = await version();
    expect(narrowed).toBeGreaterThan(moved);
    await expect.poll(goesTo).toEqual([]);
    await other.deleteFrom('webhook_endpoints').where('id', '=', `we_${env}`).execute();
    expect(await version()).toBeGreaterThan(narrowed);
  });
});
