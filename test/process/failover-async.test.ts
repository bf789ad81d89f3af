import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIRECT_WAIT_MS } from '../../server/payments/redirect';
import { type Replicas, startReplicas } from '../api/pg-replicas';
import { back, onCheckout, toCheckout } from '../api/stripe-shop';
import { SETTLE_WINDOW_MS, useProcessorShop } from '../faults/processor-shop';
import { newTransaction, stripeProcessor } from '../faults/processors';

// Failover with asynchronous replication (issue 49, part 2; docs/operations.md "What
// reconciliation recovers after an asynchronous failover"): the primary answers a commit
// before the standby has it, so a failover loses the last commits, acknowledged ones
// included. With a processor whose books lie outside our database (the Stripe connector's
// test double, as Stripe's own do), a payment whose reservation reached the standby and
// whose result did not is proven by asking the processor: answered "paid" before the
// failover, paid after it, once. The loss is made certain rather than hoped for: the
// standby stops between the reservations and the payments, so the primary alone has the
// payments when it crashes.

const PAYMENTS = 3;

describe.skipIf(!process.env.TEST_DATABASE_URL)('a service on a primary and an asynchronous standby, Stripe connected', () => {
  let replicas: Replicas;
  beforeAll(async () => {
    replicas = await startReplicas(false);
  }, 60_000);
  afterAll(() => replicas?.remove());
  const p = stripeProcessor();
  beforeAll(() => p.start());
  afterAll(() => p.close());
  const shop = useProcessorShop('sqlite', {
    env: () => ({ ...p.env(), DATABASE_URL: replicas.url, DB_ACQUIRE_TIMEOUT_MS: '1000' }),
    connect: (api) => p.connect(api),
  });
  const statusOf = async (id: string) => (await shop.api.get(`/transaction/${id}/`)).body.status as string;

  it('proves at Stripe the payments answered "paid" whose record the failover lost: each paid, once', { timeout: 300_000 }, async () => {
    // Each transaction created and its customer sent to Stripe's page: the pay call reserved (pending), on both servers.
    const started: { id: string; page: string }[] = [];
    for (let i = 0; i < PAYMENTS; i++) {
      const tx = await newTransaction(shop.api, false);
      started.push({ id: tx.id, page: await toCheckout({ t: shop, double: p.double }, tx.token) });
    }
    await replicas.caughtUp();

    // From here the primary alone has what is written; its commits do not wait for the standby.
    await replicas.stopStandby();
    for (const { page } of started) expect((await back(await onCheckout(page, 'pay'))).headers.get('location')).toMatch(/status=D/);
    await p.double.settled();
    for (const { id } of started) expect(await statusOf(id)).toBe('D');

    const crashedAt = Date.now();
    await replicas.crashPrimary();
    await replicas.startStandby(false);
    await replicas.promote();
    // The service finds the new primary by itself; what it acknowledged there is gone: each pay call back to pending, nothing paid.
    await expect.poll(() => statusOf(started[0]!.id).catch(() => null), { timeout: 30_000, interval: 250 }).not.toBeNull();
    const servingAfterMs = Date.now() - crashedAt;
    for (const { id } of started) {
      expect(await statusOf(id)).not.toBe('D');
      expect((await shop.calls(id)).map((c) => [c.kind, c.state])).toEqual([['pay', 'pending']]);
    }

    // Reconciliation asks Stripe about each pending call once the service's clock is past the
    // customer's time on Stripe's page (a redirect's claim), then past the settle window.
    shop.advance(REDIRECT_WAIT_MS);
    await expect
      .poll(
        async () => {
          shop.advance(SETTLE_WINDOW_MS);
          return Promise.all(started.map(({ id }) => statusOf(id)));
        },
        // Generous: under the shared machine's load the job's rounds come slowly (55 s once at a
        // load average of 20, when the clock still reached the redirect's wait 12 s a poll).
        { timeout: 150_000, interval: 250 },
      )
      .toEqual(started.map(() => 'D'));
    const provenAfterMs = Date.now() - crashedAt;
    for (const { id } of started) {
      expect((await shop.calls(id)).map((c) => [c.kind, c.state])).toEqual([['pay', 'succeeded']]);
      const sales = (await shop.api.get(`/sale/?transaction_id=${id}`)).body.results as { status: string; amount: number }[];
      expect(sales.map((s) => s.status)).toEqual(['captured']);
    }
    // Charged once each at Stripe: the lookup recorded what was paid, it paid nothing again.
    const intents = [...p.double.books.paymentIntents.values()].filter((pi) => pi.status === 'succeeded');
    expect(intents).toHaveLength(PAYMENTS);
    console.log(`asynchronous failover: ${PAYMENTS} payments lost by the failover, serving again ${servingAfterMs} ms after the crash, all proven paid at ${provenAfterMs} ms`);
  });
});
