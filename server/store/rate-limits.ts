import { sql } from 'kysely';
import { CLOCK_TOLERANCE_MS, decision, type RateDecision, type RatePolicy, takeToken } from '../domain/rate-limit';
import type { Database } from './db';

// Where rate-limit state lives. PostgreSQL serves any number of processes, so the state is
// one row per key in an UNLOGGED table (no WAL: losing the buckets in a crash only forgets
// who was near a limit), updated with one UPSERT per request, which is atomic across
// processes. SQLite runs one service process: a Map is enough there, and a write per
// request through the fsync'd writer thread would cost more than the request.

export interface Limiter {
  take(key: string, policy: RatePolicy, now: Date): Promise<RateDecision>;
  /** Forgets keys whose bucket is full again (as good as unseen); resolves with how many. */
  sweep(now: Date, batch: number): Promise<number>;
}

export function createLimiter(database: Database): Limiter {
  return database.engine === 'postgres' ? databaseLimiter(database) : memoryLimiter();
}

function memoryLimiter(): Limiter {
  const buckets = new Map<string, number>();
  return {
    async take(key, policy, now) {
      const next = takeToken(buckets.get(key), now.getTime(), policy);
      buckets.set(key, next.tat);
      return next;
    },
    async sweep(now, batch) {
      let n = 0;
      for (const [key, tat] of buckets) {
        if (tat > now.getTime()) continue;
        buckets.delete(key);
        if (++n >= batch) break;
      }
      return n;
    },
  };
}

function databaseLimiter({ db }: Database): Limiter {
  return {
    async take(key, policy, now) {
      const at = now.getTime();
      const interval = policy.windowMs / policy.limit;
      // takeToken's rule (with start()) in SQL; `allowed` is kept on the row because RETURNING sees only
      // the new row, and a refused request leaves `tat` as it was.
      const base = sql<number>`case when r.tat > ${at + policy.windowMs + CLOCK_TOLERANCE_MS}::float8 then ${at}::float8 else greatest(r.tat, ${at}::float8) end`;
      const fits = sql<boolean>`${base} + ${interval}::float8 - ${at}::float8 <= ${policy.windowMs + 1e-6}::float8`;
      const { rows } = await sql<{ tat: number; allowed: boolean }>`
        insert into rate_limits as r (key, tat, allowed) values (${key}, ${at + interval}::float8, true)
        on conflict (key) do update set
          allowed = ${fits},
          tat = case when ${fits} then ${base} + ${interval}::float8 else r.tat end
        returning tat, allowed`.execute(db);
      const row = rows[0]!;
      return decision(row.tat, row.allowed, at, policy);
    },
    async sweep(now, batch) {
      const result = await sql`
        delete from rate_limits where key in (
          select key from rate_limits where tat <= ${now.getTime()}::float8 limit ${batch} for update skip locked)`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
