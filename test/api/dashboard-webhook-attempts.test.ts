import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditOf } from '../../server/store/audit';
import { type Browser, member } from './dashboard';
import { type Client, ENGINES, type TestService } from './harness';
import type { Receiver } from './receiver';
import { startWebhookService } from './webhook-service';

// A webhook endpoint's page in the dashboard (issue 47, Developers): its attempts newest
// first, each with its event, result, HTTP status or error, duration and the start of the
// answer (escaped), a page at a time; and "Send again" on a failed one, which queues that
// event's delivery to this endpoint through the event page's resend (the API's retry):
// admins only, with the CSRF token, not while an attempt is in progress, audited. The service's clock is the test's and moves
// 10 ms per round of the jobs: the newest attempt is the one made last, and no failed
// delivery's own retry (5 s on) falls due while the file runs.

const ROW = /<tr data-attempt="([0-9a-f-]{36})" data-result="([a-z]+)">(.*?)<\/tr>/g;
const rowsOf = (html: string) => [...html.matchAll(ROW)].map(([, id, result, cells]) => ({ id: id!, result: result!, cells: cells! }));

describe.each(ENGINES)('a webhook endpoint’s attempts on %s', (engine) => {
  let t: TestService;
  let hook: Receiver;
  let close: () => Promise<void>;
  let clock = Date.parse('2026-03-02T09:00:00Z');
  const tick = () => (clock += 10);
  /** One round of every job, 10 ms after the last. */
  const deliver = async () => {
    tick();
    await t.service.jobs.runAll();
  };

  beforeAll(async () => {
    ({ t, hook, close } = await startWebhookService(engine, { now: () => new Date(clock) }));
  });
  afterAll(() => close?.());

  async function shopWithEndpoint(name: string): Promise<{ shop: Client; endpoint: string; admin: Browser }> {
    const shop = await t.newEnvironment(name);
    const created = await shop.post('/webhook_endpoint/', { url: hook.url, enabled_events: ['product.created'] });
    expect(created.status).toBe(201);
    return { shop, endpoint: created.body.id, admin: (await member(t, shop, 'admin')).browser };
  }

  const product = async (shop: Client, name: string) => expect((await shop.post('/product/', { name, price: 3, currency: 'EUR' })).status).toBe(201);

  it('lists each attempt with its event, result, status or error, duration and the answer’s start escaped; others’ are not shown', async () => {
    const { shop, endpoint, admin } = await shopWithEndpoint('Attempts shop');
    const page = `/dashboard/webhook-endpoints/${endpoint}/`;
    expect((await admin.get(page)).text).toContain('Nothing sent to this endpoint yet');
    const answer = `<script>alert("merchant")</script>${'x'.repeat(200)}`;
    hook.script({ status: 500, body: answer });
    await product(shop, 'Mug');
    await deliver();
    const event = (await shop.get('/event/?type=product.created')).body.results[0];
    const html = (await admin.get(page)).text;
    const [row, ...more] = rowsOf(html);
    expect(more).toEqual([]);
    expect(row!.result).toBe('failed');
    // When (the account's time zone: UTC here), the event linked to its page, the result, the status, the duration, the answer cut at 120 characters.
    // Escaped as Preact escapes text: no tag can open (`>` alone is harmless text).
    const cut = answer.slice(0, 120).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;');
    expect(row!.cells).toMatch(
      new RegExp(
        `^<td><time datetime="${new Date(clock).toISOString()}">[^<]+</time></td><td><a href="/dashboard/events/${event.id}/"><code>product.created</code></a></td><td>Failed</td><td class="url">500</td><td>\\d+ ms</td><td class="url">${cut.replace(/[()]/g, '\\$&')}…</td><td><form `,
      ),
    );
    expect(html).not.toContain('<script>alert');
    // The same shop's other endpoint, which refuses connections, says why there was no status.
    const closed = await shop.post('/webhook_endpoint/', { url: 'http://127.0.0.1:9/hooks', enabled_events: ['product.created'] });
    await product(shop, 'Jug');
    await deliver();
    const [refused] = rowsOf((await admin.get(`/dashboard/webhook-endpoints/${closed.body.id}/`)).text);
    expect(refused!.cells).toMatch(/<td>Failed<\/td><td class="url">ECONNREFUSED[^<]*<\/td><td>\d+ ms<\/td><td class="url">—<\/td>/);
    // Another environment's endpoint, to the same receiver: its attempts are its own, and this one's page is not its to see.
    const other = await shopWithEndpoint('Other attempts shop');
    hook.script({ status: 500, body: 'other shop answer' });
    await product(other.shop, 'Cup');
    await deliver();
    const mine = (await admin.get(page)).text;
    // Mug's and Jug's: nothing of the other shop's.
    expect(rowsOf(mine)).toHaveLength(2);
    expect(mine).not.toContain('other shop answer');
    expect(rowsOf((await other.admin.get(`/dashboard/webhook-endpoints/${other.endpoint}/`)).text)).toHaveLength(1);
    expect((await other.admin.get(page)).status).toBe(404);
  });

  it('pages the attempts newest first from the last one shown', async () => {
    const { shop, endpoint, admin } = await shopWithEndpoint('Busy attempts shop');
    const page = `/dashboard/webhook-endpoints/${endpoint}/`;
    for (let i = 0; i < 23; i++) await product(shop, `Mug ${i}`);
    // Two rounds, 10 ms apart: a round may deliver 20 (then the next the other 3) or all.
    await deliver();
    await deliver();
    const first = (await admin.get(page)).text;
    const newest = rowsOf(first);
    expect(newest).toHaveLength(20);
    expect(first).not.toContain('Newest attempts');
    const older = new RegExp(`href="${page}\\?before=${newest.at(-1)!.id}#attempts">Older attempts</a>`);
    expect(first).toMatch(older);
    const second = (await admin.get(`${page}?before=${newest.at(-1)!.id}`)).text;
    const rest = rowsOf(second);
    expect(rest).toHaveLength(3);
    expect(second).toContain(`href="${page}#attempts">Newest attempts</a>`);
    expect(second).not.toContain('Older attempts');
    const ids = [...newest, ...rest].map((r) => r.id);
    expect(new Set(ids).size).toBe(23);
    // Newest first across both pages: by time, and by id (UUIDv7) within one moment.
    const times = [...`${first}${second}`.matchAll(/<tr data-attempt="([^"]+)"[^>]*><td><time datetime="([^"]+)"/g)].map((m) => `${m[2]} ${m[1]}`);
    expect(times).toHaveLength(23);
    expect(times).toEqual([...times].sort().reverse());
    // A cursor that is not one of this endpoint's attempts starts from the newest.
    expect(rowsOf((await admin.get(`${page}?before=0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e`)).text).map((r) => r.id)).toEqual(newest.map((r) => r.id));
  });

  it('sends a failed attempt’s delivery again: it reaches the receiver; viewers, a post without the token, other environments and an attempt in progress are refused', async () => {
    const { shop, endpoint, admin } = await shopWithEndpoint('Retry shop');
    const page = `/dashboard/webhook-endpoints/${endpoint}/`;
    const before = hook.received.length;
    hook.script(500);
    await product(shop, 'Lamp');
    await deliver();
    const [failed] = rowsOf((await admin.get(page)).text);
    expect(failed!.result).toBe('failed');
    const retry = `${page}attempts/${failed!.id}/retry/`;
    expect(failed!.cells).toContain(`<form method="post" action="${retry}">`);
    expect(failed!.cells).toContain('Send again');

    const { browser: viewer } = await member(t, shop, 'viewer');
    const seen = (await viewer.get(page)).text;
    expect(rowsOf(seen)).toHaveLength(1);
    expect(seen).not.toContain('Send again');
    expect((await viewer.post(retry, {})).status).toBe(403);
    await admin.get(page);
    expect((await admin.post(retry, {}, { csrf: null })).status).toBe(403);
    const stranger = (await shopWithEndpoint('Stranger retry shop')).admin;
    expect((await stranger.post(retry, {})).status).toBe(404);
    // An attempt of another endpoint named under this one: not this endpoint's.
    const other = await shop.post('/webhook_endpoint/', { url: hook.url, enabled_events: ['plan.created'] });
    expect((await admin.post(`/dashboard/webhook-endpoints/${other.body.id}/attempts/${failed!.id}/retry/`, {})).status).toBe(404);
    // None of them queued anything.
    await deliver();
    expect(hook.received.length).toBe(before + 1);

    // While a worker holds the delivery (its claim's lease unexpired), the resend is refused and says why.
    const db = t.service.deps.database.db;
    const held = (until: string | null) => db.updateTable('event_deliveries').set({ locked_until: until }).where('endpoint_id', '=', endpoint).execute();
    await held(new Date(clock + 60_000).toISOString());
    await admin.get(page);
    const busy = await admin.post(retry, {});
    expect(busy.status).toBe(409);
    expect(busy.text).toContain('An attempt of this event to this endpoint is in progress');
    await held(null);
    await admin.get(page);
    const sent = await admin.post(retry, {});
    expect(sent.status).toBe(303);
    expect(sent.location).toBe(`${page}?done=resent`);
    expect((await admin.get(sent.location!)).text).toContain('Queued: the event is sent to this endpoint again within seconds');
    await deliver();
    const arrivals = await hook.waitFor(before + 2);
    expect(arrivals.at(-1)!.headers['webhook-id']).toBe(arrivals.at(-2)!.headers['webhook-id']);
    const [again, first] = rowsOf((await admin.get(page)).text);
    expect(again!.result).toBe('delivered');
    expect(again!.cells).toContain('<td class="url">200</td>');
    expect(first!.id).toBe(failed!.id);
    const audit = await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 10, offset: 0 });
    expect(audit.filter((a) => a.action === 'event_retried').map((a) => JSON.parse(a.detail!))).toEqual([{ event: arrivals.at(-1)!.payload.id, destination: endpoint }]);
  });
});
