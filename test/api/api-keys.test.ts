import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listApiKeys } from '../../server/store/api-keys';
import { auditOf } from '../../server/store/audit';
import { Browser, member, PASSWORD } from './dashboard';
import { Client, ENGINES, startTestService, type TestService, testClock } from './harness';

// Several key pairs per environment: created, rolled with an overlap window and revoked in
// the dashboard, and what the API then accepts (the keys CLI's: process/keys-cli.test.ts). A new secret is shown
// once, on the GET a POST redirects to; a roll asks first; a second roll never shortens the
// time an older secret was promised (issue 44).

describe.each(ENGINES)('API keys on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let shop: Client;
  let other: Client;
  let owner: Browser;
  let ownerEmail: string;

  beforeAll(async () => {
    t = await startTestService(engine, { now: clock.now });
    shop = await t.newEnvironment('Shop');
    other = await t.newEnvironment('Other shop');
    ({ browser: owner, email: ownerEmail } = await member(t, shop, 'owner'));
  });
  afterAll(() => t?.close());

  const as = (env: Client, publicKey: string, secretKey: string) => new Client(t.url, { ...env.keys, public_key: publicKey, secret_key: secretKey });
  const works = async (c: Client) => (await c.get('/transaction/')).status;
  const secretOn = (page: { text: string }) => /data-testid="secret-key">(sk_[A-Za-z0-9_-]+)</.exec(page.text)?.[1];
  const rowOf = (page: { text: string }, publicKey: string) => new RegExp(`data-public-key="${publicKey}"[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? '';
  const idOf = (page: { text: string }, publicKey: string) => /\/dashboard\/keys\/([0-9a-f-]{36})\/roll\//.exec(rowOf(page, publicKey))?.[1];

  /** The POST made no secret visible: it redirects to the page that shows it once. */
  function expectRedirectToReveal(page: { status: number; location: string | null; text: string }, id?: string): string {
    expect(page.status, page.text.slice(0, 300)).toBe(303);
    expect(page.location).toMatch(new RegExp(`^/dashboard/keys/${id ?? '[0-9a-f-]{36}'}/revealed/$`));
    expect(page.text).not.toMatch(/sk_(test|live)_/);
    return page.location!;
  }

  async function createKey(label: string): Promise<{ publicKey: string; secret: string; id: string }> {
    await owner.get('/dashboard/keys/');
    const shown = await owner.get(expectRedirectToReveal(await owner.post('/dashboard/keys/', { label })));
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const secret = secretOn(shown)!;
    const publicKey = new RegExp(`<td>${label}</td><td><code>(pk_[A-Za-z0-9_-]+)</code>`).exec(shown.text)?.[1];
    expect(secret).toMatch(/^sk_/);
    expect(publicKey).toMatch(/^pk_/);
    return { publicKey: publicKey!, secret, id: idOf(shown, publicKey!)! };
  }

  /** A roll as the page does it: the confirmation (what it returns), then the confirmed post. */
  async function askRoll(id: string, hours: string) {
    const asked = await owner.post(`/dashboard/keys/${id}/roll/`, { overlap_hours: hours });
    return { asked, done: await owner.post(`/dashboard/keys/${id}/roll/`, { overlap_hours: hours, confirm: 'yes' }) };
  }

  /** A roll confirmed and its secret read from the page the POST redirects to. */
  async function roll(id: string, hours: string): Promise<string> {
    const { asked, done } = await askRoll(id, hours);
    expect(asked.status).toBe(200);
    const secret = secretOn(await owner.get(expectRedirectToReveal(done, id)))!;
    expect(secret).toMatch(/^sk_/);
    return secret;
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
    const fresh = await roll(key.id, '24');
    expect(fresh).not.toBe(key.secret);
    expect(await works(as(shop, key.publicKey, fresh))).toBe(200);
    expect(await works(as(shop, key.publicKey, key.secret))).toBe(200);
    expect(rowOf(await owner.get('/dashboard/keys/'), key.publicKey)).toContain('Older secret: works until');
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
    const again = await roll(key.id, '0');
    expect(await works(as(shop, key.publicKey, fresh))).toBe(401);
    expect(await works(as(shop, key.publicKey, again))).toBe(200);
    expect((await owner.post(`/dashboard/keys/${key.id}/roll/`, { overlap_hours: '5' })).status).toBe(400);
    expect((await owner.post(`/dashboard/keys/${key.id}/roll/`, { overlap_hours: '5', confirm: 'yes' })).status).toBe(400);
    expect(await works(as(shop, key.publicKey, again))).toBe(200);
  });

  it('revoking asks first, then stops the key at once, even inside an overlap window', async () => {
    const key = await createKey('Revoked');
    await roll(key.id, '24');
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

  it('two rolls and a reload leave the secret in use working until its promised expiry (issue 44)', async () => {
    const key = await createKey('Promised');
    const inUse = as(shop, key.publicKey, key.secret);
    // The roll asks first, saying what the chosen window means for the secret in use.
    const { asked, done } = await askRoll(key.id, '24');
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('The current secret keeps working until');
    expect(await works(inUse)).toBe(200);
    const revealPath = expectRedirectToReveal(done, key.id);
    const fresh = secretOn(await owner.get(revealPath))!;
    // A reload shows no secret and rolls nothing.
    const reloaded = await owner.get(revealPath);
    expect(reloaded.status).toBe(200);
    expect(reloaded.headers.get('cache-control')).toBe('no-store');
    expect(secretOn(reloaded)).toBeUndefined();
    expect(reloaded.text).toContain('has already been shown');
    expect(await works(as(shop, key.publicKey, fresh))).toBe(200);
    // A second roll with an overlap would end the older secret early: refused, nothing changed.
    const second = await askRoll(key.id, '24');
    expect(second.asked.text).toContain('its older secret still works until');
    expect(second.done.status).toBe(409);
    expect(second.done.text).toContain('its older secret still works until');
    expect(second.done.text).toContain('/end-older/');
    expect(secretOn(await owner.get(revealPath))).toBeUndefined();
    expect(await works(as(shop, key.publicKey, fresh))).toBe(200);
    expect(await works(inUse)).toBe(200);
    // Without an overlap it is allowed: the newer secret stops now, the older one keeps its time.
    const zero = await askRoll(key.id, '0');
    expect(zero.asked.text).toContain('The current secret stops working at once');
    expect(zero.asked.text).toContain('The older secret keeps working until');
    const third = secretOn(await owner.get(expectRedirectToReveal(zero.done, key.id)))!;
    expect(await works(as(shop, key.publicKey, fresh))).toBe(401);
    expect(await works(as(shop, key.publicKey, third))).toBe(200);
    expect(await works(inUse)).toBe(200);
    const row = rowOf(await owner.get('/dashboard/keys/'), key.publicKey);
    expect(row).toContain('Current secret (since');
    expect(row).toContain('Older secret: works until');
    try {
      clock.advance(24 * 3600_000 - 5_000);
      expect(await works(inUse)).toBe(200);
      clock.advance(10_000);
      expect(await works(inUse)).toBe(401);
      expect(await works(as(shop, key.publicKey, third))).toBe(200);
    } finally {
      clock.reset();
    }
  });

  it('of two rolls with an overlap at once, one rolls and the other is refused', async () => {
    const key = await createKey('Raced');
    await owner.get('/dashboard/keys/');
    const answers = await Promise.all([0, 1, 2].map(() => owner.post(`/dashboard/keys/${key.id}/roll/`, { overlap_hours: '24', confirm: 'yes' })));
    expect(answers.map((a) => a.status).sort()).toEqual([303, 409, 409]);
    expect(await works(as(shop, key.publicKey, key.secret))).toBe(200);
  });

  it('the secret waiting to be shown is sealed, bound to the session that asked, and deleted when read', async () => {
    const db = t.service.deps.database.db;
    await owner.get('/dashboard/keys/');
    const revealPath = expectRedirectToReveal(await owner.post('/dashboard/keys/', { label: 'Sealed' }));
    const keyId = revealPath.split('/')[3]!;
    const reveals = () => db.selectFrom('api_key_reveals').selectAll().where('key_id', '=', keyId).execute();
    const stored = await reveals();
    expect(stored).toHaveLength(1);
    // The owner, signed in on another browser: a session of its own, which is shown nothing.
    const elsewhere = new Browser(t.url);
    expect((await elsewhere.signIn(ownerEmail, PASSWORD)).status).toBe(303);
    const theirs = await elsewhere.get(revealPath);
    expect(theirs.status).toBe(200);
    expect(secretOn(theirs)).toBeUndefined();
    expect(theirs.text).toContain('has already been shown');
    // The session that asked still gets it, once.
    const shown = await owner.get(revealPath);
    const secret = secretOn(shown)!;
    expect(secret).toMatch(/^sk_test_/);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(await reveals()).toEqual([]);
    for (const value of Object.values(stored[0]!)) {
      expect(String(value)).not.toContain(secret);
      expect(String(value)).not.toContain(secret.slice('sk_test_'.length, 30));
    }
    if (engine === 'sqlite') {
      const raw = Buffer.concat(['checkout.db', 'checkout.db-wal'].map((f) => join(t.dataDir, f)).filter(existsSync).map((f) => readFileSync(f)));
      expect(raw.includes(stored[0]!.sealed_secret)).toBe(true); // the search sees what is stored...
      expect(raw.includes(secret.slice('sk_test_'.length))).toBe(false); // ...and the secret is not
    }
    expect(secretOn(await owner.get(revealPath))).toBeUndefined();
    // Another environment's key, and an id that is none: not found.
    const otherId = idOf(await (await member(t, other, 'owner')).browser.get('/dashboard/keys/'), other.keys.public_key)!;
    expect((await owner.get(`/dashboard/keys/${otherId}/revealed/`)).status).toBe(404);
    expect((await owner.get('/dashboard/keys/nonsense/revealed/')).status).toBe(404);
  });

  it('an older secret can be ended at once (a leak), asked first and audited', async () => {
    const key = await createKey('Leaked');
    const fresh = await roll(key.id, '168');
    const leaked = as(shop, key.publicKey, key.secret);
    expect(await works(leaked)).toBe(200);
    const asked = await owner.post(`/dashboard/keys/${key.id}/end-older/`, {});
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('It was to keep working until');
    expect(await works(leaked)).toBe(200);
    const done = await owner.post(`/dashboard/keys/${key.id}/end-older/`, { confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(await works(leaked)).toBe(401);
    expect(await works(as(shop, key.publicKey, fresh))).toBe(200);
    expect(rowOf(await owner.get('/dashboard/keys/'), key.publicKey)).not.toContain('Older secret');
    const [entry] = await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 1, offset: 0, action: 'key_older_ended' });
    expect(JSON.parse(entry!.detail!)).toMatchObject({ label: 'Leaked', public_key: key.publicKey, until: expect.any(String) });
    // Nothing older left: a roll with an overlap is allowed again.
    const next = await roll(key.id, '1');
    expect(await works(as(shop, key.publicKey, fresh))).toBe(200);
    expect(await works(as(shop, key.publicKey, next))).toBe(200);
  });

  it('a label with a NUL or another control character is a 400 naming the field, and nothing is stored', async () => {
    const before = await listApiKeys(t.service.deps.database.db, shop.keys.environment_id);
    await owner.get('/dashboard/keys/');
    for (const label of ['Shop\u0000server', 'Two\nlines', 'Bell\u0007', ' ', 'x'.repeat(101)]) {
      const refused = await owner.post('/dashboard/keys/', { label });
      expect(refused.status, JSON.stringify(label)).toBe(400);
      expect(refused.text).toContain('data-testid="error-label"');
      expect(refused.text).toContain('Label: 1 to 100 characters on one line');
      expect(refused.text).toContain('aria-invalid="true"');
    }
    expect(await listApiKeys(t.service.deps.database.db, shop.keys.environment_id)).toEqual(before);
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
    expect((await owner.post(`/dashboard/keys/${otherId}/roll/`, { overlap_hours: '0', confirm: 'yes' })).status).toBe(404);
    expect((await owner.post(`/dashboard/keys/${otherId}/end-older/`, { confirm: 'yes' })).status).toBe(404);
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
});
