import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../server/store/db';
import { isDatabaseUnavailable } from '../../server/store/errors';

// PostgreSQL ends sessions on a restart, a failover or an administrator's terminate. A
// pooled connection may be idle then, or lent out: inside a transaction, between two of
// its statements. Either way the process must live on (an `error` event nobody listens
// for throws, and Vitest fails the run on an uncaught error), the caller whose session
// ended gets an error the API answers with 503, the loss is told once, and the next
// query gets a new session. database-restart.test.ts does the same to a whole process.

const opened: { database: Database; admin: pg.Client }[] = [];
afterEach(async () => {
  for (const { database, admin } of opened.splice(0)) {
    await admin.end();
    await database.close();
  }
});

async function open() {
  const lost: Error[] = [];
  const database = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL!, dataDir: tmpdir(), onConnectionError: (err) => lost.push(err) });
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  opened.push({ database, admin });
  const pid = async (db: Database['db']) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
  /** Ends the session, then waits until the client has heard of it (the notice and the closed socket). */
  const terminate = async (backend: number) => {
    await admin.query('select pg_terminate_backend($1)', [backend]);
    await expect.poll(() => lost.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
  };
  return { database, lost, pid, terminate };
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL sessions ended under the pool', () => {
  it('a session ended inside a transaction: that transaction fails as unavailable, the loss is told once, the next query works', async () => {
    const { database, lost, pid, terminate } = await open();
    const failed = await database.db
      .transaction()
      .execute(async (trx) => {
        await terminate(await pid(trx));
        await sql`select 1`.execute(trx);
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failed).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(failed)).toBe(true);
    expect(lost).toHaveLength(1);
    expect((await sql<{ x: number }>`select 2 as x`.execute(database.db)).rows).toEqual([{ x: 2 }]);
  });

  it('an idle session ended: told once, and the next query gets a new session', async () => {
    const { database, lost, pid, terminate } = await open();
    const first = await pid(database.db);
    await terminate(first);
    expect(lost).toHaveLength(1);
    expect(await pid(database.db)).not.toBe(first);
  });
});
