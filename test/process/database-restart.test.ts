import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { payUnderFault, payWithCard, priced } from '../api/pay';
import { startCluster } from '../api/pg-cluster';
import { processScope } from '../api/process';
import { createShopKeys } from '../shop-keys';
import { remoteGatewayEnv, startProcessor } from '../api/processor';
import { REMOTE_ID } from '../api/remote-gateway';

// PostgreSQL ends every session on a restart or failover ("terminating connection due to
// administrator command", 57P01). Idle pooled clients learn of it as an `error` event,
// which killed the process while nobody listened for it. Here the server ends the
// service's sessions the same way, on a database of the service's own.

const { cleanup, environment, started } = processScope();

async function terminateSessions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return rowCount ?? 0;
  } finally {
    await client.end();
  }
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('a service process on PostgreSQL whose sessions the server ends', () => {
  it('stays up, logs the lost connections and serves with new ones', { timeout: 60_000 }, async () => {
    const env = await environment('postgres');
    const keys = await createShopKeys('Restart shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const service = await started(env);
    const create = () => fetch(`${service.url}/v1/transaction/`, { method: 'POST', headers, body: JSON.stringify(priced('EUR', 10)) });
    // Several at once, so the pool holds several idle clients afterwards.
    const before = await Promise.all(Array.from({ length: 4 }, create));
    expect(before.map((r) => r.status)).toEqual([201, 201, 201, 201]);

    const ended = await terminateSessions(env.DATABASE_URL!);
    expect(ended).toBeGreaterThan(0);
    // Each ended session is told once. Until the pool has heard of them all, an idle client
    // whose end it has not heard of yet can still be lent out, and its request fails (503):
    // waiting for the first only made the next request race the others.
    const told = () => service.output.filter((line) => line.includes('database connection lost')).length;
    await expect.poll(told, { timeout: 10_000 }).toBeGreaterThanOrEqual(ended);

    const after = await create();
    expect(after.status).toBe(201);
    const list = (await (await fetch(`${service.url}/v1/transaction/`, { headers })).json()) as { count: number };
    expect(list.count).toBe(5);
    expect(service.child.exitCode).toBeNull();
  });
});

interface Answer {
  kind: 'create' | 'pay';
  status: number | 'reset';
  id?: string;
  /** A pay answered 200: the status its screen shows (paid, or checking when its record was cut off). */
  shown?: string;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('a service process through a PostgreSQL restart under light load', () => {
  it('answers 503 with Retry-After while the database is away, never 500, serves again, and loses nothing', { timeout: 240_000 }, async () => {
    const cluster = await startCluster();
    cleanup(() => cluster.remove());
    const processor = await startProcessor();
    cleanup(() => processor.close());
    // Short claims, so reconciliation takes up the payment cut off by the outage quickly.
    const env = await environment('sqlite', {
      ...remoteGatewayEnv(processor, { timeoutMs: 2_000, claimMs: 4_000 }),
      DATABASE_URL: cluster.url,
      BACKGROUND_WORK: 'true',
      DB_ACQUIRE_TIMEOUT_MS: '1000',
    });
    const keys = await createShopKeys('Restart shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const service = await started(env);

    const answers: Answer[] = [];
    const created: { id: string; token: string }[] = [];
    let loading = true;
    const load = (async () => {
      for (let i = 0; loading; i++) {
        const res = await fetch(`${service.url}/v1/transaction/`, { method: 'POST', headers, body: JSON.stringify(priced('EUR', 10 + i)) }).catch(() => null);
        const body = res ? ((await res.json()) as { id?: string; token?: string }) : {};
        answers.push({ kind: 'create', status: res?.status ?? 'reset', id: body.id });
        if (res?.status === 201) {
          created.push({ id: body.id!, token: body.token! });
          const paid = await payUnderFault(payWithCard(service.url, body.token!, undefined, REMOTE_ID));
          answers.push({ kind: 'pay', status: paid.status ?? 'reset', id: body.id, shown: paid.shown });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const seen = (status: number) => answers.filter((a) => a.status === status).length;
    await expect.poll(() => seen(201), { timeout: 60_000 }).toBeGreaterThan(3);

    // A payment at the processor when the database goes: charged there, its answer held
    // until the database is down, so its record step cannot be written.
    processor.holdPayments = true;
    await processor.next('/pay');
    await cluster.stop();
    processor.holdPayments = false;
    processor.release();
    const downAt = answers.length;
    await expect.poll(() => answers.slice(downAt).filter((a) => a.status === 503).length, { timeout: 60_000 }).toBeGreaterThan(2);
    const during = await fetch(`${service.url}/v1/transaction/`, { headers });
    expect(during.status).toBe(503);
    expect(during.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await during.json()) as { type: string }).type).toBe('urn:problem:service-unavailable');

    await cluster.start();
    const upAt = answers.length;
    await expect.poll(() => answers.slice(upAt).filter((a) => a.status === 201).length, { timeout: 60_000 }).toBeGreaterThan(2);
    loading = false;
    await load;

    expect(service.child.exitCode).toBeNull();
    expect(answers.filter((a) => a.status === 500 || a.status === 'reset')).toEqual([]);
    // Every 2xx is in the database; every charge at the processor is a sale (the one cut
    // off by the outage once reconciliation has asked the processor about it).
    const get = async (path: string) => (await (await fetch(`${service.url}/v1${path}`, { headers })).json()) as Record<string, any>;
    const answered = (shown: string) => answers.filter((x) => x.kind === 'pay' && x.status === 200 && x.shown === shown);
    expect(answers.filter((x) => x.kind === 'pay' && x.status === 200 && x.shown !== 'paid' && x.shown !== 'checking')).toEqual([]);
    for (const a of answered('paid')) expect((await get(`/transaction/${a.id}/`)).status).toBe('D');
    // Answered "being checked" (charged, its record cut off by the outage): paid once reconciliation has asked the processor.
    for (const a of answered('checking')) await expect.poll(async () => (await get(`/transaction/${a.id}/`)).status, { timeout: 60_000 }).toBe('D');
    for (const tx of created) expect((await get(`/transaction/${tx.id}/`)).id).toBe(tx.id);
    await expect.poll(async () => (await get('/sale/?page_size=100')).count, { timeout: 60_000 }).toBe(processor.charges.size);
    expect([...processor.charges.values()].every((n) => n === 1)).toBe(true);
  });
});
