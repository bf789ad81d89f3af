import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Database, Tx } from '../../server/store/db';

// A concurrency test holds a row the way a request's transaction would, starts the racing
// request, and lets go only once that request is blocked behind it: then the race is run
// every time, however busy the machine, instead of when the request happened to arrive
// within a fixed wait. What "blocked" is, per engine:
//
// - PostgreSQL: a backend of this database whose lock wait is on the holder's backend, or
//   on a backend that waits on it (`pg_blocking_pids`), asked on another connection of the pool (pg_stat_activity is a
//   snapshot for the length of a transaction, so never inside the held one).
// - SQLite: a write of this process waiting for the writer's turn behind the held
//   transaction (`Database.waitingWriters`, sqlite-split.ts): one writer at a time there.

/** Generous: only turns a request that never blocks into a clear failure. */
const LIMIT_MS = 20_000;
const POLL_MS = 5;

/**
 * Resolves once `racing` waits on a lock that `holder`, a transaction held open by the
 * test, holds (`count` waiters: as many racers as `racing` gathers), and the clock has
 * moved on since. Rejects if `racing` settles first (it never reached the lock: the race
 * did not happen) or not enough wait within LIMIT_MS.
 */
export async function blockedBehind(database: Database, holder: Tx, racing: Promise<unknown>, count = 1): Promise<void> {
  let settled: string | undefined;
  racing.then(
    (value) => (settled = `answered ${describe(value)}`),
    (err: unknown) => (settled = `failed: ${String(err)}`),
  );
  const waiting = await waiters(database, holder);
  const until = Date.now() + LIMIT_MS;
  for (;;) {
    if ((await waiting()) >= count) return clockPast(Date.now());
    if (settled !== undefined) throw new Error(`the racing request ${settled} without waiting on the held lock`);
    if (Date.now() > until) throw new Error(`nothing waited on the held lock within ${LIMIT_MS} ms`);
    await sleep(POLL_MS);
  }
}

/**
 * Once the clock has moved past `seen`: whatever the racing request dated before it began
 * to wait is then dated strictly before the holder lets go (the SQLite counter is seen
 * within the millisecond the wait began).
 */
async function clockPast(seen: number): Promise<void> {
  while (Date.now() <= seen) await sleep(1);
}

async function waiters(database: Database, holder: Tx): Promise<() => Promise<number>> {
  if (database.engine === 'sqlite') {
    const count = database.waitingWriters;
    if (!count) throw new Error('this SQLite database does not count its waiting writers');
    return async () => count();
  }
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(holder);
  const holderPid = rows[0]!.pid;
  return async () => {
    // Behind the holder, or behind one that is: a second waiter on a row queues behind the
    // first (its tuple lock), which is what pg_blocking_pids names.
    const { rows: waits } = await sql<{ pid: number; blockers: number[] }>`
      select pid, pg_blocking_pids(pid) as blockers from pg_stat_activity
      where datname = current_database() and cardinality(pg_blocking_pids(pid)) > 0`.execute(database.db);
    const behind = new Set<number>([holderPid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const w of waits) if (!behind.has(w.pid) && w.blockers.some((b) => behind.has(b))) grew = Boolean(behind.add(w.pid));
    }
    return behind.size - 1;
  };
}

function describe(value: unknown): string {
  if (value && typeof value === 'object' && 'status' in value) return `${String(value.status)}`;
  return JSON.stringify(value) ?? String(value);
}
