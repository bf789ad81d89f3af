import { sql } from 'kysely';
import type { Db } from './db';

// Whether a pooled session runs with the timeouts the service counts on: statement_timeout
// (no statement runs for ever) and idle_in_transaction_session_timeout (a transaction left
// open does not hold its row locks for ever). On a direct connection the pool sends them at
// connect; a transaction pooler (PgBouncer) refuses or drops those startup parameters, so
// there they are the role's or the database's settings (ALTER ROLE … SET, docs/operations.md,
// "PgBouncer"). Checked at start and by /health/ready, never assumed.

export interface TimeoutsState {
  inForce: boolean;
  /** For /health/ready and the log: the values seen, or what is off and how to set it. */
  detail: string;
  checkedAt: number;
}

const shown = (ms: number) => (ms === 0 ? 'off' : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** What the session that answers sees (pg_settings: its own values, in ms). */
async function readTimeouts(db: Db, statementMs: number): Promise<TimeoutsState> {
  const { rows } = await sql<{ name: string; setting: string }>`
    select name, setting from pg_settings where name in ('statement_timeout', 'idle_in_transaction_session_timeout')`.execute(db);
  const value = (name: string) => Number(rows.find((r) => r.name === name)?.setting ?? 0);
  const statement = value('statement_timeout');
  const idle = value('idle_in_transaction_session_timeout');
  const values = `statement_timeout ${shown(statement)}, idle_in_transaction_session_timeout ${shown(idle)}`;
  const inForce = statement > 0 && idle > 0;
  const detail = inForce
    ? `in force: ${values}${statement === statementMs ? '' : ` (DB_STATEMENT_TIMEOUT_MS asks ${shown(statementMs)})`}`
    : `not in force: ${values}; set them for the service's role: ALTER ROLE … SET statement_timeout = '${statementMs}ms', and idle_in_transaction_session_timeout = '${2 * statementMs}ms' (docs/operations.md#pgbouncer)`;
  return { inForce, detail, checkedAt: Date.now() };
}

/** The last state seen, looked at again (in the background) when older than `maxAgeMs`. */
export function timeoutsWatch(db: Db, statementMs: number, maxAgeMs = 30_000) {
  let last: TimeoutsState | null = null;
  let checking: Promise<TimeoutsState> | null = null;
  const check = () => {
    checking ??= readTimeouts(db, statementMs)
      .then((state) => (last = state))
      .finally(() => (checking = null));
    return checking;
  };
  return {
    check,
    /** The last state, and a fresh look when it is old; null before the first check. */
    current(): TimeoutsState | null {
      if (!last || Date.now() - last.checkedAt > maxAgeMs) check().catch(() => {});
      return last;
    },
  };
}

export type TimeoutsWatch = ReturnType<typeof timeoutsWatch>;
