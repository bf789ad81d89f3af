import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAtCommit } from '../../server/store/compiled';
import { type Database, inTransaction, openDatabase, Rollback, rollbackOn } from '../../server/store/db';
import { createEnvironment } from '../../server/store/environments';
import type { ApiRequestRow } from '../../server/store/schema';
import { pgAddress, startWireProxy, throughProxy, type WireProxy } from '../bench/pg-wire';
import { freshDatabase } from './database';

// On PostgreSQL a transaction's BEGIN goes out with its first statement, and the writes it
// leaves for its end with its COMMIT (server/store/pg-pipeline.ts): counted on the wire, by
// the bench's proxy, which reads what the service sends and what PostgreSQL answers. What
// goes out together fails together: nothing of a transaction whose last write is refused is
// committed, and the refusal is the caller's error.

describe.skipIf(!process.env.TEST_DATABASE_URL)('a transaction pipelined on PostgreSQL', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let proxy: WireProxy;
  let database: Database;
  let environmentId: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'checkout-pipeline-'));
    fresh = await freshDatabase();
    proxy = await startWireProxy(pgAddress(fresh.url));
    database = openDatabase({ databaseUrl: throughProxy(fresh.url, proxy.port), dataDir });
    environmentId = (await createEnvironment(database.db, { name: 'Pipelined shop', now: new Date() })).environment_id;
  });
  afterAll(async () => {
    await database?.close();
    await proxy?.close();
    await fresh?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** What `fn` sent: statements, round trips and transaction control, counted on the wire. */
  async function onTheWire<T>(fn: () => Promise<T>) {
    const before = proxy.counts();
    const result = await fn().catch((err: unknown) => ({ refused: err }));
    const after = proxy.counts();
    return {
      result,
      statements: after.statements - before.statements,
      roundTrips: after.roundTrips - before.roundTrips,
      control: after.transactionControl - before.transactionControl,
    };
  }

  const request = (id: string): ApiRequestRow => ({
    id,
    environment_id: environmentId,
    method: 'POST',
    path: '/v1/transaction/',
    status: 201,
    public_key: 'pk',
    request_id: `req-${id}`,
    idempotency_key: 0,
    duration_ms: 3,
    created_at: new Date().toISOString(),
  });
  const stored = async (id: string) => (await database.db.selectFrom('api_requests').select('id').where('id', '=', id).execute()).length;
  const nameNow = async () => (await database.db.selectFrom('environments').select('name').where('id', '=', environmentId).executeTakeFirstOrThrow()).name;

  it('sends BEGIN with the first statement and the writes left for the end with COMMIT: two round trips for four statements', async () => {
    const id = crypto.randomUUID();
    const wire = await onTheWire(() =>
      inTransaction(database.db, async (trx) => {
        await trx.updateTable('environments').set({ name: 'Pipelined shop, renamed' }).where('id', '=', environmentId).execute();
        await insertAtCommit(trx, 'api_requests', [request(id)]);
      }),
    );
    expect(wire.result).toBeUndefined();
    expect(wire).toMatchObject({ statements: 4, control: 2, roundTrips: 2 });
    expect(await stored(id)).toBe(1);
    expect(await nameNow()).toBe('Pipelined shop, renamed');
  });

  it('a transaction that sends nothing sends neither its BEGIN nor its COMMIT or ROLLBACK', async () => {
    expect(await onTheWire(() => inTransaction(database.db, async () => 'nothing to write'))).toEqual({ result: 'nothing to write', statements: 0, roundTrips: 0, control: 0 });
    expect(await onTheWire(() => rollbackOn(database.db, async () => { throw new Rollback('undone'); }))).toEqual({ result: 'undone', statements: 0, roundTrips: 0, control: 0 });
  });

  it('a write left for the end that PostgreSQL refuses: the error is the caller’s, and nothing of the transaction is committed', async () => {
    const taken = crypto.randomUUID();
    await inTransaction(database.db, (trx) => insertAtCommit(trx, 'api_requests', [request(taken)]));
    const before = await nameNow();
    const wire = await onTheWire(() =>
      inTransaction(database.db, async (trx) => {
        await trx.updateTable('environments').set({ name: 'never committed' }).where('id', '=', environmentId).execute();
        // The same id again: the primary key refuses it, at the commit.
        await insertAtCommit(trx, 'api_requests', [request(taken)]);
      }),
    );
    expect(wire.result).toMatchObject({ refused: { code: '23505' } });
    expect(await nameNow()).toBe(before);
    expect(await stored(taken)).toBe(1);
  });

  it('a statement refused after its BEGIN rolls the transaction back, and the connection serves the next caller outside any transaction', async () => {
    const wire = await onTheWire(() =>
      inTransaction(database.db, async (trx) => {
        await sql`select 1 / 0`.execute(trx);
      }),
    );
    expect(wire.result).toMatchObject({ refused: { code: '22012' } });
    // The pool lends the connection it got back last: a statement on it outside a transaction
    // is committed at once, so another connection sees it.
    const id = crypto.randomUUID();
    await database.db.insertInto('api_requests').values(request(id)).execute();
    const other = openDatabase({ databaseUrl: fresh.url, dataDir });
    try {
      expect(await other.db.selectFrom('api_requests').select('id').where('id', '=', id).execute()).toEqual([{ id }]);
      const open = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`.execute(other.db);
      expect(open.rows).toEqual([{ n: 0 }]);
    } finally {
      await other.close();
    }
  });
});
