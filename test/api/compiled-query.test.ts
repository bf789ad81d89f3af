import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compiledOnce, insertRows } from '../../server/store/compiled';
import type { Db } from '../../server/store/db';
import type { EventRow, Tables } from '../../server/store/schema';
import { type Client, ENGINES, type EngineName, EVERY_ENGINE, startTestService, type TestService, transactionBody } from './harness';

// compiledOnce: a query built and compiled once per engine, then run with new arguments.
// It must answer exactly what the query built afresh answers, keep the query's own
// constants, and refuse a query that does not take its arguments as bound values.
//
// The queries run through a second Kysely on the service's database that logs every
// statement, so the SQL and the parameters actually sent can be checked.

interface Engine {
  t: TestService;
  api: Client;
  /** The service's database, with a log of what is sent to it. */
  db: Db;
  sent: CompiledQuery[];
}

// Each engine's service started by the first test that needs it: npm test runs this file's
// SQLite and PostgreSQL halves apart (vitest.config.ts), and each starts only what it uses.
const engines = new Map<EngineName, Promise<Engine>>();
async function startEngine(name: EngineName): Promise<Engine> {
  const t = await startTestService(name);
  const sent: CompiledQuery[] = [];
  const dialect =
    name === 'sqlite'
      ? new SqliteDialect({ database: new SQLite(join(t.dataDir, 'checkout.db')) })
      : new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 2 }) });
  const db = new Kysely<Tables>({ dialect, log: (event) => void sent.push(event.query) });
  return { t, api: await t.newEnvironment('Compiled Shop'), db, sent };
}
const engineOf = (name: EngineName): Promise<Engine> => {
  if (!engines.has(name)) engines.set(name, startEngine(name));
  return engines.get(name)!;
};

afterAll(async () => {
  for (const started of engines.values()) {
    const e = await started;
    await e.db.destroy();
    await e.t.close();
  }
});

// Built once for the whole file, as the service does: each is used on every engine.
const environmentByKey = compiledOnce((db, publicKey: string) => db.selectFrom('environments').selectAll().where('public_key', '=', publicKey));

/** Arguments in the opposite order to their place in the query, between constants. */
const plainPendingOrders = (db: Db, orderId: string, environmentId: string) =>
  db
    .selectFrom('transactions')
    .select(['id', 'status', 'order_id', 'currency'])
    .where('environment_id', '=', environmentId)
    .where('status', '=', 'N')
    .where('order_id', '=', orderId)
    .where('currency', 'in', ['EUR', 'USD'])
    .orderBy('id');
const pendingOrders = compiledOnce(plainPendingOrders);

/** One argument in two places. */
const byOrderOrCurrency = compiledOnce((db, environmentId: string, value: string) =>
  db
    .selectFrom('transactions')
    .select(['id'])
    .where('environment_id', '=', environmentId)
    .where((eb) => eb.or([eb('order_id', '=', value), eb('currency', '=', value)]))
    .orderBy('id'),
);

describe.each(ENGINES)('compiledOnce on %s', (engine) => {
  let e: Engine;
  beforeAll(async () => {
    e = await engineOf(engine);
  });
  beforeEach(() => {
    e.sent.length = 0;
  });

  const create = async (client: Client, over: Record<string, unknown>) => {
    const res = await client.post('/transaction/', transactionBody(over));
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };

  it('returns the rows the query built afresh returns, argument after argument', async () => {
    const other = await e.t.newEnvironment('Another Shop');
    for (const client of [e.api, other, e.api]) {
      const rows = await environmentByKey(e.db, client.keys.public_key);
      expect(rows).toHaveLength(1);
      expect(rows).toEqual(await e.db.selectFrom('environments').selectAll().where('public_key', '=', client.keys.public_key).execute());
      expect(rows[0]!.id).toBe(client.keys.environment_id);
    }
    expect(await environmentByKey(e.db, 'no-such-key')).toEqual([]);
    // A value that would be a problem if it were spliced into the SQL.
    expect(await environmentByKey(e.db, "x' or '1'='1")).toEqual([]);
    // The compiled query, sent again and again: one SQL text, only the parameter changing.
    const compiled = e.sent.filter((q) => q.parameters.length === 1 && !q.sql.includes('limit'));
    expect(new Set(compiled.map((q) => q.sql)).size).toBe(1);
    expect(compiled.map((q) => q.parameters[0])).toContain("x' or '1'='1");
    expect(compiled[0]!.sql).toBe(e.db.selectFrom('environments').selectAll().where('public_key', '=', 'k').compile().sql);
  });

  it("keeps the query's constants bound and puts each argument in its own place", async () => {
    const env = await e.t.newEnvironment('Orders Shop');
    const envId = env.keys.environment_id;
    const a1 = await create(env, { order_id: 'A' });
    const a2 = await create(env, { order_id: 'A' });
    const aGbp = await create(env, { order_id: 'A', currency: 'GBP' });
    const b = await create(env, { order_id: 'B', currency: 'USD' });
    const aCancelled = await create(env, { order_id: 'A' });
    await e.db.updateTable('transactions').set({ status: 'C' }).where('id', '=', aCancelled).execute();
    // The same order id in another environment.
    await create(e.api, { order_id: 'A' });

    const cases: [string, string, string[]][] = [
      ['A', envId, [a1, a2].sort()],
      ['B', envId, [b]],
      ['C', envId, []],
      ['A', e.api.keys.environment_id, (await plainPendingOrders(e.db, 'A', e.api.keys.environment_id).execute()).map((r) => r.id)],
      // Swapped: no order is called like an environment.
      [envId, 'A', []],
    ];
    e.sent.length = 0;
    for (const [orderId, environmentId, ids] of cases) {
      const rows = await pendingOrders(e.db, orderId, environmentId);
      expect(rows.map((r) => r.id)).toEqual(ids);
      expect(rows).toEqual(await plainPendingOrders(e.db, orderId, environmentId).execute());
      expect(rows.every((r) => r.status === 'N' && r.order_id === orderId)).toBe(true);
    }
    expect(cases[3]![2]).toHaveLength(1);
    expect([a1, a2]).not.toContain(aGbp);

    const compiled = e.sent.filter((_, i) => i % 2 === 0);
    const plain = e.sent.filter((_, i) => i % 2 === 1);
    expect(compiled).toHaveLength(cases.length);
    compiled.forEach((q, i) => {
      const [orderId, environmentId] = cases[i]!;
      expect(q.sql).toBe(plain[i]!.sql);
      expect(q.parameters).toEqual([environmentId, 'N', orderId, 'EUR', 'USD']);
      expect(q.parameters).toEqual(plain[i]!.parameters);
      expect(q.sql).not.toMatch(/'N'|'EUR'|'USD'/);
    });
  });

  it('fills one argument into every place it is used', async () => {
    const env = await e.t.newEnvironment('Either Shop');
    const eurOrder = await create(env, { order_id: 'USD' });
    const usd = await create(env, { order_id: 'x', currency: 'USD' });
    await create(env, { order_id: 'y' });
    const rows = await byOrderOrCurrency(e.db, env.keys.environment_id, 'USD');
    expect(rows.map((r) => r.id)).toEqual([eurOrder, usd].sort());
    expect((await byOrderOrCurrency(e.db, env.keys.environment_id, 'y')).map((r) => r.id)).toHaveLength(1);
    expect(await byOrderOrCurrency(e.db, env.keys.environment_id, 'JPY')).toEqual([]);
    expect(e.sent.at(-1)!.parameters).toEqual([env.keys.environment_id, 'JPY', 'JPY']);
  });

  it('takes a number as a bound number: a page of rows by its limit and offset; one spliced into the SQL is refused', async () => {
    const env = await e.t.newEnvironment('Pages Shop');
    const ids: string[] = [];
    for (const order of ['p1', 'p2', 'p3', 'p4', 'p5']) ids.push(await create(env, { order_id: order }));
    const sorted = [...ids].sort();
    const page = compiledOnce((db, environmentId: string, limit: number, offset: number) =>
      db.selectFrom('transactions').select('id').where('environment_id', '=', environmentId).orderBy('id').limit(limit).offset(offset),
    );
    const pageOf = async (limit: number, offset: number) => (await page(e.db, env.keys.environment_id, limit, offset)).map((r) => r.id);
    expect(await pageOf(2, 0)).toEqual(sorted.slice(0, 2));
    expect(await pageOf(2, 2)).toEqual(sorted.slice(2, 4));
    expect(await pageOf(10, 4)).toEqual(sorted.slice(4));
    expect(e.sent.at(-1)!.parameters).toEqual([env.keys.environment_id, 10, 4]);
    const spliced = compiledOnce((db, limit: number) => db.selectFrom('transactions').select('id').limit(sql.lit(limit)));
    await expect(spliced(e.db, 3)).rejects.toThrow('every argument must be a bound value of the query');
  });

  it('refuses, before running anything, a query that does not take an argument as a bound value', async () => {
    const refusals = [
      // Changed on the way in: the compiled query could not be rerun with another value.
      compiledOnce((db, name: string) => db.selectFrom('environments').selectAll().where('name', 'like', `%${name}%`)),
      // Spliced into the SQL text.
      compiledOnce((db, name: string) => db.selectFrom('environments').selectAll().where('name', '=', sql.lit(name))),
      compiledOnce((db, name: string) => db.selectFrom('environments').selectAll().where(sql.raw(`name = '${name}'`), '=', true)),
      // Bound, and spliced into the SQL text as well.
      compiledOnce((db, name: string, key: string) =>
        db
          .selectFrom('environments')
          .selectAll()
          .where('name', '=', name)
          .where('public_key', '=', key)
          .where(sql.raw(`'${name}'`), 'is not', null),
      ),
      // Not used at all.
      compiledOnce((db, _name: string) => db.selectFrom('environments').selectAll().where('name', '=', 'Compiled Shop')),
      // One of two missing.
      compiledOnce((db, name: string, _key: string) => db.selectFrom('environments').selectAll().where('name', '=', name)),
    ];
    for (const query of refusals) {
      await expect(query(e.db, 'Compiled Shop', 'k')).rejects.toThrow('every argument must be a bound value of the query');
      // And again: nothing half-built was kept.
      await expect(query(e.db, 'Compiled Shop', 'k')).rejects.toThrow('every argument must be a bound value of the query');
    }
    expect(e.sent).toEqual([]);
  });
});

// Both engines at once: with the PostgreSQL half, whose run has both (EVERY_ENGINE).
describe.skipIf(!ENGINES.includes('postgres'))('compiledOnce across engines', () => {
  it("compiles once per engine: each engine gets its own SQL, with its own placeholders", async () => {
    let builds = 0;
    const query = compiledOnce((db, publicKey: string) => {
      builds++;
      return db.selectFrom('environments').select(['id', 'name']).where('public_key', '=', publicKey);
    });
    for (let round = 0; round < 2; round++) {
      for (const name of EVERY_ENGINE) {
        const e = await engineOf(name);
        e.sent.length = 0;
        expect(await query(e.db, e.api.keys.public_key)).toEqual([{ id: e.api.keys.environment_id, name: 'Compiled Shop' }]);
        expect(e.sent).toHaveLength(1);
        expect(e.sent[0]!.sql).toContain(name === 'postgres' ? '= $1' : '= ?');
        expect(e.sent[0]!.parameters).toEqual([e.api.keys.public_key]);
      }
    }
    // Built once per engine, however often it runs.
    expect(builds).toBe(EVERY_ENGINE.length);
  });
});

// insertRows: an INSERT compiled once per table, columns and row count, then run with the
// rows' values. It must send what Kysely's own insert sends and write the same rows.
describe.each(ENGINES)('insertRows on %s', (engine) => {
  let e: Engine;
  beforeAll(async () => {
    e = await engineOf(engine);
  });
  beforeEach(() => {
    e.sent.length = 0;
  });

  const event = (id: string, over: Partial<EventRow> = {}): EventRow => ({
    id,
    environment_id: e.api.keys.environment_id,
    type: 'transaction.created',
    object_id: `object-${id}`,
    notify_url: null,
    payload: JSON.stringify({ id, n: id.length }),
    created_at: new Date().toISOString(),
    ...over,
  });
  const stored = (ids: string[]) => e.db.selectFrom('events').selectAll().where('id', 'in', ids).orderBy('id').execute();

  it("writes the rows Kysely's insert writes, with its SQL, each value in its column", async () => {
    const run = randomUUID();
    const [a, b, c] = [`${run}-a`, `${run}-b`, `${run}-c`];
    const rows = [event(a, { notify_url: 'https://shop.example/a' }), event(b, { type: 'sale.created', payload: "x' or '1'='1" })];
    await insertRows(e.db, 'events', rows);
    const first = e.sent.at(-1)!;
    expect(await stored([a, b])).toEqual(rows);
    const plain = e.db.insertInto('events').values(rows).compile();
    expect(first.sql).toBe(plain.sql);
    expect(first.parameters).toEqual(plain.parameters);
    // The same shape again: the same SQL, other values.
    await insertRows(e.db, 'events', [event(c), event(`${c}2`, { object_id: 'other' })]);
    expect(e.sent.at(-1)!.sql).toBe(plain.sql);
    expect((await stored([c, `${c}2`])).map((r) => r.object_id)).toEqual([`object-${c}`, 'other']);
  });

  it('keeps apart rows of other columns or another count', async () => {
    const run = randomUUID();
    const [one, partial] = [`${run}-one`, `${run}-partial`];
    await insertRows(e.db, 'events', [event(one)]);
    // An undefined value is a column left out, as in Kysely: the column's default (null) applies.
    await insertRows(e.db, 'events', [{ ...event(partial), notify_url: undefined }]);
    const [whole, part] = e.sent.slice(-2);
    expect(whole!.sql).toContain('notify_url');
    expect(part!.sql).not.toContain('notify_url');
    expect((await stored([one, partial])).map((r) => [r.id, r.notify_url])).toEqual([
      [one, null],
      [partial, null],
    ]);
  });

  it('refuses a table whose values are sealed at rest, before writing anything', async () => {
    const db = e.t.service.deps.database.db;
    const at = new Date().toISOString();
    const endpoint = {
      id: randomUUID(),
      environment_id: e.api.keys.environment_id,
      url: 'https://shop.example/hooks',
      description: null,
      enabled_events: '["*"]',
      enabled: 1,
      disabled_reason: null,
      secret: 'whsec_plain',
      previous_secret: null,
      previous_expires_at: null,
      last_delivered_at: null,
      created_at: at,
      updated_at: at,
    };
    await expect(insertRows(db, 'webhook_endpoints', [endpoint])).rejects.toThrow('webhook_endpoints has columns sealed at rest');
    expect(await db.selectFrom('webhook_endpoints').select('id').where('id', '=', endpoint.id).execute()).toEqual([]);
  });
});
