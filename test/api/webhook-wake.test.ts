import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs/names';
import { type Client, ENGINES, type TestService } from './harness';
import type { Receiver } from './receiver';
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
    ({ t, hook, close } = await startWebhookService(engine, { background: true, env: { JOB_PERIODS: `${JOB_NAMES.delivery}=${PERIOD_MS}` } }));
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
});
