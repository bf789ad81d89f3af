import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import { insertWaitingNow } from './compiled';
import type { Db } from './db';
import { SplitConnection } from './sqlite-split';

// Statements of one transaction whose answers are all needed but none decides whether the
// next is sent, sent at once and answered together: on PostgreSQL in one write (the pool's
// pipeline, pg-pipeline.ts), on SQLite in one message to the writer thread, answered at once
// (sqlite-split.ts executeTogether). Each awaited in turn costs a round trip, and on SQLite
// the writer's turn is held for each trip through this thread's event loop (issue 49: a
// payment's record and a refund's held it for three). Every statement runs whatever the one
// before it answered: a caller whose second only stands if the first found its row rolls
// the transaction back when it did not.

/** A statement and how its answer is read. */
export interface Planned<T> {
  query: CompiledQuery;
  read(result: QueryResult<any>): T | Promise<T>;
}

/** One planned statement, run alone. */
export async function answered<T>(db: Db, planned: Planned<T>): Promise<T> {
  return planned.read(await db.executeQuery(planned.query));
}

/**
 * The statements sent together, in order, and each answer read. Rows the transaction waits
 * to insert (compiled.ts insertAtCommit) go before them, so they see those rows. Rejects
 * with the first error once every statement has answered (on SQLite the writer runs none
 * after it), so none is still running when the caller's transaction rolls back.
 */
export async function answeredTogether<T extends unknown[]>(db: Db, ...planned: { [K in keyof T]: Planned<T[K]> }): Promise<T> {
  await insertWaitingNow(db);
  const executor = db.getExecutor();
  const queries = (planned as Planned<unknown>[]).map((p) => p.query);
  const answers = await executor.provideConnection((connection) =>
    connection instanceof SplitConnection && db.isTransaction ? connection.executeTogether(queries) : allAnswered(connection, queries),
  );
  return (await Promise.all(
    answers.map(async (answer, i) => {
      const p = planned[i] as Planned<unknown>;
      // What Kysely's executor does with each answer (the sealed columns opened, sealed-secrets.ts).
      let result = answer;
      for (const plugin of executor.plugins) result = await plugin.transformResult({ result: result as QueryResult<any>, queryId: p.query.queryId });
      return p.read(result);
    }),
  )) as T;
}

/** Each statement sent before the one before it has answered (PostgreSQL's pipeline); the first error once all have answered. */
async function allAnswered(connection: DatabaseConnection, queries: CompiledQuery[]): Promise<QueryResult<unknown>[]> {
  const answers = await Promise.allSettled(queries.map((query) => connection.executeQuery(query)));
  const failed = answers.find((a) => a.status === 'rejected');
  if (failed) throw failed.reason;
  return answers.map((a) => (a as PromiseFulfilledResult<QueryResult<unknown>>).value);
}
