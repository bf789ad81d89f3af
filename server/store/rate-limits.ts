import { sql } from 'kysely';
import { CLOCK_TOLERANCE_MS, decision, type RateDecision, type RatePolicy, type Share, shareOf, shareSize, spendShare, takeToken, unspentMs } from '../domain/rate-limit';
import type { Database } from './db';

// Where rate-limit state lives. PostgreSQL serves any number of processes, so the state is
// one row per key in an UNLOGGED table (no WAL: losing the buckets in a crash only forgets
// who was near a limit), updated with one UPSERT per request, which is atomic across
// processes; a key hot enough takes its tokens a share at a time (domain/rate-limit.ts
// SHARE_MS). SQLite runs one service process: a Map is enough there, and a write per
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
  // A hot key's tokens taken a share at a time (domain/rate-limit.ts shareSize): one UPSERT
  // per share rather than per request (issue 49). Requests that find no share while one is
  // being taken wait for it rather than each taking one, which would spend a burst's tokens
  // many times over.
  const shares = new Map<string, Share>();
  const taking = new Map<string, Promise<unknown>>();

  async function takeShare(key: string, policy: RatePolicy, at: number, giveBackMs: number): Promise<RateDecision> {
    const want = shareSize(policy);
    const interval = policy.windowMs / policy.limit;
    // takeToken's rule (with start()) in SQL, for up to `want` tokens, after giving back what
    // the last share left unspent (never past a full bucket); `granted` is kept on the row
    // because RETURNING sees only the new row.
    const base = sql<number>`case when r.tat > ${at + policy.windowMs + CLOCK_TOLERANCE_MS}::float8 then ${at}::float8 else greatest(r.tat - ${giveBackMs}::float8, ${at}::float8) end`;
    const fit = sql<number>`greatest(0, least(${want}::int, floor((${at + policy.windowMs + 1e-6}::float8 - ${base}) / ${interval}::float8 + 1e-9)::int))`;
    const { rows } = await sql<{ tat: number; granted: number }>`
      insert into rate_limits as r (key, tat, allowed, granted) values (${key}, ${at + want * interval}::float8, true, ${want}::int)
      on conflict (key) do update set
        granted = ${fit},
        allowed = ${fit} > 0,
        tat = ${base} + ${fit} * ${interval}::float8
      returning tat, granted`.execute(db);
    const row = rows[0]!;
    const share = shareOf(row.granted, row.tat, at, policy);
    if (share) shares.set(key, share);
    const d = decision(row.tat, row.granted > 0, at, policy);
    return { ...d, remaining: Math.min(policy.limit, d.remaining + (share?.held ?? 0)) };
  }

  return {
    async take(key, policy, now) {
      const at = now.getTime();
      for (;;) {
        const spent = spendShare(shares.get(key), at, policy);
        if (spent) {
          shares.set(key, spent.share);
          return spent.decision;
        }
        const inFlight = taking.get(key);
        if (!inFlight) break;
        // Its failure is the taker's to report; this request takes a share of its own.
        await inFlight.catch(() => undefined);
        if (taking.get(key) === inFlight) break;
      }
      const last = shares.get(key);
      shares.delete(key);
      const taken = takeShare(key, policy, at, unspentMs(last));
      taking.set(key, taken);
      try {
        return await taken;
      } finally {
        if (taking.get(key) === taken) taking.delete(key);
      }
    },
    async sweep(now, batch) {
      // Shares of keys quiet here for a window: what they hold is not given back, one share a key at most.
      for (const [key, share] of shares) if (share.until + share.windowMs <= now.getTime()) shares.delete(key);
      const result = await sql`
        delete from rate_limits where key in (
          select key from rate_limits where tat <= ${now.getTime()}::float8 limit ${batch} for update skip locked)`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
