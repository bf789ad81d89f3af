import { createHash } from 'node:crypto';
import type pg from 'pg';

// A statement with parameters is sent as a named prepared statement, so each connection
// parses and plans it once: unnamed, PostgreSQL parsed and planned every execution, and a
// payment's thirty-odd statements did so every time (issue 49: payments a second on
// PostgreSQL +28–43 % with one process in `npm run bench -- --only=payments`,
// docs/performance-changelog.md). Not behind a transaction pooler (DATABASE_POOLER=transaction), whose
// server connections change between transactions and would not have the statement.
//
// Bounded: a text is named the second time the process sends it, and a connection prepares
// at most PER_CONNECTION of them (the plans live in its backend's memory), so statements
// whose text varies (an IN list, a multi-row insert) neither fill a backend with plans nor
// take the places of the statements sent all the time.
const PER_CONNECTION = 300;
const REMEMBERED = 10_000;
const names = new Map<string, string>();
const seenOnce = new Set<string>();

/**
 * A migration that changes a table (a new column) changes the rows of a prepared `select *`
 * from it, and PostgreSQL refuses to run that statement again ("cached plan must not change
 * result type", 0A000): this connection's statements are then prepared again under new
 * names (its generation), from the next statement on.
 */
const connections = new WeakMap<pg.ClientBase, { generation: number; prepared: Set<string> }>();

/** The text's name, once the process has sent it twice. */
function nameOf(text: string): string | undefined {
  const name = names.get(text);
  if (name !== undefined) return name;
  if (!seenOnce.delete(text)) {
    if (seenOnce.size >= REMEMBERED) seenOnce.clear();
    seenOnce.add(text);
    return undefined;
  }
  if (names.size >= REMEMBERED) names.clear();
  const made = createHash('sha256').update(text).digest('base64url').slice(0, 22);
  names.set(text, made);
  return made;
}

const stateOf = (client: pg.ClientBase) => {
  let state = connections.get(client);
  if (!state) connections.set(client, (state = { generation: 0, prepared: new Set() }));
  return state;
};

/** The query as `client` sends it: named when it has parameters, its text is named and the connection has room. */
export function prepared(client: pg.ClientBase, text: string, values: unknown[]): pg.QueryConfig {
  const name = values.length > 0 ? nameOf(text) : undefined;
  if (name === undefined) return { text, values };
  const state = stateOf(client);
  const named = `${name}.${state.generation}`;
  if (!state.prepared.has(named)) {
    if (state.prepared.size >= PER_CONNECTION) return { text, values };
    state.prepared.add(named);
  }
  return { text, values, name: named };
}

/**
 * Whether `err` says one of `client`'s prepared statements no longer fits its table; if so,
 * the client's statements are prepared anew from now on. `retry`: the connection is outside
 * a transaction (its last ReadyForQuery said idle), so the statement may simply run again.
 */
export function planChanged(client: pg.ClientBase, err: unknown): { retry: boolean } | undefined {
  if (!isPlanChange(err)) return undefined;
  const state = stateOf(client);
  state.generation++;
  // The old generation's plans stay in the backend until it ends; rare (once a migration).
  state.prepared.clear();
  return { retry: (client as unknown as { _txStatus?: string })._txStatus === 'I' };
}

/**
 * PostgreSQL refused a prepared statement whose rows a migration changed (0A000 from
 * RevalidateCachedQuery): transient, as the connection prepares it anew (planChanged).
 * By the routine, as the message may be in the server's language.
 */
export function isPlanChange(err: unknown): boolean {
  const e = err as { code?: unknown; routine?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && (e.routine === 'RevalidateCachedQuery' || e.message === 'cached plan must not change result type');
}
