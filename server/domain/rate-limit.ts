// Rate limits as a generic cell rate algorithm (GCRA), the token bucket kept as one number:
// the theoretical arrival time (`tat`, ms) at which the bucket is full again. A policy of
// `limit` requests per `windowMs` refills one request every windowMs / limit and holds at
// most `limit` (the burst is the same size as the rate). One number per key is what lets
// PostgreSQL keep it with one UPSERT per request (server/store/rate-limits.ts).

export interface RatePolicy {
  /** The policy's name in the RateLimit headers (`"api"`). */
  name: string;
  limit: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Requests that would still be allowed now. */
  remaining: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
  /** Milliseconds until the next request is allowed; 0 when this one was. */
  retryAfterMs: number;
}

/** The next state of a key and whether this request fits; `tat` undefined for an unseen key. */
export function takeToken(tat: number | undefined, now: number, p: RatePolicy): RateDecision & { tat: number } {
  const interval = p.windowMs / p.limit;
  const base = start(tat, now, p);
  // The epsilon absorbs float sums of fractional intervals (1000 / 3 three times).
  const allowed = base + interval - now <= p.windowMs + 1e-6;
  return decision(allowed ? base + interval : base, allowed, now, p);
}

/**
 * Clocks disagree by this much at most: a request's `now` is taken before it waits for a
 * database connection (under load, seconds before its UPSERT runs), and processes' clocks
 * differ a little. A stale `now` only makes a limit stricter.
 */
export const CLOCK_TOLERANCE_MS = 60_000;

/**
 * Where the bucket stands before this request. A `tat` further ahead than a whole window
 * plus the tolerance cannot come from this clock: it was written by a clock far ahead of
 * it (one set back since, as a test's), and counts as a full bucket rather than refusing
 * everyone for as long as the clocks disagree.
 */
function start(tat: number | undefined, now: number, p: RatePolicy): number {
  if (tat === undefined || tat > now + p.windowMs + CLOCK_TOLERANCE_MS) return now;
  return Math.max(tat, now);
}

/** What a stored state means for the caller: shared by the in-memory and the database limiter. */
export function decision(tat: number, allowed: boolean, now: number, p: RatePolicy): RateDecision & { tat: number } {
  const interval = p.windowMs / p.limit;
  const used = Math.max(0, tat - now);
  return {
    tat,
    allowed,
    remaining: Math.max(0, Math.floor((p.windowMs - used) / interval + 1e-9)),
    resetMs: used,
    retryAfterMs: allowed ? 0 : Math.max(0, used + interval - p.windowMs),
  };
}
