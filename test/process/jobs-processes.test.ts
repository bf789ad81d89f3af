import { describe, expect, it } from 'vitest';
import { priced } from '../api/pay';
import { processScope, testClock } from '../api/process';
import { createShopKeys } from '../shop-keys';
import { type Receiver, startReceiver } from '../api/receiver';

// The jobs runner with two service processes on one PostgreSQL: the expiry sweep and the
// webhook delivery both run in both, and each due item is handled once.

const { cleanup, environment, running, started } = processScope();

describe.skipIf(!process.env.TEST_DATABASE_URL)('jobs in two service processes on one PostgreSQL', () => {
  it('expire each of 60 overdue transactions once and deliver each expiry event once', { timeout: 120_000 }, async () => {
    const base = await environment('postgres', { ALLOW_PRIVATE_NOTIFY_URLS: 'true' });
    const clock = testClock(base.DATA_DIR);
    const env = { ...base, ...clock.env };
    const keys = await createShopKeys('Expiring shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const hook: Receiver = await startReceiver();
    cleanup(() => hook.close());

    // Created by a process without jobs, due a moment later.
    const creator = await started(env);
    const ids: string[] = [];
    let due = 0;
    for (let i = 0; i < 60; i++) {
      due = Date.now() + 1_000;
      const res = await fetch(`${creator.url}/v1/transaction/`, {
        method: 'POST',
        headers,
        body: JSON.stringify(priced('EUR', 1, { notify_url: hook.url, expired_date: new Date(due).toISOString() })),
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    await creator.stop();
    running.splice(0);
    // The sweep takes only transactions already past their expiry: the processes' clock is
    // moved past the last one's rather than waiting for it.
    clock.set(Math.max(0, due - Date.now()) + 1_000);

    // Both start with a round of every job at once: they race for the same rows.
    const processes = await Promise.all([started({ ...env, BACKGROUND_WORK: 'true' }), started({ ...env, BACKGROUND_WORK: 'true' })]);
    await hook.waitFor(60, 60_000);

    const events = await fetch(`${processes[0].url}/v1/event/?type=transaction.expired&page_size=100`, { headers });
    const list = (await events.json()) as { count: number; results: { data: { id: string } }[] };
    expect(list.count).toBe(60);
    expect(new Set(list.results.map((e) => e.data.id))).toEqual(new Set(ids));
    // Every event delivered, once: the delivery is recorded after the receiver's answer.
    const delivered = async () =>
      ((await (await fetch(`${processes[0].url}/v1/event/?delivery_status=delivered&page_size=1`, { headers })).json()) as { count: number }).count;
    await expect.poll(delivered, { timeout: 10_000 }).toBe(60);
    expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(hook.received.length);
  });
});
