import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { databaseUrl, migratedPostgresTemplate, sessionsEnded, withClient } from '../database-template';
import { type EngineName, startTestService, type TestService } from './harness';

/**
 * A PostgreSQL database of its own, next to TEST_DATABASE_URL's, for tests whose
 * background work (deliveries, the expiry sweep, a skewed clock) must not touch other
 * test files' rows in the shared database, nor see theirs. Already migrated (a copy of
 * test/database-template.ts's) unless `empty`, for the tests of the migrations themselves.
 */
export async function freshDatabase(opts: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL!;
  const name = `checkout_notify_${randomBytes(6).toString('hex')}`;
  const admin = <T>(work: (client: pg.Client) => Promise<T>) => withClient(base, work);
  const template = opts.empty ? 'template1' : await migratedPostgresTemplate(base);
  await admin((c) => c.query(`create database ${name} template ${template}`));
  return {
    url: databaseUrl(base, name),
    // A closed pool has sent its clients' goodbyes but their sessions may still be ending:
    // forcing the drop then makes the server kill them, and a client still ending reports
    // that as an error. Wait for the sessions to end; force only what is left after that.
    drop: () =>
      admin(async (c) => {
        await sessionsEnded(c, name).catch(() => undefined);
        await c.query(`drop database if exists ${name} with (force)`);
      }),
  };
}

/**
 * A test service on a database of its own (a fresh PostgreSQL database; SQLite's is always
 * its own), dropped on close: for tests whose jobs take every due row they find.
 */
export async function startIsolatedService(engine: EngineName, opts: Parameters<typeof startTestService>[1] = {}): Promise<TestService> {
  const database = engine === 'postgres' ? await freshDatabase() : undefined;
  const t = await startTestService(engine, { ...opts, env: { ...opts.env, ...(database ? { DATABASE_URL: database.url } : {}) } });
  return {
    ...t,
    async close() {
      await t.close();
      await database?.drop();
    },
  };
}
