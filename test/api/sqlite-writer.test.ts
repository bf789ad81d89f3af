import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { insertAtCommit, insertWaitingNow } from '../../server/store/compiled';
import { inTransaction, openDatabase, writeTogether } from '../../server/store/db';
import { freshDatabase } from './database';
import { describeWithSqlite, ENGINES, type EngineName } from './harness';

// The store's SQLite: reads on the service's thread, writes on a thread of their own
// (server/store/sqlite-split.ts). What that must keep: a transaction is all or nothing and
// only its own statements are in it; what it must give: reads and the event loop never
// wait for a write. writeTogether is the same contract on both engines.

/** One table of one text column, under a name of its own. */
type ScratchDb = Kysely<Record<string, { v: string }>>;

/**
 * On PostgreSQL, a database of the test's own: in the shared one, another file's migrator,
 * which lists every table (Kysely's introspector), failed on a scratch table dropped
 * meanwhile ("relation … does not exist").
 */
async function scratchDatabase(engine: EngineName, dataDir: string) {
  const fresh = engine === 'postgres' ? await freshDatabase() : undefined;
  const database = openDatabase({ databaseUrl: fresh?.url ?? null, dataDir });
  return {
    database,
    async close() {
      await database.close();
      await fresh?.drop();
    },
  };
}

async function scratch(engine: EngineName, dataDir: string) {
  const own = await scratchDatabase(engine, dataDir);
  const database = own.database;
  const db = database.db as unknown as ScratchDb;
  const name = `scratch_${randomBytes(4).toString('hex')}`;
  await sql`create table ${sql.table(name)} (v text primary key)`.execute(db);
  return {
    database,
    db,
    name,
    insert: (into: ScratchDb, v: string) => into.insertInto(name).values({ v }),
    /** The table's values, read afresh. */
    values: async () => (await db.selectFrom(name).select('v').orderBy('v').execute()).map((r) => r.v),
    drop: () => own.close(),
  };
}

type Scratch = Awaited<ReturnType<typeof scratch>>;

/** Runs `body` against a fresh scratch table, dropped afterwards whatever happens. */
async function withScratch(engine: EngineName, body: (s: Scratch) => Promise<void>) {
  const s = await scratch(engine, dataDir);
  try {
    await body(s);
  } finally {
    await s.drop();
  }
}

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'checkout-writer-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe.each(ENGINES)('writeTogether [%s]', (engine) => {
  it('commits every statement or, when one fails, none', async () => {
    await withScratch(engine, async (s) => {
      const { db } = s;
      await writeTogether(s.database.db, [s.insert(db, 'a').compile(), s.insert(db, 'b').compile()]);
      expect(await s.values()).toEqual(['a', 'b']);
      // 'c' first, then a duplicate key: 'c' must not stay.
      await expect(writeTogether(s.database.db, [s.insert(db, 'c').compile(), s.insert(db, 'a').compile()])).rejects.toThrow();
      expect(await s.values()).toEqual(['a', 'b']);
    });
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('writeTogether on PostgreSQL', () => {
  it('is one statement: every row carries the same statement_timestamp(), each value where it was bound', async () => {
    const own = await scratchDatabase('postgres', dataDir);
    const database = own.database;
    const db = database.db as unknown as Kysely<Record<string, { v: string; n: number; at?: Date }>>;
    const [a, b] = [`stmt_a_${randomBytes(4).toString('hex')}`, `stmt_b_${randomBytes(4).toString('hex')}`];
    try {
      for (const name of [a, b]) await sql`create table ${sql.table(name)} (v text primary key, n int not null, at timestamptz not null default statement_timestamp())`.execute(db);
      // Apart, inside one transaction, the statements would each have a timestamp of their own.
      await writeTogether(database.db, [
        db.insertInto(a).values([{ v: 'a1', n: 1 }, { v: 'a2', n: 2 }]).compile(),
        db.insertInto(b).values({ v: 'b1', n: 3 }).compile(),
        db.insertInto(a).values({ v: 'a3', n: 4 }).compile(),
      ]);
      const rows = (await sql<{ v: string; n: number; at: Date }>`select v, n, at from ${sql.table(a)} union all select v, n, at from ${sql.table(b)} order by n`.execute(db)).rows;
      expect(rows.map((r) => [r.v, r.n])).toEqual([['a1', 1], ['a2', 2], ['b1', 3], ['a3', 4]]);
      expect(new Set(rows.map((r) => r.at.getTime())).size).toBe(1);
    } finally {
      await own.close();
    }
  });
});

describe.each(ENGINES)('insertAtCommit [%s]', (engine) => {
  it('writes its rows as the transaction commits, or when a read asks first (insertWaitingNow), and not after a rollback', async () => {
    await withScratch(engine, async (s) => {
      const table = s.name as never;
      await inTransaction(s.database.db, async (trx) => {
        await insertAtCommit(trx, table, [{ v: 'a' }] as never);
        expect(await (trx as unknown as ScratchDb).selectFrom(s.name).select('v').execute()).toEqual([]);
        await insertWaitingNow(trx);
        expect(await (trx as unknown as ScratchDb).selectFrom(s.name).select('v').execute()).toEqual([{ v: 'a' }]);
        await insertAtCommit(trx, table, [{ v: 'b' }, { v: 'c' }] as never);
      });
      expect(await s.values()).toEqual(['a', 'b', 'c']);
      await expect(
        inTransaction(s.database.db, async (trx) => {
          await insertAtCommit(trx, table, [{ v: 'd' }] as never);
          throw new Error('undone');
        }),
      ).rejects.toThrow('undone');
      // Outside a transaction of ours: at once.
      await insertAtCommit(s.database.db as never, table, [{ v: 'e' }] as never);
      expect(await s.values()).toEqual(['a', 'b', 'c', 'e']);
    });
  });
});

describeWithSqlite('SQLite reads and writes on two connections', () => {
  it("a read does not wait for an open transaction, and sees only what was committed", async () => {
    await withScratch('sqlite', async (s) => {
      const { db } = s;
      let seenInside: string[] = [];
      await db.transaction().execute(async (trx) => {
        await s.insert(trx, 'x').execute();
        // The old single connection would wait here for this very transaction: a deadlock.
        seenInside = await s.values();
      });
      expect(seenInside).toEqual([]);
      expect(await s.values()).toEqual(['x']);
    });
  });

  it('a write made while a transaction is open is not part of it', async () => {
    await withScratch('sqlite', async (s) => {
      const { db } = s;
      let outside: Promise<unknown> | undefined;
      await expect(
        db.transaction().execute(async (trx) => {
          await s.insert(trx, 'in').execute();
          outside = s.insert(db, 'out').execute();
          // More of the transaction after the write outside it was started.
          await s.insert(trx, 'in too').execute();
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await outside;
      expect(await s.values()).toEqual(['out']);
    });
  });

  // The transaction's `begin` travels with its first statement (one message fewer): what
  // a transaction means must not change with it.
  it('a transaction whose first statement fails rolls back what follows, and the next one runs', async () => {
    await withScratch('sqlite', async (s) => {
      const { db } = s;
      await s.insert(db, 'taken').execute();
      await expect(
        db.transaction().execute(async (trx) => {
          await s.insert(trx, 'taken').execute();
        }),
      ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
      // The failed first statement had opened the transaction: a statement caught and
      // followed by more must still be undone with them.
      await expect(
        db.transaction().execute(async (trx) => {
          await s.insert(trx, 'taken').execute().catch(() => undefined);
          await s.insert(trx, 'after the failure').execute();
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await db.transaction().execute(async (trx) => {
        await s.insert(trx, 'next').execute();
      });
      expect(await s.values()).toEqual(['next', 'taken']);
    });
  });

  // The rows a transaction inserts as it commits go to the writer with its commit (or the
  // statement after them), in one message: counted as the messages this thread posts.
  it('writes left for the end travel with the commit: one message fewer each, and none for a transaction that only has them', async () => {
    await withScratch('sqlite', async (s) => {
      const table = s.name as never;
      await s.insert(s.db, 'first').execute();
      const posted = vi.spyOn(Worker.prototype, 'postMessage');
      try {
        await inTransaction(s.database.db, async (trx) => {
          await (trx as unknown as ScratchDb).updateTable(s.name).set({ v: 'renamed' }).where('v', '=', 'first').execute();
          await insertAtCommit(trx, table, [{ v: 'a' }] as never);
          await insertAtCommit(trx, table, [{ v: 'b' }] as never);
        });
        // The update with its begin; the rows with the commit.
        expect(posted).toHaveBeenCalledTimes(2);
        posted.mockClear();
        await inTransaction(s.database.db, (trx) => insertAtCommit(trx, table, [{ v: 'c' }] as never));
        // The begin, the rows and the commit together.
        expect(posted).toHaveBeenCalledTimes(1);
      } finally {
        posted.mockRestore();
      }
      expect(await s.values()).toEqual(['a', 'b', 'c', 'renamed']);
    });
  });

  it('a write left for the end that SQLite refuses fails the commit with its error, nothing of the transaction stays, and the writer is free', async () => {
    await withScratch('sqlite', async (s) => {
      const table = s.name as never;
      await s.insert(s.db, 'taken').execute();
      await expect(
        inTransaction(s.database.db, async (trx) => {
          await s.insert(trx as unknown as ScratchDb, 'never committed').execute();
          await insertAtCommit(trx, table, [{ v: 'taken' }] as never);
        }),
      ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
      // Alone in its transaction, with its begin: the same.
      await expect(inTransaction(s.database.db, (trx) => insertAtCommit(trx, table, [{ v: 'taken' }] as never))).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
      await inTransaction(s.database.db, (trx) => insertAtCommit(trx, table, [{ v: 'next' }] as never));
      expect(await s.values()).toEqual(['next', 'taken']);
    });
  });

  it('a rollback drops the writes left for the end unsent: they cannot fail it', async () => {
    await withScratch('sqlite', async (s) => {
      await s.insert(s.db, 'taken').execute();
      const posted = vi.spyOn(Worker.prototype, 'postMessage');
      try {
        await expect(
          inTransaction(s.database.db, async (trx) => {
            await s.insert(trx as unknown as ScratchDb, 'undone').execute();
            // Refused on the writer (the key is taken), were it sent.
            await writeTogether(trx, [s.insert(trx as unknown as ScratchDb, 'taken').compile()], { withNext: true });
            throw new Error('undone');
          }),
        ).rejects.toThrow('undone');
        const carried = posted.mock.calls.flatMap(([message]) => (message as { before?: unknown[] }).before ?? []);
        expect(carried).toEqual([]);
      } finally {
        posted.mockRestore();
      }
      expect(await s.values()).toEqual(['taken']);
    });
  });

  // The writer reads its messages in order, so a transaction needs the turn only until its
  // commit is posted: the next one's first statement waits behind the commit there.
  it('the next transaction is posted before the commit ahead of it is answered; a commit that fails is rolled back by the writer before it', async () => {
    await withScratch('sqlite', async (s) => {
      const table = s.name as never;
      await s.insert(s.db, 'taken').execute();
      const events: string[] = [];
      const { postMessage, emit } = Worker.prototype;
      const posted = vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker, message: any, ...rest: any[]) {
        if (message.sql) events.push(`post ${message.id} ${message.begin ? 'begin ' : ''}${message.sql.split(' ')[0]}${message.end ? ' end' : ''}`);
        return postMessage.call(this, message, ...rest);
      } as never);
      const emitted = vi.spyOn(Worker.prototype, 'emit').mockImplementation(function (this: Worker, name: string | symbol, ...args: any[]) {
        if (name === 'message') events.push(`reply ${args[0].id}${args[0].error ? ` ${args[0].error.code}` : ''}`);
        return emit.call(this, name, ...args);
      } as never);
      try {
        const first = inTransaction(s.database.db, async (trx) => {
          await s.insert(trx as unknown as ScratchDb, 'first').execute();
          // Refused with the commit: the writer rolls it back before the next transaction's begin.
          await insertAtCommit(trx, table, [{ v: 'taken' }] as never);
        });
        const second = inTransaction(s.database.db, (trx) => s.insert(trx as unknown as ScratchDb, 'second').execute());
        await expect(first).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
        await second;
      } finally {
        posted.mockRestore();
        emitted.mockRestore();
      }
      const commit = events.find((e) => e.startsWith('post') && e.endsWith('commit end'))!;
      const commitId = commit.split(' ')[1];
      const secondBegin = events.findIndex((e, i) => i > events.indexOf(commit) && e.startsWith('post') && e.includes('begin'));
      expect(secondBegin, events.join('\n')).toBeGreaterThan(-1);
      expect(secondBegin, events.join('\n')).toBeLessThan(events.indexOf(`reply ${commitId} SQLITE_CONSTRAINT_PRIMARYKEY`));
      // No rollback posted: the writer did it.
      expect(events.filter((e) => e.includes('rollback'))).toEqual([]);
      expect(await s.values()).toEqual(['second', 'taken']);
    });
  });

  it('a transaction that ends while its first statement is still on its way is ended on the writer too', async () => {
    await withScratch('sqlite', async (s) => {
      const { db } = s;
      let first: Promise<unknown> | undefined;
      await expect(
        db.transaction().execute(async (trx) => {
          // Not awaited: the callback fails while the statement that carries the begin is in flight.
          first = s.insert(trx, 'in flight').execute();
          throw new Error('gave up');
        }),
      ).rejects.toThrow('gave up');
      await first;
      // The writer is free: the next transaction begins, and the abandoned one left nothing.
      await db.transaction().execute(async (trx) => {
        await s.insert(trx, 'next').execute();
      });
      expect(await s.values()).toEqual(['next']);
    });
  });

  it('a transaction that ran no statement leaves the writer free', async () => {
    await withScratch('sqlite', async (s) => {
      const { db } = s;
      await db.transaction().execute(async () => undefined);
      await expect(db.transaction().execute(async () => Promise.reject(new Error('nothing done')))).rejects.toThrow('nothing done');
      await s.insert(db, 'after').execute();
      await db.transaction().execute(async (trx) => {
        expect(await trx.selectFrom(s.name).select('v').execute()).toEqual([{ v: 'after' }]);
      });
    });
  });

  it('keeps SQLite’s error code on a failed write', async () => {
    await withScratch('sqlite', async (s) => {
      const { db } = s;
      await s.insert(db, 'k').execute();
      await expect(s.insert(db, 'k').execute()).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    });
  });

  it('the event loop and reads go on while a write waits for the lock', async () => {
    await withScratch('sqlite', async (s) => {
      // Another process's writer, holding the write lock.
      const other = new SQLite(join(dataDir, 'checkout.db'));
      try {
        other.exec('begin immediate');
        const write = s.insert(s.db, 'late').execute();
        // With the write on this thread, it would block here until busy_timeout ran out.
        const ticks = await new Promise<number>((resolve) => {
          let n = 0;
          const timer = setInterval(() => {
            if (++n === 5) {
              clearInterval(timer);
              resolve(n);
            }
          }, 20);
        });
        expect(ticks).toBe(5);
        expect(await s.values()).toEqual([]);
        other.exec('commit');
        await write;
        expect(await s.values()).toEqual(['late']);
      } finally {
        other.close();
      }
    });
  });

  it("two processes' transactions that read, then write, on one file all commit: none is refused as busy", async () => {
    await withScratch('sqlite', async (s) => {
      // A second process's database: its own reader and writer thread on the same file.
      const second = openDatabase({ databaseUrl: null, dataDir });
      const other = second.db as unknown as ScratchDb;
      try {
        // A job's claim: read what is there, then write from it, in one transaction. With
        // a deferred begin, the read's snapshot goes stale as soon as the other process
        // commits, and the write is refused (SQLITE_BUSY) instead of waiting for its turn.
        const claim = (db: ScratchDb, v: string) =>
          inTransaction(db as never, async (trx) => {
            const t = trx as unknown as ScratchDb;
            const seen = await t.selectFrom(s.name).select('v').execute();
            await s.insert(t, `${v}-${seen.length}`).execute();
          });
        await Promise.all(Array.from({ length: 400 }, (_, i) => claim(i % 2 ? other : s.db, `p${i % 2}-${i}`)));
        expect(await s.values()).toHaveLength(400);
      } finally {
        await second.close();
      }
    });
  });

  it('the change stamp moves when the writer commits', async () => {
    await withScratch('sqlite', async (s) => {
      const before = s.database.changeStamp();
      expect(s.database.changeStamp()).toBe(before);
      await s.insert(s.db, 'v').execute();
      expect(s.database.changeStamp()).not.toBe(before);
    });
  });
});
