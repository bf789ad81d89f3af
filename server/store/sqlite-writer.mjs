// The SQLite writer: one connection on a thread of its own, so a commit's fsync (and a
// checkpoint's) blocks this thread, not the service's event loop. Plain JavaScript: a
// worker is started from a file, and this one must start the same under tsx, Vitest and
// plain Node. Protocol: see sqlite-split.ts.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { defineFunctions } from './sqlite-functions.mjs';

const db = new SQLite(workerData.file);
for (const pragma of workerData.pragmas) db.pragma(pragma);
defineFunctions(db);

const statements = new Map();
function prepared(sql) {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    // Multi-row inserts vary in length: keep the cache bounded, oldest out.
    if (statements.size >= 500) statements.delete(statements.keys().next().value);
    statements.set(sql, statement);
  }
  return statement;
}

// A batch is one transaction: all its statements or none.
const together = db.transaction((batch) => {
  for (const { sql, parameters } of batch) prepared(sql).run(parameters);
});

/** One statement's answer: its rows, or what it changed. */
function run(sql, parameters) {
  const statement = prepared(sql);
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { changes, lastInsertRowid };
}

function answer({ sql, parameters, batch, begin, before, then }) {
  // A transaction's `begin` travels with its first statement: one message fewer. It is
  // `immediate`: this connection is the process's only writer, so the lock costs nothing
  // here, and a transaction that reads and then writes (a job's claim) waits its turn
  // (busy_timeout) behind another process's writer. A deferred begin would take a
  // snapshot with its first read, and another process's commit after it would make the
  // write fail at once with SQLITE_BUSY.
  if (begin) prepared('begin immediate').run();
  // Writes of the transaction nobody waited for: an error of theirs is this message's.
  for (const statement of before ?? []) prepared(statement.sql).run(statement.parameters);
  // A transaction whose begin was refused, ended by its connection anyway: nothing to undo.
  if (sql === 'rollback' && !db.inTransaction) return { changes: 0 };
  if (batch) {
    together.immediate(batch);
    return { changes: 0 };
  }
  const first = run(sql, parameters);
  // Statements sent with it and answered with it (together.ts): the first error is the message's.
  return then ? { ...first, then: then.map((s) => run(s.sql, s.parameters)) } : first;
}

parentPort.on('message', (message) => {
  if (message.close) {
    // Closing the last connection checkpoints the WAL into the database file.
    db.close();
    parentPort.postMessage({ id: message.id });
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ id: message.id, ...answer(message) });
  } catch (err) {
    // A transaction's end that failed (a write sent with its commit refused, or the commit
    // itself) leaves it open: rolled back here, before the next message, which may be the
    // next transaction's first (its connection gave up the turn once the end was posted).
    if (message.end && db.inTransaction) prepared('rollback').run();
    const open = Boolean(message.begin) && db.inTransaction;
    parentPort.postMessage({ id: message.id, error: { message: err.message, code: err.code }, open });
  }
});
