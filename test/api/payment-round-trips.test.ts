import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pgAddress, startWireProxy, throughProxy, type WireCounts, type WireProxy } from '../bench/pg-wire';
import { freshDatabase } from './database';
import { type Client, describeWithSqlite, startTestService, type TestService, transactionBody } from './harness';
import { payWithCard } from './pay';

// Issue 49: a payment in fewer round trips than statements on PostgreSQL. Counted on the
// wire (the bench's proxy) with the jobs off, request by request: create with an
// Idempotency-Key, open the page, pay through it, read the sale, refund it. Each
// transaction's BEGIN goes out with its first statement, and the writes it leaves for its end
// with its COMMIT (server/store/pg-pipeline.ts). The statements themselves are the bench's
// to count (`npm run bench -- --only=payments`, ≤ 35 a payment): their number moves with the
// clock here (a request reads the settings' version at most every 100 ms, store/auth-changes.ts),
// their pipelining does not. On SQLite the same writes travel to the writer thread in the
// message of the statement after them (server/store/sqlite-split.ts): counted as the messages
// the service, in this process, posts to that thread.

const PAYMENTS = 5;

type Step = 'create' | 'page' | 'pay' | 'sale' | 'refund';

/** One payment through `t`, `count` taken around each request. */
async function onePayment<C>(t: TestService, api: Client, count: (step: Step, fn: () => Promise<unknown>) => Promise<C>): Promise<Record<Step, C>> {
  const counts = {} as Record<Step, C>;
  const step = async <T>(name: Step, fn: () => Promise<T>): Promise<T> => {
    let result: T;
    counts[name] = await count(name, async () => (result = await fn()));
    return result!;
  };
  const created = await step('create', () => api.post('/transaction/', transactionBody({ order_id: randomUUID() }), { 'idempotency-key': randomUUID() }));
  expect(created.status).toBe(201);
  await step('page', async () => expect((await fetch(`${t.url}/pay/${created.body.token}/`)).status).toBe(200));
  await step('pay', async () => expect((await payWithCard(t.url, created.body.token)).status).toBe(200));
  const sales = await step('sale', () => api.get(`/sale/?transaction_id=${created.body.id}`));
  const saleId = sales.body.results[0].id as string;
  await step('refund', async () => expect((await api.post(`/sale/${saleId}/refund/`, {})).status).toBe(200));
  return counts;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('a full payment on PostgreSQL, on the wire', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let proxy: WireProxy;
  let t: TestService;
  let api: Client;

  beforeAll(async () => {
    fresh = await freshDatabase();
    proxy = await startWireProxy(pgAddress(fresh.url));
    t = await startTestService('postgres', { env: { DATABASE_URL: throughProxy(fresh.url, proxy.port) } });
    api = await t.newEnvironment('Counted shop');
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    await fresh?.drop();
  });

  /** One payment, each request's statements, round trips and transaction control. */
  const countedPayment = () =>
    onePayment(t, api, async (_, fn): Promise<WireCounts> => {
      const before = proxy.counts();
      await fn();
      const after = proxy.counts();
      return { statements: after.statements - before.statements, roundTrips: after.roundTrips - before.roundTrips, transactionControl: after.transactionControl - before.transactionControl };
    });

  it('sends each transaction’s BEGIN with its first statement and its last writes with its COMMIT', async () => {
    await countedPayment(); // the first of a process prepares its statements and fills its caches
    for (let i = 0; i < PAYMENTS; i++) {
      const counts = await countedPayment();
      const saved = Object.fromEntries(Object.entries(counts).map(([step, c]) => [step, c.statements - c.roundTrips]));
      const control = Object.fromEntries(Object.entries(counts).map(([step, c]) => [step, c.transactionControl]));
      // The create: its transaction's BEGIN, and its rows and the Idempotency-Key's record with
      // its COMMIT. The pay: the claim's and the record's BEGIN, the claim's update and gateway
      // call and the record's sale operation each with its COMMIT, the sale with the statement
      // after it, the transaction marked paid with the call's settle (store/together.ts). The
      // refund: the BEGINs, the reservation's update of the sale and its gateway call, the
      // record's update of the sale and its sale operation, the sale locked with the call's settle.
      expect(saved).toEqual({ create: 3, page: 0, pay: 7, sale: 0, refund: 7 });
      expect(control).toEqual({ create: 2, page: 0, pay: 4, sale: 0, refund: 4 });
    }
  });
});

describeWithSqlite('a full payment on SQLite, in messages to the writer thread', () => {
  let t: TestService;
  let api: Client;

  beforeAll(async () => {
    t = await startTestService('sqlite');
    api = await t.newEnvironment('Counted shop');
  });
  afterAll(() => t?.close());

  it('sends the writes a transaction leaves for its end with its next statement: one message for them all', async () => {
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      /** What a request posted: messages, and the statements they carried (a begin, the writes kept back, the statement and those sent with it, a batch's). */
      const countedPayment = () =>
        onePayment(t, api, async (_, fn) => {
          posted.mockClear();
          await fn();
          const messages = posted.mock.calls.map(([m]) => m as { begin?: boolean; before?: unknown[]; batch?: unknown[]; sql?: string; then?: unknown[] });
          const statements = messages.reduce((n, m) => n + (m.begin ? 1 : 0) + (m.before?.length ?? 0) + (m.batch?.length ?? (m.sql ? 1 : 0)) + (m.then?.length ?? 0), 0);
          return { messages: messages.length, saved: statements - messages.length };
        });
      await countedPayment();
      for (let i = 0; i < PAYMENTS; i++) {
        const counts = await countedPayment();
        // The create: its begin, the transaction's row and its line and the Idempotency-Key's
        // record with its commit. The pay: the claim's and the record's begins, the claim's
        // update and gateway call with its commit, the record's sale, sale operation, attempt
        // and event with its commit, the transaction marked paid with the call's settle. The
        // refund: the reservation's and the record's begins, the reservation's update of the
        // sale and its gateway call, the record's update of the sale, its sale operation and
        // event, the sale locked with the call's settle. (No webhook endpoint: no delivery rows.)
        expect(Object.fromEntries(Object.entries(counts).map(([step, c]) => [step, c.saved]))).toEqual({ create: 4, page: 0, pay: 9, sale: 0, refund: 8 });
      }
    } finally {
      posted.mockRestore();
    }
  });
});
