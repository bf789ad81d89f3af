import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { ENGINES } from '../api/harness';
import { payToken, priced, SANDBOX_CARD } from '../api/pay';
import { processScope } from '../api/process';
import { createShopKeys } from '../shop-keys';
import { type Receiver, startReceiver } from '../api/receiver';

// The outbox and its workers as real processes: a SIGKILL between the commit and the
// delivery loses nothing, and two processes on one PostgreSQL deliver each event once.
// Each run on PostgreSQL gets a database of its own, so no other test's events mix in.

const scope = processScope();
const { running, started } = scope;
const environment = (engine: string) => scope.environment(engine, { ALLOW_PRIVATE_NOTIFY_URLS: 'true' });

async function receiver(opts?: { delayMs?: number }): Promise<Receiver> {
  const r = await startReceiver(opts);
  scope.cleanup(() => r.close());
  return r;
}

describe.each(ENGINES)('outbox durability on %s', (engine) => {
  it('an event committed with the payment is delivered after a SIGKILL and a restart', { timeout: 90_000 }, async () => {
    const env = await environment(engine);
    const keys = await createShopKeys('Outbox shop', env);
    const auth = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const hook = await receiver();

    // Background work off: nothing can be delivered before the kill, so the restart must do it.
    const first = await started(env);
    const created = await fetch(`${first.url}/v1/transaction/`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(priced('EUR', 12.34, { notify_url: hook.url })),
    });
    const tx = (await created.json()) as { id: string; token: string };
    expect(await payToken(first.url, tx.token)).toBe(200);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(hook.received).toHaveLength(0);

    const second = await started({ ...env, BACKGROUND_WORK: 'true' });
    const received = await hook.waitFor(2);
    const wh = new Webhook(keys.webhook_secret);
    for (const r of received) expect(wh.verify(r.body, r.headers as Record<string, string>)).toEqual(r.payload);
    expect(received.map((r) => r.payload.type).sort()).toEqual(['sale.created', 'transaction.paid']);
    const paid = received.find((r) => r.payload.type === 'transaction.paid')!.payload;
    expect(paid.data).toMatchObject({ id: tx.id, status: 'D', total_price: 12.34 });

    const events = await fetch(`${second.url}/v1/event/`, { headers: auth });
    const list = (await events.json()) as { results: { id: string; delivery_status: string }[] };
    for (const e of list.results) {
      const detail = async () => (await (await fetch(`${second.url}/v1/event/${e.id}/`, { headers: auth })).json()) as { delivery_status: string; attempt_count: number };
      // The worker records a delivery once the receiver has answered: just after the receipt.
      await expect.poll(detail, { timeout: 5_000 }).toMatchObject({ delivery_status: 'delivered', attempt_count: 1 });
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('two service processes on one PostgreSQL', () => {
  afterAll(async () => {
    for (const p of running.splice(0)) await p.stop();
  });

  it('deliver each of 200 events exactly once', { timeout: 120_000 }, async () => {
    const env = { ...(await environment('postgres')), BACKGROUND_WORK: 'true' };
    const keys = await createShopKeys('Busy shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    // A receiver that takes a moment per request, so both processes find work waiting.
    const hook = await receiver({ delayMs: 50 });
    const processes = [await started(env), await started(env)];

    // 200 stored cards with a notify_url: one authorization.created event each.
    let next = 0;
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        while (next < 200) {
          next++;
          const res = await fetch(`${processes[worker % 2]!.url}/v1/authorization/`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              gateway: SANDBOX_CARD,
              card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'A' },
              notify_url: hook.url,
            }),
          });
          expect(res.status).toBe(201);
          ids.push(((await res.json()) as { id: string }).id);
        }
      }),
    );
    expect(ids).toHaveLength(200);
    await hook.waitFor(200, 60_000);
    const delivered = async () =>
      ((await (await fetch(`${processes[0]!.url}/v1/event/?delivery_status=delivered&page_size=1`, { headers })).json()) as { count: number }).count;
    await expect.poll(delivered, { timeout: 10_000 }).toBe(200);
    // Stopped (SIGTERM: each finishes what it started and takes nothing new), so every
    // delivery that will ever happen has happened: a duplicate would be here now.
    for (const p of processes) await p.stop();
    expect(hook.received).toHaveLength(200);
    expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(200);
    expect(new Set(hook.received.map((r) => r.payload.data.id))).toEqual(new Set(ids));

    const attemptsBy = processes.map((p) => p.output.filter((line) => line.includes('"notification attempt"')).length);
    expect(attemptsBy[0]! + attemptsBy[1]!).toBe(200);
    expect(attemptsBy[0], `split ${attemptsBy}`).toBeGreaterThan(0);
    expect(attemptsBy[1], `split ${attemptsBy}`).toBeGreaterThan(0);
  });
});
