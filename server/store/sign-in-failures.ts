import type { Db } from './db';

// Sign-in attempts counted per key (`email:…`, `ip:…`) in a fixed window, in the database so
// that every process sees the same count: each counted as it comes, a good one taken back.

export interface FailureCount {
  failures: number;
  windowStart: Date;
}

/**
 * One more attempt for each key, counted before it is judged; a window older than
 * `windowMs` starts again at one. Resolves with each key's count, this attempt included.
 */
export async function countAttempt(db: Db, keys: string[], now: Date, windowMs: number): Promise<Map<string, FailureCount>> {
  const at = now.toISOString();
  const stale = new Date(now.getTime() - windowMs).toISOString();
  const counts = new Map<string, FailureCount>();
  for (const key of keys) {
    const row = await db
      .insertInto('sign_in_failures')
      .values({ key, failures: 1, window_start: at })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({
          failures: eb.case().when('sign_in_failures.window_start', '<=', stale).then(1).else(eb('sign_in_failures.failures', '+', 1)).end(),
          window_start: eb.case().when('sign_in_failures.window_start', '<=', stale).then(at).else(eb.ref('sign_in_failures.window_start')).end(),
        })),
      )
      .returning(['failures', 'window_start'])
      .executeTakeFirstOrThrow();
    counts.set(key, { failures: Number(row.failures), windowStart: new Date(row.window_start) });
  }
  return counts;
}

/** An attempt counted as it came that turned out good: it is taken off the key's count. */
export async function takeBackFailure(db: Db, key: string): Promise<void> {
  await db
    .updateTable('sign_in_failures')
    .set((eb) => ({ failures: eb('failures', '-', 1) }))
    .where('key', '=', key)
    .where('failures', '>', 0)
    .execute();
}

export async function clearFailures(db: Db, key: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('key', '=', key).execute();
}
