import type { Db } from './db';

// Failed sign-ins counted per key (`email:…`, `ip:…`) in a fixed window, in the database so
// that every process sees the same count.

export interface FailureCount {
  failures: number;
  windowStart: Date;
}

export async function failuresOf(db: Db, keys: string[]): Promise<Map<string, FailureCount>> {
  const rows = await db.selectFrom('sign_in_failures').selectAll().where('key', 'in', keys).execute();
  return new Map(rows.map((r) => [r.key, { failures: Number(r.failures), windowStart: new Date(r.window_start) }]));
}

/** One more failure for each key; a window older than `windowMs` starts again at one. */
export async function addFailure(db: Db, keys: string[], now: Date, windowMs: number): Promise<void> {
  const at = now.toISOString();
  const stale = new Date(now.getTime() - windowMs).toISOString();
  for (const key of keys) {
    await db
      .insertInto('sign_in_failures')
      .values({ key, failures: 1, window_start: at })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({
          failures: eb.case().when('sign_in_failures.window_start', '<=', stale).then(1).else(eb('sign_in_failures.failures', '+', 1)).end(),
          window_start: eb.case().when('sign_in_failures.window_start', '<=', stale).then(at).else(eb.ref('sign_in_failures.window_start')).end(),
        })),
      )
      .execute();
  }
}

export async function clearFailures(db: Db, key: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('key', '=', key).execute();
}
