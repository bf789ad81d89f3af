import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { unreadParameters } from './unread';

// SQLite with its reads and its writes on two connections. better-sqlite3 is synchronous,
// and with synchronous=FULL every commit waits for an fsync: on one connection in the
// service's thread, that wait stopped every request for its duration, and a transaction
// held the only connection, so page views queued behind payments. Here:
//
// - Writes (every statement in a transaction, and any statement that is not a plain read)
//   go to a connection on a thread of its own (sqlite-writer.mjs), one transaction at a
//   time, so the event loop serves other requests while a commit reaches the disk.
// - Reads outside a transaction run at once on a connection in this thread. WAL lets them
//   run beside the writer; each sees the last commit made before it started, which, with
//   synchronous=FULL, is durable: nothing is seen before it is on disk.
//
// - A transaction's writes nobody reads the answer of (unread.ts) wait here and go with its
//   next statement, its commit at the latest, in the same message: the transaction holds
//   the writer for fewer trips through this thread's event loop.
//
// - A transaction gives up the writer's turn once its commit (or rollback) is posted, not
//   answered: the writer reads messages in order, so the next transaction's first statement
//   waits there behind the commit's fsync, not for this thread to come back to its answer.
//   The writer rolls back a commit that fails before it reads anything else (`end`).
//
// Protocol with the writer: in, {id, sql, parameters, begin?, before?, end?, then?} (one
// statement, the first of a transaction with `begin`, after the statements of `before`,
// whose error is then its own, and before those of `then`, answered with it; `end`: the
// transaction's commit or rollback, after whose failure the writer rolls it back), {id,
// batch: [{sql, parameters}]} (one transaction) or {id, close: true}; out, {id, rows,
// then?}, {id, changes, lastInsertRowid, then?} or {id, error: {message, code}, open}
// (`open`: the transaction it began is open), in the order things came in.

interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

type Message = (Statement & { begin?: boolean; before?: Statement[]; end?: boolean; then?: Statement[] }) | { batch: Statement[] } | { close: true };

interface Reply {
  id: number;
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  error?: { message: string; code?: string };
  /** After an error: whether the transaction the statement began is open. */
  open?: boolean;
  /** The answers of the statements sent with it (`then`). */
  then?: Reply[];
}

class WriterThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  #next = 0;
  #stopped: Error | undefined;

  constructor(file: string, pragmas: string[]) {
    this.#worker = new Worker(new URL('./sqlite-writer.mjs', import.meta.url), { workerData: { file, pragmas } });
    // Only a statement in flight keeps the process alive (see post).
    this.#worker.unref();
    this.#worker.on('message', (reply: Reply) => {
      const waiting = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (this.#pending.size === 0) this.#worker.unref();
      waiting?.resolve(reply);
    });
    this.#worker.on('error', (err) => this.#stop(err));
    this.#worker.on('exit', () => this.#stop(new Error('the SQLite writer thread has stopped')));
  }

  #stop(err: Error) {
    this.#stopped ??= err;
    for (const waiting of this.#pending.values()) waiting.reject(err);
    this.#pending.clear();
  }

  /** The writer answers in the order things were posted. */
  post(message: Message): Promise<Reply> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#next++;
    if (this.#pending.size === 0) this.#worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, ...message });
    });
  }

  result(reply: Reply): QueryResult<unknown> {
    if (reply.error) throw Object.assign(new Error(reply.error.message), { name: 'SqliteError', code: reply.error.code });
    if (reply.rows) return { rows: reply.rows };
    return { rows: [], numAffectedRows: BigInt(reply.changes ?? 0), insertId: BigInt(reply.lastInsertRowid ?? 0) };
  }

  async close(): Promise<void> {
    if (this.#stopped) return;
    await this.post({ close: true });
    await this.#worker.terminate();
  }
}

/** One writer transaction at a time: a statement sent during another's would join it. */
class Turn {
  #current: Promise<void> | undefined;
  #release: (() => void) | undefined;
  /**
   * Callers waiting here for another's transaction to end: this process's lock waits,
   * read (never changed) by tests that must see a request blocked before they let go
   * (test/api/lock-waits.ts). Counted only when the turn is taken: nothing on the free path.
   */
  #waiting = 0;

  get waiting(): number {
    return this.#waiting;
  }

  async take(): Promise<void> {
    if (this.#current) {
      this.#waiting++;
      while (this.#current) await this.#current;
      this.#waiting--;
    }
    this.#current = new Promise((resolve) => (this.#release = resolve));
  }

  give(): void {
    const release = this.#release;
    this.#current = this.#release = undefined;
    release?.();
  }
}

/** Compiled statements of the reader, reused by SQL text (better-sqlite3 compiles on each prepare). */
function statementsOf(sqlite: SQLite.Database, max = 500) {
  const statements = new Map<string, SQLite.Statement>();
  return (sql: string): SQLite.Statement | undefined => {
    const cached = statements.get(sql);
    if (cached && !cached.busy) return cached;
    let statement: SQLite.Statement;
    try {
      statement = sqlite.prepare(sql);
    } catch {
      // Not for the reader to judge (a table created since, say): the writer answers.
      return undefined;
    }
    // Multi-row inserts and IN lists vary in length: keep the cache bounded, oldest out.
    if (!cached && statements.size >= max) statements.delete(statements.keys().next().value!);
    statements.set(sql, statement);
    return statement;
  };
}

export class SplitConnection implements DatabaseConnection {
  /** In a transaction: this connection holds the writer's turn. */
  #inTransaction = false;
  /** The transaction's `begin` has not reached the writer yet: it goes with the first statement. */
  #beginPending = false;
  /**
   * The transaction's `begin` has gone to the writer: its end must follow it there, even
   * while that first statement is still in flight (a callback that throws without awaiting
   * its first query would otherwise leave the writer's transaction open for ever).
   */
  #open = false;
  /** Writes of the transaction whose answers nobody reads: they go with its next statement. */
  #kept: Statement[] = [];

  constructor(
    private readonly reader: (sql: string) => SQLite.Statement | undefined,
    private readonly writer: WriterThread,
    private readonly turn: Turn,
  ) {}

  async executeQuery<R>({ sql, parameters }: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#inTransaction) {
      const unread = unreadParameters(parameters);
      if (!unread) return this.writer.result(await this.#inOrder(sql, parameters)) as QueryResult<R>;
      this.#kept.push({ sql, parameters: unread });
      return { rows: [] };
    }
    const statement = this.reader(sql);
    if (statement?.readonly && statement.reader) return { rows: statement.all(parameters) as R[] };
    // Posted in order, run in order: the turn is needed only while posting.
    await this.turn.take();
    const reply = this.writer.post({ sql, parameters });
    this.turn.give();
    return this.writer.result(await reply) as QueryResult<R>;
  }

  /**
   * Statements of the transaction answered together (together.ts): one message, run one
   * after the other by the writer and answered at once, so the transaction holds the
   * writer's turn for one trip through this thread's event loop for all of them.
   */
  async executeTogether(queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]> {
    if (!this.#inTransaction) throw new Error('statements are answered together in a transaction');
    const [first, ...then] = queries.map(({ sql, parameters }) => ({ sql, parameters }));
    const reply = await this.#inOrder(first!.sql, first!.parameters, then);
    return [this.writer.result(reply), ...(reply.then ?? []).map((r) => this.writer.result(r))];
  }

  /**
   * A statement of the transaction (and those sent with it, `then`), after the writes kept
   * for it, in one message; the transaction's first goes with its `begin`: one message fewer
   * per transaction.
   */
  async #inOrder(sql: string, parameters: readonly unknown[], then?: Statement[]): Promise<Reply> {
    const began = this.#beginPending;
    const reply = await this.#post(sql, parameters, false, then);
    // The begin refused: nothing to end there.
    if (began && reply.error && !reply.open) this.#open = false;
    return reply;
  }

  /** Posts a statement of the transaction, with the writes kept for it and, for its first, its begin. */
  #post(sql: string, parameters: readonly unknown[], end = false, then?: Statement[]): Promise<Reply> {
    const message = {
      sql,
      parameters,
      ...(this.#kept.length > 0 ? { before: this.#kept } : {}),
      ...(this.#beginPending ? { begin: true } : {}),
      ...(end ? { end } : {}),
      ...(then?.length ? { then } : {}),
    };
    this.#kept = [];
    if (this.#beginPending) {
      this.#beginPending = false;
      this.#open = true;
    }
    return this.writer.post(message);
  }

  /** Writes committed together, in one message: the writer's transaction waits on nothing here. */
  async executeBatch(queries: readonly CompiledQuery[]): Promise<void> {
    await this.turn.take();
    const reply = this.writer.post({ batch: queries.map(({ sql, parameters }) => ({ sql, parameters })) });
    this.turn.give();
    this.writer.result(await reply);
  }

  // eslint-disable-next-line require-yield -- Kysely's driver interface wants a generator; SQLite never streams here
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('streaming is not used with SQLite');
  }

  /**
   * Takes the writer's turn. SQLite's `begin` is deferred (it takes no lock until the first
   * statement), so sending it with that statement (#inOrder) changes nothing but the count.
   */
  async begin(): Promise<void> {
    await this.turn.take();
    this.#inTransaction = true;
    this.#beginPending = true;
    this.#open = false;
    this.#kept = [];
  }

  /** Kysely calls rollback after a failed commit: by then the transaction is over here. */
  async end(command: 'commit' | 'rollback'): Promise<void> {
    if (!this.#inTransaction) return;
    let reply: Promise<Reply> | undefined;
    try {
      // The writes kept back go with the commit (its begin too, when they are all there is);
      // a rollback drops them unsent.
      if (command === 'rollback') this.#kept = [];
      // Nothing reached the writer and nothing is kept, or its begin was refused: nothing to end there.
      if (this.#open || this.#kept.length > 0) reply = this.#post(command, [], true);
    } finally {
      this.#inTransaction = this.#beginPending = this.#open = false;
      this.#kept = [];
      // Posted: the writer ends this transaction (a failed commit rolled back there) before it reads the next one's.
      this.turn.give();
    }
    if (reply) this.writer.result(await reply);
  }
}

class SplitDriver implements Driver {
  readonly #reader: (sql: string) => SQLite.Statement | undefined;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly writer: WriterThread,
    private readonly turn: Turn,
  ) {
    this.#reader = statementsOf(sqlite);
  }

  async init(): Promise<void> {}
  async acquireConnection(): Promise<SplitConnection> {
    return new SplitConnection(this.#reader, this.writer, this.turn);
  }
  beginTransaction(connection: SplitConnection): Promise<void> {
    return connection.begin();
  }
  commitTransaction(connection: SplitConnection): Promise<void> {
    return connection.end('commit');
  }
  rollbackTransaction(connection: SplitConnection): Promise<void> {
    return connection.end('rollback');
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.writer.close();
    this.sqlite.close();
  }
}

/**
 * `reader` is this thread's connection, kept to reads (`query_only`); the writer's
 * connection opens `file` with `pragmas`. `waitingWriters`: see Turn's `waiting`.
 */
export function splitSqliteDialect(reader: SQLite.Database, file: string, pragmas: string[]): Dialect & { waitingWriters(): number } {
  const turn = new Turn();
  return {
    waitingWriters: () => turn.waiting,
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new SplitDriver(reader, new WriterThread(file, pragmas), turn),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<any>) => new SqliteIntrospector(db),
  };
}
