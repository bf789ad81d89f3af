import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditOf } from '../../server/store/audit';
import { disableFailingEndpoint, getEndpoint } from '../../server/store/webhook-endpoints';
import { type Browser, member } from './dashboard';
import { type Client, ENGINES, type TestService, transactionBody } from './harness';
import { cancelToken } from './pay';
import { type Receiver, startReceiver } from './receiver';
import { startWebhookService } from './webhook-service';

// The dashboard's events and webhook endpoints over real HTTP: endpoints created, edited,
// disabled, their secret rolled and deleted through the API's own rules and events (seen by
// GET /v1/webhook_endpoint/ and GET /v1/event/), the secret shown once and never logged;
// events listed and filtered as the API lists them, one event's payload exactly as
// delivered, and a resend that delivers it again. Viewers see and cannot change; another
// environment's ids are 404s.

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'", '&amp;': '&' };
const unescape = (html: string) => html.replace(/&(lt|gt|quot|#39|#x27|amp);/g, (m) => ENTITIES[m]!);
/** The text of the event page's payload. */
const payloadOf = (html: string) => unescape(/data-testid="event-payload"><code>([\s\S]*?)<\/code>/.exec(html)![1]!);
const SECRET = /data-testid="endpoint-secret">(whsec_[A-Za-z0-9+/=]+)</;

describe.each(ENGINES)('dashboard events and webhook endpoints on %s', (engine) => {
  let t: TestService;
  let hook: Receiver;
  let endpointHook: Receiver;
  let close: () => Promise<void>;
  let shop: Client;
  let admin: Browser;
  let viewer: Browser;
  let stranger: Browser;

  beforeAll(async () => {
    ({ t, hook, close } = await startWebhookService(engine));
    endpointHook = await startReceiver();
    shop = await t.newEnvironment('Hooked shop');
    admin = (await member(t, shop, 'admin')).browser;
    viewer = (await member(t, shop, 'viewer')).browser;
    stranger = (await member(t, await t.newEnvironment('Other shop'), 'owner')).browser;
  });
  afterAll(async () => {
    await endpointHook?.close();
    await close?.();
  });

  const audit = () => auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 1000, offset: 0 });
  const endpoints = async () => (await shop.get('/webhook_endpoint/')).body.results as { id: string; url: string; description: string | null; enabled_events: string[]; enabled: boolean }[];

  it('creates, edits, disables, rolls and deletes an endpoint as the API does; the secret shows once; viewers only see', async () => {
    await admin.get('/dashboard/webhook-endpoints/new/');
    // The API's rules, named by field: no event type, '*' beside another, a URL that is not http(s).
    const none = await admin.post('/dashboard/webhook-endpoints/', { url: endpointHook.url });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Nothing was saved');
    expect(none.text).toContain('Events sent to it: ');
    const mixed = await admin.post('/dashboard/webhook-endpoints/', { url: endpointHook.url, events: ['*', 'sale.created'] });
    expect(mixed.status).toBe(400);
    expect(unescape(mixed.text)).toContain('"*" stands alone');
    const ftp = await admin.post('/dashboard/webhook-endpoints/', { url: 'ftp://shop.example/in', events: '*' });
    expect(ftp.status).toBe(400);
    expect(ftp.text).toContain('URL: ');
    expect(await endpoints()).toEqual([]);

    const made = await admin.post('/dashboard/webhook-endpoints/', { url: endpointHook.url, description: 'Orders <system>', events: 'transaction.cancelled' });
    expect(made.status, made.text.slice(0, 500)).toBe(201);
    const secret = SECRET.exec(made.text)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(made.text).toContain('Orders &lt;system');
    expect(made.text).not.toContain('<system>');
    const [endpoint] = await endpoints();
    expect(endpoint).toMatchObject({ url: endpointHook.url, description: 'Orders <system>', enabled_events: ['transaction.cancelled'], enabled: true });
    expect((await getEndpoint(t.service.deps.database.db, shop.keys.environment_id, endpoint!.id))!.secret).toBe(secret);
    expect((await shop.get(`/event/?type=webhook_endpoint.created&object_id=${endpoint!.id}`)).body.count).toBe(1);
    // Shown once: neither the list nor the endpoint's page has it again.
    const list = await admin.get('/dashboard/webhook-endpoints/');
    expect(list.text).toContain(`/dashboard/webhook-endpoints/${endpoint!.id}/`);
    expect(list.text).not.toContain(secret!);
    expect((await admin.get(`/dashboard/webhook-endpoints/${endpoint!.id}/`)).text).not.toContain(secret!);

    // Deliveries are signed with that secret.
    const tx = (await shop.post('/transaction/', transactionBody())).body;
    expect(await cancelToken(t.url, tx.token)).toBe(200);
    await t.service.jobs.runAll();
    const [delivery] = await endpointHook.waitFor(1);
    expect(new Webhook(secret!).verify(delivery!.body, delivery!.headers as Record<string, string>)).toMatchObject({ type: 'transaction.cancelled' });

    // A viewer sees, and every change is refused with nothing done.
    const seen = await viewer.get(`/dashboard/webhook-endpoints/${endpoint!.id}/`);
    expect(seen.status).toBe(200);
    expect(seen.text).not.toContain('Roll secret');
    expect((await viewer.get('/dashboard/webhook-endpoints/')).text).not.toContain('New webhook endpoint');
    expect((await viewer.get('/dashboard/webhook-endpoints/new/')).status).toBe(403);
    const before = { list: await endpoints(), secret, events: (await shop.get('/event/')).body.count, audit: (await audit()).length };
    for (const [path, form] of [
      ['/dashboard/webhook-endpoints/', { url: 'https://viewer.example/in', events: '*' }],
      [`/dashboard/webhook-endpoints/${endpoint!.id}/`, { url: 'https://viewer.example/in', events: '*' }],
      [`/dashboard/webhook-endpoints/${endpoint!.id}/enabled/`, { enabled: 'false' }],
      [`/dashboard/webhook-endpoints/${endpoint!.id}/roll/`, { overlap_hours: '0' }],
      [`/dashboard/webhook-endpoints/${endpoint!.id}/delete/`, { confirm: 'yes' }],
    ] as const) {
      expect((await viewer.post(path, form)).status, path).toBe(403);
      // An admin without the form's CSRF token is refused too.
      expect((await admin.post(path, form, { csrf: null })).status, path).toBe(403);
    }
    const current = (await getEndpoint(t.service.deps.database.db, shop.keys.environment_id, endpoint!.id))!.secret;
    expect({ list: await endpoints(), secret: current, events: (await shop.get('/event/')).body.count, audit: (await audit()).length }).toEqual(before);

    // Another environment's owner: 404 for every route of it.
    expect((await stranger.get(`/dashboard/webhook-endpoints/${endpoint!.id}/`)).status).toBe(404);
    expect((await stranger.post(`/dashboard/webhook-endpoints/${endpoint!.id}/roll/`, { overlap_hours: '0' })).status).toBe(404);

    // Edit: every field, through the API's rules.
    await admin.get(`/dashboard/webhook-endpoints/${endpoint!.id}/`);
    const refused = await admin.post(`/dashboard/webhook-endpoints/${endpoint!.id}/`, { url: endpointHook.url, description: 'Orders', events: 'nothing.happened' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Nothing was saved');
    const edited = await admin.post(`/dashboard/webhook-endpoints/${endpoint!.id}/`, { url: `${endpointHook.url}/v2`, description: '', events: ['transaction.cancelled', 'sale.created'] });
    expect(edited.status, edited.text.slice(0, 500)).toBe(303);
    expect((await admin.get(edited.location!)).text).toContain('Changes saved.');
    expect((await endpoints())[0]).toMatchObject({ url: `${endpointHook.url}/v2`, description: null, enabled_events: ['transaction.cancelled', 'sale.created'] });

    // Disable, enable.
    expect((await admin.post(`/dashboard/webhook-endpoints/${endpoint!.id}/enabled/`, { enabled: 'false' })).status).toBe(303);
    expect((await endpoints())[0]!.enabled).toBe(false);
    expect((await admin.get(`/dashboard/webhook-endpoints/${endpoint!.id}/`)).text).toContain('data-testid="endpoint-state">Disabled<');
    expect((await admin.post(`/dashboard/webhook-endpoints/${endpoint!.id}/enabled/`, { enabled: 'true' })).status).toBe(303);
    expect((await endpoints())[0]!.enabled).toBe(true);
    expect((await admin.post(`/dashboard/webhook-endpoints/${endpoint!.id}/enabled/`, { enabled: 'maybe' })).status).toBe(400);

    // Roll: a new secret, shown once; the old one signs for the window chosen.
    expect((await admin.post(`/dashboard/webhook-endpoints/${endpoint!.id}/roll/`, { overlap_hours: '999' })).status).toBe(400);
    const rolled = await admin.post(`/dashboard/webhook-endpoints/${endpoint!.id}/roll/`, { overlap_hours: '1' });
    expect(rolled.status).toBe(200);
    const second = SECRET.exec(rolled.text)?.[1];
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(secret);
    const stored = (await getEndpoint(t.service.deps.database.db, shop.keys.environment_id, endpoint!.id))!;
    expect([stored.secret, stored.previous_secret]).toEqual([second, secret]);

    // Disabled by the service after failing deliveries: the list and its page say why.
    expect(await disableFailingEndpoint(t.service.deps.database.db, endpoint!.id, new Date(Date.now() + 60_000).toISOString(), new Date())).toBe(true);
    expect((await viewer.get('/dashboard/webhook-endpoints/')).text).toContain('<td>Disabled: failing (every delivery failed for 3 days)</td>');
    expect((await viewer.get(`/dashboard/webhook-endpoints/${endpoint!.id}/`)).text).toContain('data-testid="endpoint-state">Disabled: failing');

    // Delete: asked once more, then gone, with the API's event.
    const asked = await admin.post(`/dashboard/webhook-endpoints/${endpoint!.id}/delete/`, {});
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Delete this webhook endpoint?');
    expect(await endpoints()).toHaveLength(1);
    const deleted = await admin.post(`/dashboard/webhook-endpoints/${endpoint!.id}/delete/`, { confirm: 'yes' });
    expect(deleted.status).toBe(303);
    expect((await admin.get(deleted.location!)).text).toContain('Deleted.');
    expect((await shop.get(`/webhook_endpoint/${endpoint!.id}/`)).status).toBe(404);
    const changes = (await shop.get(`/event/?object_id=${endpoint!.id}`)).body.results.map((e: { type: string }) => e.type);
    expect(changes).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.updated', 'webhook_endpoint.updated', 'webhook_endpoint.updated', 'webhook_endpoint.created']);
    // Its events stay, but no longer link to a page that is gone.
    const created = (await shop.get(`/event/?object_id=${endpoint!.id}&type=webhook_endpoint.created`)).body.results[0];
    const createdPage = await admin.get(`/dashboard/events/${created.id}/`);
    expect(createdPage.status).toBe(200);
    expect(createdPage.text).not.toContain(`href="/dashboard/webhook-endpoints/${endpoint!.id}/"`);

    // The audit log has each change, and never a secret.
    const rows = await audit();
    expect(rows.map((r) => r.action).filter((a) => a.startsWith('webhook_endpoint_')).reverse()).toEqual([
      'webhook_endpoint_created',
      'webhook_endpoint_updated',
      'webhook_endpoint_disabled',
      'webhook_endpoint_enabled',
      'webhook_endpoint_secret_rolled',
      'webhook_endpoint_deleted',
    ]);
    const logged = JSON.stringify(rows);
    expect(logged).not.toContain(secret!.slice(6));
    expect(logged).not.toContain(second!.slice(6));
    expect(logged).not.toContain('whsec_');
    // The empty list's call to action: the new endpoint's form for those who may add one; the others are told who may.
    const empty = (await admin.get('/dashboard/webhook-endpoints/')).text;
    expect(empty).toContain('No webhook endpoints yet');
    expect(empty).toContain('<a class="button primary" href="/dashboard/webhook-endpoints/new/">Add an endpoint</a>');
    expect(empty).not.toContain('New webhook endpoint');
    const emptySeen = (await viewer.get('/dashboard/webhook-endpoints/')).text;
    expect(emptySeen).toContain('Admins and owners of this environment can add one.');
    expect(emptySeen).not.toContain('/dashboard/webhook-endpoints/new/');
  }, 60_000);

  it('lists and filters events as the API does, shows one with its exact payload and deliveries, and resends it', async () => {
    const endpoint = (await shop.post('/webhook_endpoint/', { url: endpointHook.url, enabled_events: ['transaction.cancelled'] })).body;
    const orderId = `<b>"quoted" & 'odd'</b> ${Date.now()}`;
    const tx = (await shop.post('/transaction/', transactionBody({ notify_url: hook.url, order_id: orderId }))).body;
    expect(await cancelToken(t.url, tx.token)).toBe(200);
    const already = endpointHook.received.length;
    await t.service.jobs.runAll();
    const [toEndpoint] = (await endpointHook.waitFor(already + 1)).slice(already);
    const [toNotify] = await hook.waitFor(1);
    const event = (await shop.get(`/event/?type=transaction.cancelled&object_id=${tx.id}`)).body.results[0];

    // The list: newest first as GET /v1/event/ answers, by type and by object.
    const api = (await shop.get('/event/?page_size=20')).body.results.map((e: { id: string }) => e.id);
    const listed = [...(await viewer.get('/dashboard/events/')).text.matchAll(/<tr data-id="([0-9a-f-]{36})"/g)].map((m) => m[1]);
    expect(listed).toEqual(api);
    const byType = await viewer.get('/dashboard/events/?type=webhook_endpoint.created');
    expect([...byType.text.matchAll(/<tr data-id="([0-9a-f-]{36})"/g)]).toHaveLength((await shop.get('/event/?type=webhook_endpoint.created')).body.count);
    expect(byType.text).not.toContain(`data-id="${event.id}"`);
    const byObject = await viewer.get(`/dashboard/events/?object_id=${tx.id}`);
    expect([...byObject.text.matchAll(/<tr data-id="([0-9a-f-]{36})"/g)].map((m) => m[1])).toEqual([event.id]);
    const nonsense = await viewer.get('/dashboard/events/?object_id=not-an-id&type=no.such&page=-3');
    expect(nonsense.status).toBe(200);
    expect(nonsense.text).toContain('Not an id, so not applied: object.');
    expect((await viewer.get(`/dashboard/events/?object_id=${crypto.randomUUID()}`)).text).toContain('No events match these filters.');

    // One event: the object linked, the payload exactly as delivered (escaped), each delivery.
    const page = await viewer.get(`/dashboard/events/${event.id}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<a href="/dashboard/transactions/${tx.id}/">${tx.id}</a>`);
    expect(page.text).not.toContain('<b>"quoted"');
    expect(JSON.parse(payloadOf(page.text))).toEqual(JSON.parse(toNotify!.body));
    expect(JSON.parse(payloadOf(page.text))).toEqual(JSON.parse(toEndpoint!.body));
    expect(JSON.parse(payloadOf(page.text)).data.order_id).toBe(orderId);
    expect(page.text).toContain(`data-delivery="notify_url"`);
    expect(page.text).toContain(`<tr data-delivery="${endpoint.id}"><td><a href="/dashboard/webhook-endpoints/${endpoint.id}/">`);
    expect(page.text).toContain(`href="/dashboard/webhooks/${event.id}/"`);
    expect(page.text).not.toContain('Send again now');

    // The resend: as POST /v1/event/{id}/retry/ does, through the same function.
    expect((await viewer.post(`/dashboard/events/${event.id}/retry/`, { destination: endpoint.id })).status).toBe(403);
    expect((await stranger.post(`/dashboard/events/${event.id}/retry/`, { destination: endpoint.id })).status).toBe(404);
    expect((await stranger.get(`/dashboard/events/${event.id}/`)).status).toBe(404);
    expect((await stranger.get('/dashboard/events/')).text).not.toContain(event.id);
    const auditBefore = (await audit()).length;
    await admin.get(`/dashboard/events/${event.id}/`);
    expect((await admin.post(`/dashboard/events/${event.id}/retry/`, { destination: crypto.randomUUID() })).status).toBe(400);
    expect((await admin.post(`/dashboard/events/${event.id}/retry/`, { destination: 'elsewhere' })).status).toBe(400);
    expect((await audit()).length).toBe(auditBefore);
    const resent = await admin.post(`/dashboard/events/${event.id}/retry/`, { destination: endpoint.id });
    expect(resent.status).toBe(303);
    expect((await admin.get(resent.location!)).text).toContain('Queued');
    await t.service.jobs.runAll();
    const again = (await endpointHook.waitFor(already + 2))[already + 1]!;
    expect(again.headers['webhook-id']).toBe(event.id);
    // To the endpoint only: the notify_url was delivered and not named.
    expect(hook.received).toHaveLength(1);
    const counts = (await shop.get(`/event/${event.id}/`)).body.deliveries.map((d: { webhook_endpoint: string | null; attempt_count: number }) => [d.webhook_endpoint, d.attempt_count]);
    expect(counts).toEqual([[null, 1], [endpoint.id, 2]]);
    expect((await audit())[0]).toMatchObject({ action: 'event_retried', detail: JSON.stringify({ event: event.id, destination: endpoint.id }) });
    // Every destination not delivered, none here: all of them again.
    expect((await admin.post(`/dashboard/events/${event.id}/retry/`, { destination: '' })).status).toBe(303);
  }, 60_000);
});
