import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, inTransaction, rollbackOn, Rollback } from '../../server/store/db';
import { openDatabase } from '../../server/store/db';

// Work inside a transaction that asks the pool for a second connection deadlocks once the
// pool is full of such transactions (store/open-transaction.ts). Under strictTransactions
// (DB_STRICT_TRANSACTIONS: the API and process tests' services) that request fails at once, wherever the pool stands.

const opened: Database[] = [];
afterEach(async () => {
  for (const database of opened.splice(0)) await database.close();
});

function open(strictTransactions: boolean): Database {
  const database = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL!, dataDir: tmpdir(), strictTransactions });
  opened.push(database);
  return database;
}

const one = async (db: Database['db']) => (await sql<{ one: number }>`select 1 as one`.execute(db)).rows[0]!.one;

describe.skipIf(!process.env.TEST_DATABASE_URL)('a pool connection asked inside an open transaction', () => {
  it('is refused under strictTransactions, in inTransaction and rollbackOn alike; the transaction itself answers', async () => {
    const { db } = open(true);
    await expect(inTransaction(db, async (trx) => [await one(trx), await one(db)])).rejects.toThrow(/inside an open transaction/);
    await expect(rollbackOn(db, async () => one(db))).rejects.toThrow(/inside an open transaction/);
    expect(await inTransaction(db, async (trx) => one(trx))).toBe(1);
    expect(await rollbackOn(db, async (trx) => (await one(trx), Promise.reject(new Rollback('undone'))))).toBe('undone');
    // Outside any transaction the pool serves as ever.
    expect(await one(db)).toBe(1);
  });

  it('is free again for work started inside and still running after the transaction ended', async () => {
    const { db } = open(true);
    let later: Promise<number> | undefined;
    await inTransaction(db, async (trx) => {
      later = new Promise((resolve) => setTimeout(resolve, 50)).then(() => one(db));
      return one(trx);
    });
    expect(await later).toBe(1);
  });

  it('waits for a connection as before without strictTransactions (a running service)', async () => {
    const { db } = open(false);
    expect(await inTransaction(db, async () => one(db))).toBe(1);
  });
});
