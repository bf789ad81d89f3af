import pg from 'pg';

// BENCH_DATABASE_URL: each run works in a schema of its own, created here and dropped at
// the end, so the database's own tables and data are never touched and every run starts
// from empty tables. The service and the harness reach it through the URL's `options`
// (search_path), so nothing in server/ knows.

export interface ScratchSchema {
  /** BENCH_DATABASE_URL with search_path set to the scratch schema (it must not set `options` itself). */
  url: string;
  drop(): Promise<void>;
}

async function run(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function scratchSchema(baseUrl: string): Promise<ScratchSchema> {
  const schema = `checkout_bench_${Date.now()}_${process.pid}`;
  await run(baseUrl, `CREATE SCHEMA ${schema}`);
  // Appended as text: `new URL` rejects libpq forms such as postgres://user@/db?host=/socket.
  const url = `${baseUrl}${baseUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return { url, drop: () => run(baseUrl, `DROP SCHEMA ${schema} CASCADE`) };
}
