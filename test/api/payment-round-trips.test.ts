import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAddress, startWireProxy, throughProxy, type WireCounts, type WireProxy } from '../bench/pg-wire';
import { freshDatabase } from './database';
import { type Client, startTestService, type TestService, transactionBody } from './harness';
import { payWithCard } from './pay';

// Issue 49: a payment in fewer round trips than statements on PostgreSQL. Counted on the
// wire (the bench's proxy) with the jobs off, request by request: create with an
// Idempotency-Key, open the page, pay through it, read the sale, refund it. Each
// transaction's BEGIN goes out with its first statement, and the writes it leaves for its end
// with its COMMIT (server/store/pg-pipeline.ts). The statements themselves are the bench's
// to count (`npm run bench -- --only=payments`, ≤ 35 a payment): their number moves with the
// clock here (a request reads the settings' version at most every 100 ms, store/auth-changes.ts),
// their pipelining does not.

const PAYMENTS = 5;

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

  type Step = 'create' | 'page' | 'pay' | 'sale' | 'refund';

  /** One payment, each request's statements, round trips and transaction control. */
  async function onePayment(): Promise<Record<Step, WireCounts>> {
    const counts = {} as Record<Step, WireCounts>;
    const step = async <T>(name: Step, fn: () => Promise<T>): Promise<T> => {
      const before = proxy.counts();
      const result = await fn();
      const after = proxy.counts();
      counts[name] = { statements: after.statements - before.statements, roundTrips: after.roundTrips - before.roundTrips, transactionControl: after.transactionControl - before.transactionControl };
      return result;
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

  it('sends each transaction’s BEGIN with its first statement and its last writes with its COMMIT', async () => {
    await onePayment(); // the first of a process prepares its statements and fills its caches
    for (let i = 0; i < PAYMENTS; i++) {
      const counts = await onePayment();
      const saved = Object.fromEntries(Object.entries(counts).map(([step, c]) => [step, c.statements - c.roundTrips]));
      const control = Object.fromEntries(Object.entries(counts).map(([step, c]) => [step, c.transactionControl]));
      // The create: its transaction's BEGIN. The pay: the claim's and the record's BEGIN, the
      // claim's gateway call and the record's sale operation each with its COMMIT. The refund:
      // the same for the reservation and the record.
      expect(saved).toEqual({ create: 1, page: 0, pay: 4, sale: 0, refund: 4 });
      expect(control).toEqual({ create: 2, page: 0, pay: 4, sale: 0, refund: 4 });
    }
  });
});
