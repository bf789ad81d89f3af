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
 * How long a process may spend tokens it took from a shared bucket at once. A request
 * admitted with such a token counts as if it had come when the share was taken, so in any
 * window a key is admitted at most its limit plus what the bucket refills in this time
 * (10 % of a one-second limit). What a share leaves unspent goes back to the bucket with
 * the process's next share of the key (unspentMs): otherwise every process taking a share
 * per request of a quiet key would spend the bucket several times faster than it refills.
 */
export const SHARE_MS = 100;

/**
 * Tokens a process takes at once from a shared bucket: what the bucket refills in
 * SHARE_MS. One, so exact, for every limit under 20 a second (the card and address limits,
 * an environment's low API limit); 10 for the API's default 100.
 */
export const shareSize = (p: RatePolicy): number => Math.max(1, Math.floor((p.limit * SHARE_MS) / p.windowMs + 1e-9));

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

/** Tokens a process took at once from a shared bucket and holds still (store/rate-limits.ts). */
export interface Share {
  held: number;
  /** Until when they may be spent (ms). */
  until: number;
  /** The bucket's state as the share left it. */
  tat: number;
  /** The policy they were taken under: a changed limit takes a new share. */
  limit: number;
  windowMs: number;
}

/** A share of `granted` tokens taken at `now`, one of which the taking request spends. */
export function shareOf(granted: number, tat: number, now: number, p: RatePolicy): Share | undefined {
  return granted > 1 ? { held: granted - 1, until: now + SHARE_MS, tat, limit: p.limit, windowMs: p.windowMs } : undefined;
}

/** The bucket time a share's unspent tokens stand for: given back when the next share is taken. */
export const unspentMs = (share: Share | undefined): number => (share ? (share.held * share.windowMs) / share.limit : 0);

/**
 * One token of a share still good for this policy: the request's decision (what the bucket
 * says now plus what the share still holds) and the share after it. Undefined: ask the bucket.
 */
export function spendShare(share: Share | undefined, now: number, p: RatePolicy): { decision: RateDecision; share: Share } | undefined {
  if (!share || share.held < 1 || now >= share.until || share.limit !== p.limit || share.windowMs !== p.windowMs) return undefined;
  const next = { ...share, held: share.held - 1 };
  const { tat: _tat, ...bucket } = decision(share.tat, true, now, p);
  return { decision: { ...bucket, remaining: Math.min(p.limit, bucket.remaining + next.held) }, share: next };
}
