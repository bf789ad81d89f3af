import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, member } from './dashboard';
import { Client, ENGINES, startTestService, type TestService, testClock } from './harness';
import { keysCli, type ProcessEnv } from './process';

// Several key pairs per environment: created, rolled with an overlap window and revoked in
// the dashboard and with the keys CLI, and what the API then accepts.

describe.each(ENGINES)('API keys on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let shop: Client;
  let other: Client;
  let owner: Browser;

  beforeAll(async () => {
    t = await startTestService(engine, { now: clock.now });
    shop = await t.newEnvironment('Shop');
    other = await t.newEnvironment('Other shop');
    owner = (await member(t, shop, 'owner')).browser;
  });
  afterAll(() => t?.close());

  const as = (env: Client, publicKey: string, secretKey: string) => new Client(t.url, { ...env.keys, public_key: publicKey, secret_key: secretKey });
  const works = async (c: Client) => (await c.get('/transaction/')).status;
  const secretOn = (page: { text: string }) => /data-testid="secret-key">(sk_[A-Za-z0-9_-]+)</.exec(page.text)?.[1];
  const rowOf = (page: { text: string }, publicKey: string) => new RegExp(`data-public-key="${publicKey}"[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? '';
  const idOf = (page: { text: string }, publicKey: string) => /\/dashboard\/keys\/([0-9a-f-]{36})\/roll\//.exec(rowOf(page, publicKey))?.[1];

  async function createKey(label: string): Promise<{ publicKey: string; secret: string; id: string }> {
    await owner.get('/dashboard/keys/');
    const created = await owner.post('/dashboard/keys/', { label });
    expect(created.status).toBe(201);
    const secret = secretOn(created)!;
    const publicKey = new RegExp(`<td>${label}</td><td><code>(pk_[A-Za-z0-9_-]+)</code>`).exec(created.text)?.[1];
    expect(secret).toMatch(/^sk_/);
    expect(publicKey).toMatch(/^pk_/);
    return { publicKey: publicKey!, secret, id: idOf(created, publicKey!)! };
  }

  it('a key created in the dashboard works at once, beside the first one; its secret is shown only once', async () => {
    const key = await createKey('Second server');
    expect(await works(as(shop, key.publicKey, key.secret))).toBe(200);
    expect(await works(shop)).toBe(200);
    const list = await owner.get('/dashboard/keys/');
    expect(list.text).toContain(key.publicKey);
    expect(list.text).not.toContain(key.secret);
    // A secret of one key does not open another.
    expect(await works(as(shop, shop.keys.public_key, key.secret))).toBe(401);
  });

  it('a rolled secret keeps working during its overlap window and not after; the new one works at once', async () => {
    const key = await createKey('Rolled');
    const rolled = await owner.post(`/dashboard/keys/${key.id}/roll/`, { overlap_hours: '24' });
    expect(rolled.status).toBe(200);
    const fresh = secretOn(rolled)!;
    expect(fresh).not.toBe(key.secret);
    expect(await works(as(shop, key.publicKey, fresh))).toBe(200);
    expect(await works(as(shop, key.publicKey, key.secret))).toBe(200);
    expect(rowOf(rolled, key.publicKey)).toContain('previous secret works until');
    try {
      clock.advance(24 * 3600_000 - 5_000);
      expect(await works(as(shop, key.publicKey, key.secret))).toBe(200);
      clock.advance(10_000);
      expect(await works(as(shop, key.publicKey, key.secret))).toBe(401);
      expect(await works(as(shop, key.publicKey, fresh))).toBe(200);
    } finally {
      clock.reset();
    }
    // Without an overlap, the old secret stops at once.
    const again = await owner.post(`/dashboard/keys/${key.id}/roll/`, { overlap_hours: '0' });
    expect(await works(as(shop, key.publicKey, fresh))).toBe(401);
    expect(await works(as(shop, key.publicKey, secretOn(again)!))).toBe(200);
    expect((await owner.post(`/dashboard/keys/${key.id}/roll/`, { overlap_hours: '5' })).status).toBe(400);
  });

  it('revoking asks first, then stops the key at once, even inside an overlap window', async () => {
    const key = await createKey('Revoked');
    await owner.post(`/dashboard/keys/${key.id}/roll/`, { overlap_hours: '24' });
    const fresh = secretOn(await owner.get('/dashboard/keys/'));
    expect(fresh).toBeUndefined();
    const ask = await owner.post(`/dashboard/keys/${key.id}/revoke/`, {});
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('cannot be undone');
    expect(await works(as(shop, key.publicKey, key.secret))).toBe(200);
    const done = await owner.post(`/dashboard/keys/${key.id}/revoke/`, { confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(await works(as(shop, key.publicKey, key.secret))).toBe(401);
    expect(rowOf(await owner.get('/dashboard/keys/'), key.publicKey)).toContain('Revoked');
    expect((await owner.post(`/dashboard/keys/${key.id}/roll/`, { overlap_hours: '0' })).status).toBe(404);
    const log = (await owner.get('/dashboard/audit/')).text;
    for (const what of ['Created key Revoked', 'Rolled key Revoked', 'Revoked key Revoked']) expect(log).toContain(what);
  });

  it("another environment's key cannot be rolled or revoked, and only owners manage keys", async () => {
    const stranger = (await member(t, other, 'owner')).browser;
    const otherList = await stranger.get('/dashboard/keys/');
    const otherId = idOf(otherList, other.keys.public_key)!;
    expect(otherId).toBeDefined();
    expect((await owner.get('/dashboard/keys/')).text).not.toContain(other.keys.public_key);
    await owner.get('/dashboard/keys/');
    expect((await owner.post(`/dashboard/keys/${otherId}/revoke/`, { confirm: 'yes' })).status).toBe(404);
    expect((await owner.post(`/dashboard/keys/${otherId}/roll/`, { overlap_hours: '0' })).status).toBe(404);
    expect(await works(other)).toBe(200);

    for (const role of ['admin', 'viewer'] as const) {
      const { browser } = await member(t, shop, role);
      expect((await browser.get('/dashboard/keys/')).status).toBe(403);
      expect((await browser.post('/dashboard/keys/', { label: 'Not allowed' })).status).toBe(403);
      const shopId = idOf(await owner.get('/dashboard/keys/'), shop.keys.public_key)!;
      expect((await browser.post(`/dashboard/keys/${shopId}/revoke/`, { confirm: 'yes' })).status).toBe(403);
    }
    expect((await owner.get('/dashboard/keys/')).text).not.toContain('Not allowed');
    expect(await works(shop)).toBe(200);
  }, 60_000);

  it('the keys CLI lists, creates, rolls and revokes an environment\'s keys', async () => {
    const env: ProcessEnv = { DATA_DIR: t.dataDir, ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}) };
    const environment = shop.keys.environment_id;
    const created = JSON.parse(await keysCli(['create', '--environment', environment, '--label', 'From the CLI', '--json'], env));
    expect(created).toMatchObject({ environment_id: environment, label: 'From the CLI', public_key: expect.stringMatching(/^pk_/), secret_key: expect.stringMatching(/^sk_/) });
    expect(await works(as(shop, created.public_key, created.secret_key))).toBe(200);
    const listed = JSON.parse(await keysCli(['list', '--environment', environment, '--json'], env));
    expect(listed.map((k: { public_key: string }) => k.public_key)).toEqual(expect.arrayContaining([shop.keys.public_key, created.public_key]));
    expect(JSON.stringify(listed)).not.toContain('hash');

    const rolled = JSON.parse(await keysCli(['roll', '--key', created.public_key, '--overlap-hours', '0', '--json'], env));
    expect(rolled.public_key).toBe(created.public_key);
    expect(await works(as(shop, created.public_key, created.secret_key))).toBe(401);
    expect(await works(as(shop, created.public_key, rolled.secret_key))).toBe(200);
    await keysCli(['revoke', '--key', created.public_key, '--json'], env);
    expect(await works(as(shop, created.public_key, rolled.secret_key))).toBe(401);
  }, 60_000);
});
