import { type AuthenticatedEnvironment, type KeyRow, readKeyRow, verifyKey } from './api-keys';
import { authVersion, localKeyChanges } from './auth-changes';
import type { Db } from './db';

// An API request's key check without a database read. Reading the key and its environment
// was about 15 % of the CPU a transaction's creation costs on SQLite
// (docs/performance-changelog.md): each process now keeps the rows it has read, and looks
// at `auth_changes`' version, which every write to `api_keys` or `environments` moves on
// by trigger (migration 092), at most
// once per KEY_CHECKS_FRESH_MS; a new version empties what it keeps. So a key revoked or
// rolled, or an environment changed, by any process is seen by every process within that
// time, and by this one at its next request (auth-changes.ts). The secret is compared on
// every request, in constant time, as before.

export const KEY_CHECKS_FRESH_MS = 100;
/** Beyond this many keys the cache starts again: memory stays bounded whatever is sent. */
const MAX_KEYS = 10_000;

export type KeyCheck = (publicKey: string, secretKey: string, now: Date) => Promise<AuthenticatedEnvironment | null>;

export function createKeyChecks(db: Db, clock: () => number = () => performance.now()): KeyCheck {
  const rows = new Map<string, KeyRow>();
  let version: number | undefined;
  let seenLocal = localKeyChanges();
  let checkedAt = -Infinity;
  // Moves on whenever the cache is emptied: a row read begun before is not kept.
  let generation = 0;
  const forget = () => {
    rows.clear();
    generation++;
  };

  async function lookAtChanges(): Promise<void> {
    if (seenLocal !== localKeyChanges()) {
      seenLocal = localKeyChanges();
      forget();
    }
    const t = clock();
    if (t - checkedAt < KEY_CHECKS_FRESH_MS) return;
    checkedAt = t;
    const [row] = await authVersion(db);
    if (Number(row?.version) !== version) {
      version = Number(row?.version);
      forget();
    }
  }

  return async (publicKey, secretKey, now) => {
    await lookAtChanges();
    let row = rows.get(publicKey);
    if (!row) {
      const started = generation;
      row = await readKeyRow(db, publicKey);
      // Unknown keys are not kept: whatever is sent, only real keys take memory.
      if (row && started === generation) {
        if (rows.size >= MAX_KEYS) forget();
        rows.set(publicKey, row);
      }
    }
    return verifyKey(row, secretKey, now);
  };
}
