import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startIsolatedService } from '../api/database';
import { ENGINES } from '../api/harness';
import { processScope } from '../api/process';

// /health/live and /health/ready: unauthenticated, cheap, JSON naming the check that
// failed, and kept out of the access log.

const health = async (url: string, path: string) => {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, body: (await res.json()) as { status: string; checks?: Record<string, string> } };
};

describe.each(ENGINES)('health on %s', (engine) => {
  it('live and ready answer 200; draining and a missing migration make ready 503 and say why', async () => {
    // On PostgreSQL it also tells whether the timeouts are in force (sent at connect here).
    const timeouts = engine === 'postgres' ? { database_timeouts: 'in force: statement_timeout 30 s, idle_in_transaction_session_timeout 60 s' } : {};
    const t = await startIsolatedService(engine);
    try {
      expect(await health(t.url, '/health/live')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await health(t.url, '/health/ready')).toEqual({
        status: 200,
        body: { status: 'ok', checks: { draining: 'ok', database: 'ok', migrations: 'ok', jobs: 'ok' }, ...timeouts },
      });
      expect((await health(t.url, '/health/other')).status).toBe(404);
      expect((await fetch(`${t.url}/health/ready`, { method: 'POST' })).status).toBe(405);

      t.service.lifecycle.draining = true;
      const draining = await health(t.url, '/health/ready');
      expect(draining.status).toBe(503);
      expect(draining.body.checks).toMatchObject({ draining: 'shutting down', database: 'ok' });
      expect((await health(t.url, '/health/live')).status).toBe(200);
      t.service.lifecycle.draining = false;

      // A database migrated by older code: this process needs a migration it does not have.
      const db = t.service.deps.database.db;
      await sql`delete from kysely_migration where name = '025_rate_limits'`.execute(db);
      const behind = await health(t.url, '/health/ready');
      expect(behind.status).toBe(503);
      expect(behind.body.checks).toMatchObject({ database: 'ok', migrations: 'not applied: 025_rate_limits' });
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('health with PostgreSQL away', () => {
  it('ready is 503 naming the database while it refuses connections, and 200 again once it is back', { timeout: 60_000 }, async () => {
    const t = await startIsolatedService('postgres');
    const name = /@[^/]*\/([^?]+)/.exec(t.service.deps.config.databaseUrl!)![1]!;
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      await expect
        .poll(async () => {
          const r = await health(t.url, '/health/ready');
          return r.status === 503 && r.body.checks!.database !== 'ok';
        }, { timeout: 20_000 })
        .toBe(true);
      await admin.query(`alter database ${name} allow_connections true`);
      await expect.poll(async () => (await health(t.url, '/health/ready')).status, { timeout: 20_000 }).toBe(200);
    } finally {
      await admin.query(`alter database ${name} allow_connections true`);
      await admin.end();
      await t.close();
    }
  });
});

const { started, environment } = processScope();

describe('health probes and the access log', () => {
  it('a real process answers the probes without writing an access line for them', { timeout: 60_000 }, async () => {
    const p = await started(await environment('sqlite'));
    for (let i = 0; i < 3; i++) expect((await fetch(`${p.url}/health/ready`)).status).toBe(200);
    expect((await fetch(`${p.url}/no-such-page`)).status).toBe(404);
    await expect.poll(() => p.output.some((line) => line.includes('"path":"/no-such-page"')), { timeout: 10_000 }).toBe(true);
    expect(p.output.filter((line) => line.includes('/health/'))).toEqual([]);
  });
});
