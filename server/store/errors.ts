import { isPlanChange } from './pg-prepared';

/** A unique index refused the write: PostgreSQL's 23505, SQLite's SQLITE_CONSTRAINT_UNIQUE. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

// PostgreSQL SQLSTATEs of a database that is away or overloaded, not of a bad query:
// class 08 (connection exception), 57P01–57P03 (shutting down, restarting, not accepting
// yet), 53300 (too many connections), 57014 (a statement outlived statement_timeout),
// 40001 / 40P01 (a serialization failure or deadlock: the same transaction succeeds when run again),
// 25006 (a read-only transaction: a standby reached during a failover; pg-hosts.ts looks for the primary again).
const UNAVAILABLE_STATES = /^(08|57P0[123]$|53300$|57014$|40001$|40P01$|25006$)/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// pg reports a lost or unobtainable connection with plain Errors and no code.
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended)/;

/**
 * The database could not be reached or could not answer now (a restart, a failover, an
 * exhausted pool, a busy SQLite file, a conflict with another transaction): the same
 * request may well succeed in a moment. Everything else a database throws (a constraint,
 * bad data) would refuse the same write every time.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || NETWORK_CODES.has(code) || code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')) return true;
  // A migration changed a prepared statement's rows: the same transaction succeeds when run again.
  if (isPlanChange(err)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message);
}
