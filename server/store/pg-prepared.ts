import { createHash } from 'node:crypto';
import type pg from 'pg';

// A statement with parameters is sent as a named prepared statement, so each connection
// parses and plans it once: unnamed, PostgreSQL parsed and planned every execution, and a
// payment's thirty-odd statements did so every time (issue 49: payments a second on
// PostgreSQL +28–43 % with one process in `npm run bench -- --only=payments`,
// docs/performance.md). Not behind a transaction pooler (DATABASE_POOLER=transaction), whose
// server connections change between transactions and would not have the statement.
//
// Bounded: a text is named the second time the process sends it, and no more than NAMED
// texts are, so statements whose text varies (an IN list, a multi-row insert) neither fill
// each backend's memory with plans nor take the places of the statements sent all the time.
const NAMED = 300;
const SEEN = 10_000;
const names = new Map<string, string>();
const seenOnce = new Set<string>();

/**
 * A migration that changes a table (a new column) changes the rows of a prepared `select *`
 * from it, and PostgreSQL refuses to run that statement again ("cached plan must not change
 * result type", 0A000): this connection's statements are then prepared again under new
 * names (its generation), from the next statement on.
 */
const generations = new WeakMap<pg.ClientBase, number>();

function nameOf(text: string): string | undefined {
  const name = names.get(text);
  if (name !== undefined || names.size >= NAMED) return name;
  if (!seenOnce.delete(text)) {
    if (seenOnce.size >= SEEN) seenOnce.clear();
    seenOnce.add(text);
    return undefined;
  }
  const made = createHash('sha256').update(text).digest('base64url').slice(0, 22);
  names.set(text, made);
  return made;
}

/** The query as `client` sends it: named when it has parameters and its text is named. */
export function prepared(client: pg.ClientBase, text: string, values: unknown[]): pg.QueryConfig {
  const name = values.length > 0 ? nameOf(text) : undefined;
  return name === undefined ? { text, values } : { text, values, name: `${name}.${generations.get(client) ?? 0}` };
}

/**
 * Whether `err` says one of `client`'s prepared statements no longer fits its table; if so,
 * the client's statements are prepared anew from now on. `retry`: the connection is outside
 * a transaction (its last ReadyForQuery said idle), so the statement may simply run again.
 */
export function planChanged(client: pg.ClientBase, err: unknown): { retry: boolean } | undefined {
  const e = err as { code?: string; routine?: string; message?: string };
  // The routine, as the message may be in the server's language.
  if (e?.code !== '0A000' || (e.routine !== 'RevalidateCachedQuery' && e.message !== 'cached plan must not change result type')) return undefined;
  generations.set(client, (generations.get(client) ?? 0) + 1);
  return { retry: (client as unknown as { _txStatus?: string })._txStatus === 'I' };
}
