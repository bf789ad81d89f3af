// The cost of the API rate limit per request: `tsx test/bench/limiter.ts` (SQLite's
// in-memory buckets) and with BENCH_DATABASE_URL=postgres://… (one UPSERT per request for a
// limit under 20 a second, one per share above: domain/rate-limit.ts shareSize), each
// against the cheapest round trip the engine has, in the same run. Prints, asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../../server/store/db';
import { migrate } from '../../server/store/migrations';
import { createLimiter } from '../../server/store/rate-limits';

const N = 5000;
const CONCURRENCY = 10;
const dataDir = mkdtempSync(join(tmpdir(), 'checkout-limiter-'));
const database = openDatabase({ databaseUrl: process.env.BENCH_DATABASE_URL ?? null, dataDir });
await migrate(database);
const limiter = createLimiter(database);
// A token at a time: every call one UPSERT (most of them refused, which costs the same).
const exact = { name: 'api', limit: 10, windowMs: 1000 };
// The default API limit, called at its own rate on a clock that moves 10 ms a call: a
// share of 10 every 100 ms of that clock.
const shared = { name: 'api', limit: 100, windowMs: 1000 };
const t0 = Date.now();
const atRate = (i: number) => new Date(t0 + i * 10);

/** Mean microseconds per call with CONCURRENCY callers, over N calls. */
async function time(call: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await call(i);
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < N) await call(next++);
  }));
  return ((performance.now() - started) * 1000) / N;
}

const roundTrip = await time(() => sql`select 1`.execute(database.db));
const oneKey = await time(() => limiter.take('bench:one', exact, new Date()));
const manyKeys = await time((i) => limiter.take(`bench:${i % 1000}`, exact, new Date()));
const sharedKey = await time((i) => limiter.take('bench:shared', shared, atRate(i)));
process.stdout.write(
  `${database.engine}: ${N} calls, ${CONCURRENCY} at a time, µs per call (throughput-bound, not latency)\n` +
    `  select 1                                ${roundTrip.toFixed(1)}\n` +
    `  take, one hot key, a token at a time    ${oneKey.toFixed(1)}\n` +
    `  take, 1000 keys, a token at a time      ${manyKeys.toFixed(1)}\n` +
    `  take, one hot key at 100/s, by shares   ${sharedKey.toFixed(1)}\n`,
);
if (database.engine === 'postgres') await sql`delete from rate_limits where key like 'bench:%'`.execute(database.db);
await database.close();
rmSync(dataDir, { recursive: true, force: true });
