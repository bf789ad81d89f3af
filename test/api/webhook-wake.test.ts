import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs/names';
import { type Client, ENGINES, type TestService } from './harness';
import { type Receiver, startReceiver } from './receiver';
import { startWebhookService } from './webhook-service';

// A change's webhooks go out as soon as it commits: the outbox wakes the delivery job
// (jobs/runner.ts wake) once the change's transaction has committed (store/db.ts
// afterCommit), rather than the deliveries waiting for the job's next poll. The job's
// period here is ten minutes: a webhook that arrives came from the wake.

const PERIOD_MS = 600_000;

describe.each(ENGINES)('webhooks sent as their change commits on %s', (engine) => {
  let t: TestService;
  let hook: Receiver;
  let api: Client;
  let close: () => Promise<void>;
  beforeAll(async () => {
    // A receiver's whole timeout is far longer than a delivery takes: one that used it up would show.
    ({ t, hook, close } = await startWebhookService(engine, { background: true, env: { JOB_PERIODS: `${JOB_NAMES.delivery}=${PERIOD_MS}`, WEBHOOK_TIMEOUT_MS: '30000' } }));
    api = await t.newEnvironment();
  });
  afterAll(() => close?.());

  it('a change whose transaction commits is delivered without waiting for the next poll, and each change once', { timeout: 30_000 }, async () => {
    const endpoint = await api.post('/webhook_endpoint/', { url: hook.url, enabled_events: ['product.created'] });
    expect(endpoint.status, endpoint.text).toBe(201);
    const names = ['Mug', 'Cup', 'Plate'];
    for (const name of names) expect((await api.post('/product/', { name, price: 1, currency: 'EUR' })).status).toBe(201);
    // Far sooner than the period; a delivery left to the poll would fail here.
    const received = await hook.waitFor(names.length, 20_000);
    expect(received.map((r) => [r.payload.type, r.payload.data.name]).sort()).toEqual(names.map((n) => ['product.created', n]).sort());
  });

  it("a receiver that does not answer holds up no other environment's webhooks: they arrive while it hangs", { timeout: 60_000 }, async () => {
    const slow = await startReceiver();
    try {
      slow.script('hang');
      const stalled = await t.newEnvironment('Stalled');
      expect((await stalled.post('/webhook_endpoint/', { url: slow.url, enabled_events: ['product.created'] })).status).toBe(201);
      expect((await api.post('/webhook_endpoint/', { url: hook.url, enabled_events: ['tax.created'] })).status).toBe(201);
      expect((await stalled.post('/product/', { name: 'Held', price: 1, currency: 'EUR' })).status).toBe(201);
      await slow.waitFor(1);
      const before = hook.received.length;
      expect((await api.post('/tax/', { name: 'VAT', rate: 21 })).status).toBe(201);
      const [arrived] = (await hook.waitFor(before + 1, 40_000)).slice(before);
      expect(arrived!.payload.type).toBe('tax.created');
      // Arrived while the other receiver still hangs: its attempt is not over, so not recorded.
      const held = (await stalled.get('/event/?type=product.created')).body.results[0];
      expect(held.deliveries.map((d: { attempt_count: number }) => d.attempt_count)).toEqual([0]);
    } finally {
      await slow.close();
    }
  });
});
