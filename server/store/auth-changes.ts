import { compiledOnce } from './compiled';

// What tells a process's key checks (key-checks.ts) that what they keep may be stale: its
// own writes to a key or an environment, counted here at once, and every process's,
// counted by `auth_changes`' version (moved on by trigger, migration 092).

let localChanges = 0;

/** This process has changed a key or what a key check answers of its environment. */
export function keysChanged(): void {
  localChanges++;
}

export const localKeyChanges = (): number => localChanges;

/** The version every write to `api_keys` or `environments`, from any process, moves on. */
export const authVersion = compiledOnce((db) => db.selectFrom('auth_changes').select('version').where('id', '=', 1));
