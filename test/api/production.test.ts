import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { startTestService, TEST_SECRETS_KEY } from './harness';
import { processScope } from './process';

// NODE_ENV=production: no start without PUBLIC_URL or SECRETS_KEY, no demo unless
// DEMO=true; the demo shop, when on, is rate-limited per client address.

const { environment, started } = processScope();

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('production settings', () => {
  it('refuses to start without PUBLIC_URL, and says why', async () => {
    expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: TEST_SECRETS_KEY })).toThrow(/PUBLIC_URL: is required with NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://pay.example/', SECRETS_KEY: TEST_SECRETS_KEY }).publicUrl).toBe('https://pay.example');
    const env = await environment('sqlite', { NODE_ENV: 'production' });
    await expect(started(env)).rejects.toThrow(/PUBLIC_URL: is required with NODE_ENV=production/);
  });

  it('refuses to start without SECRETS_KEY, or with one that is not 32 bytes in base64, and says why', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://pay.example' })).toThrow(/SECRETS_KEY: is required with NODE_ENV=production/);
    for (const bad of ['short', Buffer.alloc(16).toString('base64'), `${TEST_SECRETS_KEY}!`]) {
      expect(() => loadConfig({ SECRETS_KEY: bad })).toThrow(/SECRETS_KEY: must be 32 bytes in base64/);
    }
    expect(() => loadConfig({ SECRETS_KEY: TEST_SECRETS_KEY, SECRETS_KEY_PREVIOUS: `${TEST_SECRETS_KEY},nope` })).toThrow(/SECRETS_KEY_PREVIOUS: must be keys like SECRETS_KEY/);
  });

  it('keeps the demo off in production unless DEMO=true', () => {
    const production = { NODE_ENV: 'production', PUBLIC_URL: 'https://pay.example', SECRETS_KEY: TEST_SECRETS_KEY };
    expect(loadConfig(production).demo).toBe('off');
    expect(loadConfig({ ...production, DEMO: 'true' }).demo).toBe('on');
    expect(loadConfig({}).demo).toBe('auto');
  });

  it('a production process on a fresh embedded database creates no demo environment and has no /demo/', { timeout: 60_000 }, async () => {
    const port = await freePort();
    // DEMO unset (empty), as in a real deployment: only production keeps the demo off.
    const p = await started(await environment('sqlite', { NODE_ENV: 'production', DEMO: '', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` }));
    expect(p.output.join('\n')).not.toContain('demo environment was created');
    expect((await fetch(`${p.url}/demo/`)).status).toBe(404);
  });

  // Moved from the browser tier (widget.spec.ts), which started a service process for one status code.
  it('DEMO=false outside production: no demo environment, and /demo/ is 404', async () => {
    const t = await startTestService('sqlite', { env: { DEMO: 'false' } });
    try {
      // What the service's start (server/main.ts) does with the setting.
      const { ensureDemoEnvironment } = await import('../../server/demo');
      expect(await ensureDemoEnvironment(t.service.deps.config, t.service.deps.database, new Date())).toBeNull();
      expect((await fetch(`${t.url}/demo/`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('the demo shop creates one open transaction per order and visitor: a reload with its cookie creates nothing', async () => {
    const t = await startTestService('sqlite', { env: { DEMO: 'true' } });
    try {
      const { ensureDemoEnvironment } = await import('../../server/demo');
      const demo = (await ensureDemoEnvironment(t.service.deps.config, t.service.deps.database, new Date()))!;
      const db = t.service.deps.database.db;
      const count = async () => Number((await db.selectFrom('transactions').select((eb) => eb.fn.countAll().as('n')).where('environment_id', '=', demo.environment_id).executeTakeFirstOrThrow()).n);
      const first = await fetch(`${t.url}/demo/`);
      const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
      expect(cookie).toMatch(/^demo_orders=[\w-]+\.[\w-]+$/);
      expect(await count()).toBe(2);
      const again = await fetch(`${t.url}/demo/`, { headers: { cookie } });
      expect(again.headers.get('set-cookie')!.split(';')[0]).toBe(cookie);
      expect(await count()).toBe(2);
      // Another visitor (no cookie) gets orders of their own.
      expect((await fetch(`${t.url}/demo/`)).headers.get('set-cookie')!.split(';')[0]).not.toBe(cookie);
      expect(await count()).toBe(4);
    } finally {
      await t.close();
    }
  });

  it('the demo shop, when on, answers 429 past IP_RATE_LIMIT visits a minute from one address', async () => {
    const t = await startTestService('sqlite', { env: { DEMO: 'true', IP_RATE_LIMIT: '2' } });
    try {
      await t.newEnvironment();
      const { ensureDemoEnvironment } = await import('../../server/demo');
      await ensureDemoEnvironment(t.service.deps.config, t.service.deps.database, new Date());
      expect((await fetch(`${t.url}/demo/`)).status).toBe(200);
      expect((await fetch(`${t.url}/demo/`)).status).toBe(200);
      const refused = await fetch(`${t.url}/demo/`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).not.toBeNull();
    } finally {
      await t.close();
    }
  });
});
