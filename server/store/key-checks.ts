import { type AuthenticatedEnvironment, type KeyRow, readKeyRow, verifyKey } from './api-keys';
import { CHANGES_FRESH_MS, changesOf, watchChanges } from './auth-changes';
import type { Db } from './db';

// An API request's key check without a database read. Reading the key and its environment
// was about 15 % of the CPU a transaction's creation costs on SQLite
// (docs/performance-changelog.md): each process now keeps the rows it has read, and looks
// at `auth_changes`' version, which every write to `api_keys` or `environments` moves on
// by trigger (migration 092), at most once per KEY_CHECKS_FRESH_MS (the watch of
// auth-changes.ts, shared with what else the process keeps); a new version empties what it keeps. So a key revoked or
// rolled, or an environment changed, by any process is seen by every process within that
// time, and by this one at its next request (auth-changes.ts). The secret is compared on
// every request, in constant time, as before.

export const KEY_CHECKS_FRESH_MS = CHANGES_FRESH_MS;
/** Beyond this many keys the cache starts again: memory stays bounded whatever is sent. */
const MAX_KEYS = 10_000;

export type KeyCheck = (publicKey: string, secretKey: string, now: Date) => Promise<AuthenticatedEnvironment | null>;

/** `clock`: the watch's own, for a test; by default the database's one watch (changesOf). */
export function createKeyChecks(db: Db, clock?: () => number): KeyCheck {
  const changes = clock ? watchChanges(db, clock) : changesOf(db);
  const rows = new Map<string, KeyRow>();
  let seen: number | undefined;

  return async (publicKey, secretKey, now) => {
    const generation = await changes();
    if (generation !== seen) {
      rows.clear();
      seen = generation;
    }
    let row = rows.get(publicKey);
    if (!row) {
      row = await readKeyRow(db, publicKey);
      // Unknown keys are not kept: whatever is sent, only real keys take memory. Nor is a
      // row whose read began before a change another request has seen since.
      if (row && seen === generation) {
        if (rows.size >= MAX_KEYS) rows.clear();
        rows.set(publicKey, row);
      }
    }
    return verifyKey(row, secretKey, now);
  };
}
