import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { startService, type Service } from '../../server/service';
import { listApiKeys } from '../../server/store/api-keys';
import { SealedSecrets } from '../../server/store/sealed-secrets';
import { Client, ENGINES, TEST_SECRETS_KEY, transactionBody } from './harness';
import { createKeysHere, keysHere, type ProcessEnv } from './process';

// `npm run keys -- create --name "Shop" --json`: one JSON object with the new pair, keys
// that work against a service on the same data, and no plain secret key in storage; an
// environment's further pairs created, rolled with an overlap and revoked (issue 44). The
// command runs in this process (test/cli.ts), on the data of a service beside it, as the
// CLI's process would; test/process/keys-cli.test.ts starts the real process.

/** Who the CLI says ran it: this machine's account. */
const OPERATOR = `${userInfo().username}@${hostname()}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(ENGINES)('keys CLI on %s', (engine) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'checkout-keys-'));
  const env: ProcessEnv = {
    DATA_DIR: dataDir,
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
  };
  let stdout: string;
  let service: Service;
  let keys: Record<string, unknown> & { secret_key: string; public_key: string; environment_id: string; webhook_secret: string };

  /** The rows a query gives, read from the database itself (`$1`… as placeholders). */
  async function query(text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
    if (engine === 'sqlite') {
      const db = new SQLite(join(dataDir, 'checkout.db'), { readonly: true });
      try {
        return db.prepare(text.replace(/\$\d+/g, '?')).all(...params) as Record<string, unknown>[];
      } finally {
        db.close();
      }
    }
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** Every stored value of the environment's row, as the database holds it. */
  const storedRow = async (environmentId: string) => (await query('select * from environments where id = $1', [environmentId]))[0]!;

  /** The raw bytes of the embedded database and its WAL, as a reader of the disk sees them. */
  function databaseFiles(): Buffer {
    return Buffer.concat(
      ['checkout.db', 'checkout.db-wal']
        .map((f) => join(dataDir, f))
        .filter(existsSync)
        .map((f) => readFileSync(f)),
    );
  }

  beforeAll(async () => {
    stdout = await keysHere(['create', '--name', 'Shop', '--json'], env);
    keys = JSON.parse(stdout);
    // One service on the same data for the file's tests, as a merchant's runs beside the CLI: each CLI change must reach it.
    service = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', DEMO: 'false', LOG_LEVEL: 'silent', SECRETS_KEY: TEST_SECRETS_KEY, ...env }), pino({ level: 'silent' }));
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints exactly one JSON object with the new pair and a Standard Webhooks secret', () => {
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(keys).toMatchObject({
      environment_id: expect.stringMatching(UUID),
      name: 'Shop',
      public_key: expect.stringMatching(/^pk_test_[A-Za-z0-9_-]{16,128}$/),
      secret_key: expect.stringMatching(/^sk_test_[A-Za-z0-9_-]{32,256}$/),
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
    });
    expect(keys.secret_key).not.toBe(keys.public_key);
    expect(Buffer.from(keys.webhook_secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
  });

  it('stores the secret key only as a hash', async () => {
    const row = await storedRow(keys.environment_id);
    expect(row.public_key).toBe(keys.public_key);
    expect(row.secret_hash).toEqual(expect.any(String));
    expect(row.secret_hash).not.toBe(keys.secret_key);
    for (const [column, value] of Object.entries(row)) {
      expect(String(value), column).not.toContain(keys.secret_key);
      expect(String(value), column).not.toContain(keys.secret_key.slice(3, 20));
    }
    if (engine === 'sqlite') {
      const raw = databaseFiles();
      expect(raw.length).toBeGreaterThan(0);
      expect(raw.includes(keys.public_key)).toBe(true); // the check can see what is stored...
      expect(raw.includes(keys.secret_key)).toBe(false); // ...and the secret is not
      expect(raw.includes(keys.secret_key.slice(3))).toBe(false);
    }
  });

  it('the printed keys work against a service on the same data, and only they do', { timeout: 30_000 }, async () => {
    const api = new Client(service.url, keys as never);
    const created = await api.post('/transaction/', transactionBody());
    expect(created.status, created.text).toBe(201);
    const list = await api.get('/transaction/');
    expect(list.status).toBe(200);
    expect(list.body.results.map((r: { id: string }) => r.id)).toContain(created.body.id);

    const wrong = await api.request('GET', '/transaction/', { auth: `AppKeys ${keys.public_key}:${keys.secret_key}x` });
    expect(wrong.status).toBe(401);

    // A second environment from the CLI, live, gets its own pair and sees nothing of the first.
    const other = JSON.parse(await keysHere(['create', '--name', 'Other shop', '--live', '--json'], env));
    expect(Object.keys(other).sort()).toEqual(Object.keys(keys).sort());
    expect([other.public_key, other.secret_key]).toEqual([expect.stringMatching(/^pk_live_/), expect.stringMatching(/^sk_live_/)]);
    expect(other.environment_id).not.toBe(keys.environment_id);
    expect(other.secret_key).not.toBe(keys.secret_key);
    const otherApi = new Client(service.url, other);
    expect((await otherApi.get('/transaction/')).body).toMatchObject({ count: 0 });
    expect((await otherApi.post('/product/', { name: 'Mug', price: 1, currency: 'EUR' })).body.livemode).toBe(true);
    // Live with no gateway for real money configured: a payment no method can take is refused (docs/api.md#sandbox-and-live).
    expect((await otherApi.post('/transaction/', transactionBody())).status).toBe(409);
    expect(created.body.livemode).toBe(false);
    expect((await otherApi.get(`/transaction/${created.body.id}/`)).status).toBe(404);
    if (engine === 'sqlite') expect(databaseFiles().includes(keys.secret_key)).toBe(false);
  });

  it('list shows environments without any secret', { timeout: 30_000 }, async () => {
    const out = await keysHere(['list', '--json'], env);
    const rows = JSON.parse(out) as Record<string, unknown>[];
    expect(rows.map((r) => r.id)).toContain(keys.environment_id);
    // Origins as a list, not the column's JSON text.
    expect(rows.find((r) => r.id === keys.environment_id)?.allowed_origins).toEqual(keys.allowed_origins);
    expect(out).not.toContain(keys.secret_key);
    expect(out).not.toContain(keys.webhook_secret);
    expect(out).not.toContain('secret_hash');
  });

  it('set --name renames the shop, and a payment page already open in a running service shows it on the next view', { timeout: 30_000 }, async () => {
    const created = await new Client(service.url, keys as never).post('/transaction/', transactionBody());
    expect(created.status, created.text).toBe(201);
    const page = async () => (await fetch(`${service.url}/pay/${created.body.token}/`)).text();
    // Viewed twice, so the second view comes from the kept page.
    await page();
    expect(await page()).toContain('Shop');
    const out = JSON.parse(await keysHere(['set', '--environment', keys.environment_id, '--name', 'Renamed & Co', '--json'], env));
    expect(out).toMatchObject({ environment_id: keys.environment_id, name: 'Renamed & Co' });
    expect(await page()).toContain('Renamed &amp; Co');
    await expect(keysHere(['set', '--environment', keys.environment_id, '--name', '  '], env)).rejects.toThrow(/--name must not be empty/);
  });

  it('set --rotate-webhook-secret prints a new whsec_ secret', { timeout: 30_000 }, async () => {
    const out = JSON.parse(await keysHere(['set', '--environment', keys.environment_id, '--rotate-webhook-secret', '--json'], env));
    expect(out.webhook_secret).toMatch(/^whsec_/);
    expect(out.webhook_secret).not.toBe(keys.webhook_secret);
    // Stored sealed under SECRETS_KEY (the test processes' key): not readable in the row.
    const stored = (await storedRow(keys.environment_id)).webhook_secret as string;
    expect(stored).toMatch(/^sealed:v1:/);
    expect(stored).not.toContain(out.webhook_secret.slice('whsec_'.length));
    expect(new SealedSecrets(loadConfig({ SECRETS_KEY: TEST_SECRETS_KEY }).secretsKeys).open(stored)).toBe(out.webhook_secret);
  });

  it('set --rate-limit gives the environment its own API limit; default goes back to API_RATE_LIMIT', { timeout: 30_000 }, async () => {
    const api = new Client(service.url, keys as never);
    const policy = async () => (await api.get('/transaction/')).headers.get('ratelimit-policy');
    expect(await policy()).toBe('"api";q=100;w=1');
    const out = JSON.parse(await keysHere(['set', '--environment', keys.environment_id, '--rate-limit', '7', '--json'], env));
    expect(out.rate_limit).toBe(7);
    expect(await policy()).toBe('"api";q=7;w=1');
    expect(JSON.parse(await keysHere(['set', '--environment', keys.environment_id, '--rate-limit', 'default', '--json'], env)).rate_limit).toBe('default');
    expect(await policy()).toBe('"api";q=100;w=1');
    await expect(keysHere(['set', '--environment', keys.environment_id, '--rate-limit', '0'], env)).rejects.toThrow(/--rate-limit 0: must be a whole number/);
  });

  it('pricing sets the fees and the settlement delay; options left out keep their stored value', { timeout: 90_000 }, async () => {
    const pricing = (...args: string[]) => keysHere(['pricing', '--environment', keys.environment_id, ...args, '--json'], env);
    expect(JSON.parse(await pricing('--charge-percent', '2.9', '--charge-fixed', '25', '--settlement-days', '0'))).toEqual({
      environment_id: keys.environment_id,
      charge_percent: '2.9',
      charge_fixed: 25,
      refund_percent: '0',
      refund_fixed: 0,
      settlement_days: 0,
      dispute_fixed: 1500,
    });
    expect(JSON.parse(await pricing('--refund-fixed', '10'))).toMatchObject({ charge_percent: '2.9', charge_fixed: 25, refund_fixed: 10, settlement_days: 0 });
    expect(JSON.parse(await pricing('--dispute-fixed', '2000'))).toMatchObject({ charge_fixed: 25, refund_fixed: 10, dispute_fixed: 2000 });
    await expect(pricing('--charge-percent', '2.955')).rejects.toThrow(/--charge-percent 2.955: must be a percentage/);
    // What Number() would take but a person does not write (a blank from an unset variable is not 0).
    for (const [option, text] of [['--charge-fixed', ''], ['--settlement-days', ' '], ['--refund-fixed', '0x19'], ['--dispute-fixed', '2e3']]) {
      await expect(pricing(option!, text!), `${option} ${JSON.stringify(text)}`).rejects.toThrow(/must be a whole number/);
    }
    expect(JSON.parse(await pricing())).toMatchObject({ charge_fixed: 25, refund_fixed: 10, settlement_days: 0, dispute_fixed: 2000 });
  });

  it('settings reads and sets raw_card_numbers (on by default)', { timeout: 90_000 }, async () => {
    const settings = (...args: string[]) => keysHere(['settings', '--environment', keys.environment_id, ...args, '--json'], env);
    expect(JSON.parse(await settings())).toEqual({ environment_id: keys.environment_id, raw_card_numbers: 'on' });
    expect(JSON.parse(await settings('--raw-cards', 'off'))).toEqual({ environment_id: keys.environment_id, raw_card_numbers: 'off' });
    expect((await storedRow(keys.environment_id)).raw_card_numbers).toBe(0);
    expect(JSON.parse(await settings())).toMatchObject({ raw_card_numbers: 'off' });
    expect(JSON.parse(await settings('--raw-cards', 'on'))).toMatchObject({ raw_card_numbers: 'on' });
    await expect(settings('--raw-cards', 'maybe')).rejects.toThrow(/--raw-cards maybe: must be on or off/);
  });

  it('payouts sets the bank account (checked as a client IBAN) and the schedule; options left out keep their value', { timeout: 90_000 }, async () => {
    const payouts = (...args: string[]) => keysHere(['payouts', '--environment', keys.environment_id, ...args, '--json'], env);
    await expect(payouts('--schedule', 'daily')).rejects.toThrow(/a daily schedule needs --iban/);
    await expect(payouts('--iban', 'ES9121000418450200051333')).rejects.toThrow(/--iban: /);
    await expect(payouts('--schedule', 'hourly')).rejects.toThrow(/--schedule hourly: must be daily, weekly or manual/);
    expect(JSON.parse(await payouts('--iban', 'es91 2100 0418 4502 0005 1332', '--schedule', 'weekly'))).toEqual({
      environment_id: keys.environment_id,
      iban: 'ES9121000418450200051332',
      schedule: 'weekly',
    });
    expect(JSON.parse(await payouts('--schedule', 'manual'))).toMatchObject({ iban: 'ES9121000418450200051332', schedule: 'manual' });
    const api = new Client(service.url, keys as never);
    expect((await api.get('/payout_settings/')).body).toMatchObject({ iban: 'ES9121000418450200051332', schedule: 'manual' });
    // A new account replacing one: held as from the dashboard, audited with who ran it and who asked.
    await expect(payouts('--iban', 'DE89370400440532013000', '--by', 'not an email')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--by not an email: must be an email/) });
    const changed = JSON.parse(await payouts('--iban', 'DE89370400440532013000', '--by', 'ana@shop.example'));
    expect(changed).toMatchObject({ iban: 'DE89370400440532013000', schedule: 'manual', payouts_held_until: expect.any(String) });
    const audits = await query("select email, user_id, detail from audit_log where environment_id = $1 and action = 'payout_settings_changed' order by id", [keys.environment_id]);
    expect(audits.map((a) => ({ ...a, detail: JSON.parse(a.detail as string) }))).toEqual([
      expect.objectContaining({ email: null, user_id: null, detail: expect.objectContaining({ via: 'npm run keys', operator: OPERATOR, old_iban: null }) }),
      expect.objectContaining({ email: null, detail: expect.objectContaining({ old_schedule: 'weekly', new_schedule: 'manual' }) }),
      expect.objectContaining({ email: 'ana@shop.example', detail: expect.objectContaining({ operator: OPERATOR, held_until: changed.payouts_held_until }) }),
    ]);
  });

  it('pair joins a sandbox and a live environment once; two of one mode or a second pair are refused (exit 3)', { timeout: 90_000 }, async () => {
    const live = JSON.parse(await keysHere(['create', '--name', 'Shop', '--live', '--json'], env)) as { environment_id: string };
    const otherSandbox = (await createKeysHere('Other', env)).environment_id;
    const pair = (one: string, other: string) => keysHere(['pair', '--environment', one, '--with', other, '--json'], env);
    await expect(pair(keys.environment_id, otherSandbox)).rejects.toMatchObject({ code: 3, stderr: expect.stringMatching(/not paired: a pair is one sandbox and one live environment/) });
    expect((await storedRow(otherSandbox)).pair_id).toBeNull();
    expect(JSON.parse(await pair(live.environment_id, keys.environment_id))).toEqual({ pair_id: keys.environment_id, environments: [live.environment_id, keys.environment_id] });
    expect((await storedRow(live.environment_id)).pair_id).toBe(keys.environment_id);
    expect((await storedRow(keys.environment_id)).pair_id).toBe(keys.environment_id);
    const secondLive = JSON.parse(await keysHere(['create', '--name', 'Shop 2', '--live', '--json'], env)) as { environment_id: string };
    await expect(pair(otherSandbox, live.environment_id)).rejects.toMatchObject({ code: 3, stderr: expect.stringMatching(/an environment is in one pair at most/) });
    await expect(pair(secondLive.environment_id, keys.environment_id)).rejects.toMatchObject({ code: 3 });
    expect((await storedRow(otherSandbox)).pair_id).toBeNull();
    await expect(pair(otherSandbox, 'nope')).rejects.toMatchObject({ code: 2 });
  });

  it('create --pair-with creates and pairs in one transaction, or, refused, creates nothing; unpair ends the pair from either half; both audited in both halves', { timeout: 90_000 }, async () => {
    const environments = async () => Number((await query('select count(*) as n from environments'))[0]!.n);
    const audited = async (environmentId: string, action: string) =>
      (await query('select detail, user_id, email from audit_log where environment_id = $1 and action = $2', [environmentId, action])).map((r) => ({ ...r, detail: JSON.parse(r.detail as string) }));
    const solo = await createKeysHere('Solo', env);
    const created = JSON.parse(await keysHere(['create', '--name', 'Solo', '--live', '--pair-with', solo.environment_id, '--json'], env)) as typeof keys & { pair_id: string };
    expect(created).toMatchObject({ environment_id: expect.stringMatching(UUID), public_key: expect.stringMatching(/^pk_live_/), pair_id: solo.environment_id });
    for (const id of [solo.environment_id, created.environment_id]) expect((await storedRow(id)).pair_id).toBe(solo.environment_id);
    const byCli = { via: 'npm run keys', operator: OPERATOR };
    expect(await audited(solo.environment_id, 'environment_paired')).toEqual([{ detail: { ...byCli, with: created.environment_id }, user_id: null, email: null }]);
    expect(await audited(created.environment_id, 'environment_paired')).toEqual([{ detail: { ...byCli, with: solo.environment_id }, user_id: null, email: null }]);

    // Refused pairs create nothing.
    const count = await environments();
    const createPaired = (...args: string[]) => keysHere(['create', '--name', 'Refused', ...args, '--json'], env);
    await expect(createPaired('--live', '--pair-with', solo.environment_id)).rejects.toMatchObject({ code: 3, stderr: expect.stringMatching(/^not created: not paired: an environment is in one pair at most/) });
    await expect(createPaired('--live', '--pair-with', created.environment_id)).rejects.toMatchObject({ code: 3, stderr: expect.stringMatching(/^not created: not paired: a pair is one sandbox and one live environment/) });
    await expect(createPaired('--live', '--pair-with', 'no-such-environment')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/^not created: no environment no-such-environment/) });
    expect(await environments()).toBe(count);
    expect((await query("select id from environments where name = 'Refused'")).length).toBe(0);

    // While paired the live brand reaches the sandbox; unpaired (named by the live half) it no longer does.
    const liveApi = new Client(service.url, created as never);
    const soloApi = new Client(service.url, solo as never);
    expect((await liveApi.patch('/environment/branding/', { display_name: 'Solo paired' })).status).toBe(200);
    expect((await soloApi.get('/environment/branding/')).body.display_name).toBe('Solo paired');
    expect(JSON.parse(await keysHere(['unpair', '--environment', created.environment_id, '--by', 'Ana@Shop.example', '--json'], env))).toEqual({ unpaired: true, environments: [created.environment_id, solo.environment_id] });
    for (const id of [solo.environment_id, created.environment_id]) expect((await storedRow(id)).pair_id).toBeNull();
    // Named with --by: the person who asked, beside the account that ran it.
    expect(await audited(solo.environment_id, 'environment_unpaired')).toEqual([{ detail: { ...byCli, with: created.environment_id }, user_id: null, email: 'Ana@Shop.example' }]);
    expect(await audited(created.environment_id, 'environment_unpaired')).toEqual([{ detail: { ...byCli, with: solo.environment_id }, user_id: null, email: 'Ana@Shop.example' }]);
    expect((await liveApi.patch('/environment/branding/', { display_name: 'Solo live' })).status).toBe(200);
    expect((await soloApi.get('/environment/branding/')).body.display_name).toBe('Solo paired');

    // In no pair: refused in words, either half; an unknown environment is a wrong command.
    await expect(keysHere(['unpair', '--environment', solo.environment_id], env)).rejects.toMatchObject({ code: 3, stderr: expect.stringMatching(/not unpaired: environment .* is in no pair/) });
    await expect(keysHere(['unpair', '--environment', 'no-such-environment'], env)).rejects.toMatchObject({ code: 2 });
    // Unpaired, the halves pair again (by the sandbox's name this time, from the other side).
    expect(JSON.parse(await keysHere(['pair', '--environment', solo.environment_id, '--with', created.environment_id, '--json'], env))).toMatchObject({ pair_id: solo.environment_id });
  });

  // A pair of the file's environment given by its keys, and what the API answers it.
  const as = (publicKey: string, secretKey: string) => new Client(service.url, { ...keys, public_key: publicKey, secret_key: secretKey } as never);
  const works = async (c: Client) => (await c.get('/transaction/')).status;

  it('the keys CLI lists, creates, rolls and revokes an environment\'s keys', async () => {
    const environment = keys.environment_id;
    const created = JSON.parse(await keysHere(['create', '--environment', environment, '--label', 'From the CLI', '--json'], env));
    expect(created).toMatchObject({ environment_id: environment, label: 'From the CLI', public_key: expect.stringMatching(/^pk_/), secret_key: expect.stringMatching(/^sk_/) });
    expect(await works(as(created.public_key, created.secret_key))).toBe(200);
    const listed = JSON.parse(await keysHere(['list', '--environment', environment, '--json'], env));
    expect(listed.map((k: { public_key: string }) => k.public_key)).toEqual(expect.arrayContaining([keys.public_key, created.public_key]));
    expect(JSON.stringify(listed)).not.toContain('hash');

    const rolled = JSON.parse(await keysHere(['roll', '--key', created.public_key, '--overlap-hours', '0', '--json'], env));
    expect(rolled.public_key).toBe(created.public_key);
    expect(await works(as(created.public_key, created.secret_key))).toBe(401);
    expect(await works(as(created.public_key, rolled.secret_key))).toBe(200);
    await keysHere(['revoke', '--key', created.public_key, '--json'], env);
    expect(await works(as(created.public_key, rolled.secret_key))).toBe(401);
  }, 60_000);

  it('the keys CLI refuses a second roll with an overlap while the older secret works, and can end that one', async () => {
    const failing = (args: string[]) => keysHere(args, env).then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }));
    const created = JSON.parse(await keysHere(['create', '--environment', keys.environment_id, '--label', 'CLI rolls', '--json'], env));
    const first = JSON.parse(await keysHere(['roll', '--key', created.public_key, '--overlap-hours', '24', '--json'], env));
    expect(first.previous_expires_at).toEqual(expect.any(String));
    const refused = await failing(['roll', '--key', created.public_key, '--overlap-hours', '24', '--json']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`its older secret works until ${first.previous_expires_at}`);
    expect(refused.stderr).toContain('end-older');
    expect(await works(as(created.public_key, created.secret_key))).toBe(200);
    expect(await works(as(created.public_key, first.secret_key))).toBe(200);
    // Without an overlap: allowed, and the older secret keeps its time.
    const zero = JSON.parse(await keysHere(['roll', '--key', created.public_key, '--overlap-hours', '0', '--json'], env));
    expect(zero.previous_expires_at).toBe(first.previous_expires_at);
    expect(await works(as(created.public_key, first.secret_key))).toBe(401);
    expect(await works(as(created.public_key, created.secret_key))).toBe(200);
    expect(await keysHere(['list', '--environment', keys.environment_id], env)).toContain(`active, older secret until ${first.previous_expires_at}  CLI rolls`);
    const ended = JSON.parse(await keysHere(['end-older', '--key', created.public_key, '--json'], env));
    expect(ended).toMatchObject({ public_key: created.public_key, older_secret_ended: true });
    expect(await works(as(created.public_key, created.secret_key))).toBe(401);
    expect(await works(as(created.public_key, zero.secret_key))).toBe(200);
    expect((await failing(['end-older', '--key', created.public_key])).code).toBe(3);
    // A label takes one line of text (argv cannot carry a NUL; other control characters it can).
    const before = await listApiKeys(service.deps.database.db, keys.environment_id);
    for (const label of ['Two\nlines', 'Bell\u0007', 'Del\u007f']) {
      const bad = await failing(['create', '--environment', keys.environment_id, '--label', label, '--json']);
      expect(bad.code, JSON.stringify(label)).toBe(2);
      expect(bad.stderr).toContain('--label may not contain control characters');
    }
    expect(await listApiKeys(service.deps.database.db, keys.environment_id)).toEqual(before);
    // A blank overlap (an unset "$HOURS") is a wrong command, not 0: the secret keeps working.
    for (const hours of ['', ' ', '0x1', '1e1']) {
      expect((await failing(['roll', '--key', created.public_key, '--overlap-hours', hours])).code, JSON.stringify(hours)).toBe(2);
    }
    expect(await works(as(created.public_key, zero.secret_key))).toBe(200);
    expect(JSON.parse(await keysHere(['roll', '--key', created.public_key, '--overlap-hours', '0.5', '--json'], env)).previous_expires_at).toEqual(expect.any(String));
    // An environment that is not there, and a name that is not one line of at most 80 characters.
    const missing = await failing(['list', '--environment', '0190f5a0-0000-7000-8000-00000000dead']);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('no environment 0190f5a0-0000-7000-8000-00000000dead') });
    // Asked for, the usage is an answer: stdout, exit 0.
    expect(await keysHere(['--help'], env)).toMatch(/^Usage:\n {2}npm run keys -- create/);
    expect(await keysHere(['roll', '-h'], env)).toMatch(/^Usage:/);
    // A variable the tool cannot run with: its message, exit 2, no stack.
    const badConfig = await keysHere(['list'], { ...env, PORT: 'abc' }).then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => e);
    expect(badConfig).toMatchObject({ code: 2, stderr: expect.stringMatching(/^Invalid configuration:\n {2}PORT: /) });
    expect(badConfig.stderr).not.toContain('    at ');
    for (const name of ['Shop\r\nX-Injected: 1', 'Esc\u001b[31m', 'x'.repeat(81)]) {
      expect((await failing(['set', '--environment', keys.environment_id, '--name', name])).code, JSON.stringify(name)).toBe(2);
      expect((await failing(['create', '--name', name])).code, JSON.stringify(name)).toBe(2);
    }
  }, 60_000);
});
