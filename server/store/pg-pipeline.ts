import type pg from 'pg';
import { unreadParameters } from './unread';

// A transaction's statements whose answers nobody waits for are kept back and written with
// the transaction's next statement, in one write, pipelined (the pool's `pipeline` option):
// each saves a round trip to the database (issue 49). They are its BEGIN, and the writes
// marked unread (unread.ts, through writeTogether's `withNext`: the rows it inserts at its
// end, compiled.ts insertAtCommit, which go out with the COMMIT or a read of them that comes
// first; a new sale, the update of a row it locked). What is written together is answered
// in order, and the statement waits for every answer before its own: an error in a
// statement kept back is the error of the statement it went with, and PostgreSQL runs
// nothing of the transaction after it (its COMMIT becomes a rollback).
// BEGIN cannot fail on a connection that can still run the statement after it, so nothing
// runs outside the transaction it was meant for.

type Statement = { text: string; values: unknown[] };
type Send = (client: pg.PoolClient, text: string, values: unknown[]) => Promise<pg.QueryResult>;

/** What a statement kept back answers (Kysely reads only `command`, `rowCount` and `rows`). */
const keptAnswer = (command: string | null) => ({ command, rowCount: null, rows: [] }) as unknown as pg.QueryResult;

export interface Pipelined {
  /**
   * The answer now when `text` need not be sent yet (kept back), or need not be sent at all
   * (the COMMIT or ROLLBACK of a transaction that has sent nothing); else undefined.
   */
  answerKept(client: pg.PoolClient, text: string, values: readonly unknown[]): pg.QueryResult | undefined;
  /** `text`, after what was kept back for it, in one write; its answer once they have all answered. */
  send(client: pg.PoolClient, text: string, values: unknown[]): Promise<pg.QueryResult>;
  /** Drops what was kept back for `client` (it goes back to the pool). */
  forget(client: pg.PoolClient): void;
}

export function pipelined(send: Send): Pipelined {
  const kept = new WeakMap<pg.PoolClient, Statement[]>();
  const keep = (client: pg.PoolClient, statement: Statement) => {
    const waiting = kept.get(client);
    if (waiting) waiting.push(statement);
    else kept.set(client, [statement]);
  };
  return {
    answerKept(client, text, values) {
      if (text === 'begin' && values.length === 0) {
        keep(client, { text, values: [] });
        return keptAnswer('BEGIN');
      }
      const unread = unreadParameters(values);
      if (unread) {
        keep(client, { text, values: unread });
        return keptAnswer(null);
      }
      if (text !== 'commit' && text !== 'rollback') return undefined;
      const waiting = kept.get(client) ?? [];
      const nothingSent = waiting[0]?.text === 'begin';
      if (text === 'rollback') {
        // The writes kept back are undone unsent.
        kept.delete(client);
        return nothingSent ? keptAnswer('ROLLBACK') : undefined;
      }
      if (!nothingSent || waiting.length > 1) return undefined;
      kept.delete(client);
      return keptAnswer('COMMIT');
    },
    send(client, text, values) {
      const waiting = kept.get(client);
      if (!waiting) return send(client, text, values);
      kept.delete(client);
      const stream = client.connection.stream;
      stream.cork();
      try {
        const answers = [...waiting.map((s) => send(client, s.text, s.values)), send(client, text, values)];
        return Promise.all(answers).then((all) => all.at(-1)!);
      } finally {
        stream.uncork();
      }
    },
    forget: (client) => kept.delete(client),
  };
}
