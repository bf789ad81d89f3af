import pg from 'pg';

// The test databases on PostgreSQL commit without waiting for the write-ahead log to reach
// the disk (`synchronous_commit = off`): a commit is as atomic and as visible to every
// other session as before, and only a crash of PostgreSQL itself could lose the last
// ones, which no test here does to these databases (the restart tests run a cluster of
// their own, test/api/pg-cluster.ts). What the tests spent waiting for the disk goes
// (docs/performance.md).

/** Sets `synchronous_commit = off` for the sessions that connect to `database` from now on. */
export async function commitWithoutFlush(client: pg.Client, database: string): Promise<void> {
  await client.query(`alter database ${client.escapeIdentifier(database)} set synchronous_commit = off`);
}

/** Vitest's global setup: TEST_DATABASE_URL's database, when there is one. */
export default async function setUpTestDatabase(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('select current_database() as name');
    await commitWithoutFlush(client, rows[0]!.name);
  } finally {
    await client.end();
  }
}
