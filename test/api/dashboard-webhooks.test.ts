import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member } from './dashboard';
import { type Client, ENGINES, type TestService, transactionBody } from './harness';
import type { Receiver } from './receiver';
import { cancelToken } from './pay';
import { startWebhookService } from './webhook-service';

// Webhook deliveries in the dashboard: each place an event was sent with its last answer,
// each attempt with its status, latency and response, the body sent, and a resend that
// delivers the same event again; an event sent nowhere is no delivery and has no resend.

describe.each(ENGINES)('dashboard webhooks on %s', (engine) => {
  let t: TestService;
  let hook: Receiver;
  let close: () => Promise<void>;
  let shop: Client;

  beforeAll(async () => {
    ({ t, hook, close } = await startWebhookService(engine));
    shop = await t.newEnvironment('Shop');
  });
  afterAll(() => close?.());

  it('shows every attempt and resends an event; viewers cannot resend, other environments see nothing', async () => {
    const { browser: admin } = await member(t, shop, 'admin');
    expect((await admin.get('/dashboard/webhooks/')).text).toContain('No deliveries yet');
    const tx = (await shop.post('/transaction/', transactionBody({ notify_url: hook.url }))).body;
    expect(await cancelToken(t.url, tx.token)).toBe(200);
    hook.script(500);
    await t.service.jobs.runAll();
    await hook.waitFor(1);
    // The transaction's page names the events sent for it.
    expect((await admin.get(`/dashboard/transactions/${tx.id}/`)).text).toContain('<code class="event-type">transaction.cancelled</code></a>');
    const list = await admin.get('/dashboard/webhooks/');
    const id = /\/dashboard\/webhooks\/([0-9a-f-]{36})\//.exec(list.text)?.[1];
    expect(id).toBeDefined();
    // The row says where it went and what the last attempt answered.
    expect(list.text).toMatch(new RegExp(`transaction.cancelled</a></td><td class="url">${hook.url}</td><td>[a-z]+</td><td>1</td><td>500</td>`));
    const detail = await admin.get(`/dashboard/webhooks/${id}/`);
    expect(detail.text).toContain(hook.url);
    // Each attempt says where it went: the delivery's URL.
    expect(detail.text).toMatch(new RegExp(`data-attempt="1"><td>1</td><td class="url">${hook.url}</td><td>[^<]+</td><td>failed</td><td>500</td><td>\\d+ ms</td><td class="url">answer 500</td>`));
    expect(detail.text).toContain(tx.id);

    const { browser: viewer } = await member(t, shop, 'viewer');
    expect((await viewer.get(`/dashboard/webhooks/${id}/`)).text).not.toContain('Send again now');
    expect((await viewer.post(`/dashboard/webhooks/${id}/resend/`, {})).status).toBe(403);
    const other = await t.newEnvironment('Other');
    const { browser: stranger } = await member(t, other, 'admin');
    expect((await stranger.get(`/dashboard/webhooks/${id}/`)).status).toBe(404);
    expect((await stranger.post(`/dashboard/webhooks/${id}/resend/`, {})).status).toBe(404);
    expect((await stranger.get('/dashboard/webhooks/')).text).not.toContain(id!);

    const resent = await admin.post(`/dashboard/webhooks/${id}/resend/`, {});
    expect(resent.status).toBe(303);
    await t.service.jobs.runAll();
    const [first, second] = await hook.waitFor(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const after = await admin.get(resent.location!);
    expect(after.text).toContain('Queued');
    expect(after.text).toMatch(new RegExp(`data-attempt="2"><td>2</td><td class="url">${hook.url}</td><td>[^<]+</td><td>delivered</td><td>200</td>`));
  }, 60_000);

  it('an event with nowhere to go is not listed as a delivery, and offers nothing to send again', async () => {
    const quiet = await t.newEnvironment('Quiet shop');
    const { browser: admin } = await member(t, quiet, 'admin');
    const tx = (await quiet.post('/transaction/', transactionBody())).body;
    expect(await cancelToken(t.url, tx.token)).toBe(200);
    const event = (await quiet.get(`/event/?object_id=${tx.id}`)).body.results[0];
    expect(event.type).toBe('transaction.cancelled');
    expect((await admin.get('/dashboard/webhooks/')).text).toContain('No deliveries yet');
    const page = await admin.get(`/dashboard/webhooks/${event.id}/`);
    expect(page.text).toContain('This event was sent nowhere');
    expect(page.text).not.toContain('Send again now');
    const resend = await admin.post(`/dashboard/webhooks/${event.id}/resend/`, {});
    expect(resend.status).toBe(409);
    expect(resend.text).toContain('This event was sent nowhere');
    expect((await (await member(t, quiet, 'owner')).browser.get('/dashboard/audit/')).text).not.toContain('Sent event');
  });
});
