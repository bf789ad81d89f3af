import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeIdempotencyKeys } from '../../server/store/idempotency';
import { startIsolatedService } from './database';
import { type Client, ENGINES, type TestService, testClock, transactionBody } from './harness';
import { cancelToken, payToken } from './pay';
import { type Receiver, startReceiver } from './receiver';

// Retention: idempotency keys go after 24 h, events (with their deliveries and attempts)
// after EVENT_RETENTION_DAYS unless a delivery is still pending, settled gateway calls after GATEWAY_CALL_RETENTION_DAYS; what is
// still due is kept, and the money itself (sales) is never touched.

const DAY = 24 * 60 * 60_000;

describe.each(ENGINES)('retention on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let api: Client;
  let hook: Receiver;

  beforeAll(async () => {
    // A database of its own: the purge takes every old row it finds.
    t = await startIsolatedService(engine, { now: clock.now, env: { ALLOW_PRIVATE_NOTIFY_URLS: 'true', EVENT_RETENTION_DAYS: '30', GATEWAY_CALL_RETENTION_DAYS: '30' } });
    api = await t.newEnvironment('Old shop');
    hook = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await hook?.close();
  });

  const retention = () => t.service.jobs.runOnce('retention');
  const calls = async () => (await t.service.deps.database.db.selectFrom('gateway_calls').select('id').execute()).length;

  it('purges keys after a day, events delivered or delivered nowhere and settled calls after 30 days, and keeps the rest', async () => {
    const key = { 'idempotency-key': 'retained-1' };
    const created = await api.post('/transaction/', transactionBody({ notify_url: hook.url }), key);
    expect(created.status).toBe(201);
    expect(await payToken(t.url, created.body.token)).toBe(200);
    const sale = (await api.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    await t.service.jobs.runOnce('webhook-delivery');
    await hook.waitFor(1);
    // Paid after the delivery round: its event is never delivered here, so kept however old.
    const undelivered = await api.post('/transaction/', transactionBody({ notify_url: 'http://127.0.0.1:9/never' }));
    expect(await payToken(t.url, undelivered.body.token)).toBe(200);
    // Delivered nowhere (no notify_url, no endpoint): kept as long as any other event.
    const quiet = await api.post('/transaction/', transactionBody());
    await cancelToken(t.url, quiet.body.token);
    const quietEvents = async () => (await api.get(`/event/?object_id=${quiet.body.id}`)).body.count as number;
    expect(await quietEvents()).toBe(1);
    const delivered = async () => (await api.get('/event/?delivery_status=delivered')).body.count as number;
    const pending = async () => (await api.get('/event/?delivery_status=pending')).body.count as number;
    expect(await delivered()).toBeGreaterThanOrEqual(1);
    expect(await pending()).toBeGreaterThanOrEqual(1);
    expect(await calls()).toBe(2);

    clock.advance(23 * 60 * 60_000);
    await retention();
    expect((await api.post('/transaction/', transactionBody({ notify_url: hook.url }), key)).headers.get('idempotent-replayed')).toBe('true');

    clock.advance(2 * 60 * 60_000);
    await retention();
    const again = await api.post('/transaction/', transactionBody({ notify_url: hook.url }), key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(created.body.id);
    expect(await delivered()).toBeGreaterThanOrEqual(1);
    expect(await calls()).toBe(2);

    expect(await quietEvents()).toBe(1);
    clock.advance(30 * DAY);
    await retention();
    expect(await delivered()).toBe(0);
    expect(await quietEvents()).toBe(0);
    expect(await pending()).toBeGreaterThanOrEqual(1);
    expect(await calls()).toBe(0);
    expect((await api.get(`/sale/${sale.id}/`)).status).toBe(200);
    expect((await api.get(`/transaction/${created.body.id}/`)).body.status).toBe('D');
  });

  it('deletes in batches: a round takes at most its batch', async () => {
    for (const k of ['b-1', 'b-2', 'b-3']) expect((await api.post('/transaction/', transactionBody(), { 'idempotency-key': k })).status).toBe(201);
    const db = t.service.deps.database.db;
    const later = new Date(clock.now().getTime() + 2 * DAY);
    const rounds: number[] = [];
    do rounds.push(await purgeIdempotencyKeys(db, later, 2));
    while (rounds.at(-1)! > 0);
    // Every round but the last two was full; all three keys (and any older) are gone.
    expect(rounds.slice(0, -2).every((n) => n === 2)).toBe(true);
    expect(rounds.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3);
    expect(rounds.every((n) => n <= 2)).toBe(true);
  });
});
