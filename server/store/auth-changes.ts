import { compiledOnce } from './compiled';
import type { Db } from './db';

// What tells a process that what it keeps of keys, environments, processors, pricings and
// webhook endpoints (key checks, key-checks.ts; processors' gateways,
// payments/processor-gateways.ts; return secrets, environments.ts; pricings, balance.ts; the
// endpoints an event goes to, webhook-endpoints.ts) may be stale: its own writes, counted
// here at once, and every process's, counted by `auth_changes`' version (moved on by
// trigger: keys and environments since migration 092, processors and pricings since 131,
// webhook endpoints since 133).

/** How long a process may go without reading the version: another process's change is seen within this. */
export const CHANGES_FRESH_MS = 100;

let localChanges = 0;

/** This process has changed a key, an environment, a processor, a pricing or a webhook endpoint: what it keeps is dropped at its next look. */
export function settingsChanged(): void {
  localChanges++;
}

/** The version every write to `api_keys`, `environments` or a processor's settings, from any process, moves on. */
const authVersion = compiledOnce((db) => db.selectFrom('auth_changes').select('version').where('id', '=', 1));

/**
 * Resolves with a generation that moves on whenever anything kept may be stale. `through`:
 * the caller's transaction, to read the version on the connection it holds rather than ask
 * the pool for a second one (ten transactions each waiting for an eleventh connection is a
 * pool deadlock).
 */
export type Changes = (through?: Db) => Promise<number>;

/** A watch of `db`'s changes, reading the version at most once per CHANGES_FRESH_MS of `clock`. */
export function watchChanges(db: Db, clock: () => number = () => performance.now()): Changes {
  let seenLocal = localChanges;
  let version: number | undefined;
  let checkedAt = -Infinity;
  let generation = 0;
  return async (through = db) => {
    if (seenLocal !== localChanges) {
      seenLocal = localChanges;
      generation++;
    }
    const t = clock();
    if (t - checkedAt < CHANGES_FRESH_MS) return generation;
    checkedAt = t;
    const [row] = await authVersion(through);
    if (Number(row?.version) !== version) {
      version = Number(row?.version);
      generation++;
    }
    return generation;
  };
}

const watches = new WeakMap<Db, Changes>();

/** The database's one watch in this process: one version read serves everything kept. */
export function changesOf(db: Db): Changes {
  let watch = watches.get(db);
  if (!watch) watches.set(db, (watch = watchChanges(db)));
  return watch;
}

/**
 * `read` of a key, kept until `changes` moves on (changesOf: anything changed): a read begun
 * before a change is kept under the generation it began in, so no later look is answered
 * with it. At most `max` keys: beyond, it starts again. Asked inside a transaction, what is
 * kept answers if it is current; else the transaction reads it (it may see its own
 * uncommitted change) and nothing of it is kept, unless `clean` says the transaction has
 * changed nothing `read` reads (so it sees what is committed).
 */
export function keptUntilChanged<T>(
  changes: Changes,
  read: (key: string, db?: Db) => Promise<T>,
  o: { max?: number; clean?: (trx: Db) => boolean } = {},
): (key: string, db?: Db) => Promise<T> {
  const { max = 10_000, clean = () => false } = o;
  const kept = new Map<string, { generation: number; value: T }>();
  return async (key, db) => {
    const trx = db?.isTransaction ? db : undefined;
    const generation = await changes(trx);
    const hit = kept.get(key);
    if (hit?.generation === generation) return hit.value;
    if (trx && !clean(trx)) return read(key, trx);
    const value = await read(key, trx);
    if (kept.size >= max) kept.clear();
    kept.set(key, { generation, value });
    return value;
  };
}

/**
 * `read` of a database's rows by key, kept per database handle until anything changes
 * (keptUntilChanged); inside a transaction, read as that transaction sees them (a change it
 * made, perhaps), and not kept.
 */
export function keptPerDatabase<T>(read: (db: Db, key: string) => Promise<T>): (db: Db, key: string) => Promise<T> {
  const kept = new WeakMap<Db, (key: string) => Promise<T>>();
  return (db, key) => {
    if (db.isTransaction) return read(db, key);
    let reader = kept.get(db);
    if (!reader) kept.set(db, (reader = keptUntilChanged(changesOf(db), (k) => read(db, k))));
    return reader(key);
  };
}
