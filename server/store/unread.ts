// A transaction's writes whose answers nobody reads travel with its next statement (issue 49):
// on PostgreSQL in the same network write, pipelined (pg-pipeline.ts); on SQLite in the same
// message to the writer thread (sqlite-split.ts). Either way the next statement, its COMMIT
// at the latest, is answered only after them, and an error of theirs is its error.

/** Appended to a statement's parameters in a transaction: nobody reads its answer, so it may wait for the next statement. */
export const UNREAD = Symbol('unread');

/** The statement's parameters without the mark, when it has it; else undefined. */
export function unreadParameters(parameters: readonly unknown[]): unknown[] | undefined {
  return parameters.at(-1) === UNREAD ? parameters.slice(0, -1) : undefined;
}
