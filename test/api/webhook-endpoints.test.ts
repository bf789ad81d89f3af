import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { type Client, ENGINES, problemPaths, startTestService, type TestService } from './harness';
import { cancelToken, paidTransaction, priced } from './pay';
import { type Receiver, startReceiver } from './receiver';
import { startWebhookService } from './webhook-service';

// Webhook endpoints end to end: every event of the environment goes to each endpoint that
// takes its type (and, as before, to the object's notify_url), signed with the endpoint's
// own secret; a rolled secret signs beside the new one for its overlap; an endpoint that
// fails for 3 days is disabled with an event; retries go to the failed destinations or
// the one named. Signatures are checked with the `standardwebhooks` package.

const MIN = 60_000;
const H = 60 * MIN;

const headersOf = (r: { headers: unknown }) => r.headers as Record<string, string>;

describe.each(ENGINES)('webhook endpoints on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let hook: Receiver;
  let all: Receiver;
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const deliver = async () => (await t.service.jobs.runAll())[JOB_NAMES.delivery]!;
  let stop: () => Promise<void>;
  /** Verifies as a receiver whose clock is the service's (moved forward by the test). */
  const verify = (secret: string, r: { body: string; headers: unknown }) => {
    const at = now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at);
    try {
      return new Webhook(secret).verify(r.body, headersOf(r));
    } finally {
      vi.useRealTimers();
    }
  };

  beforeAll(async () => {
    ({ t, hook, close: stop } = await startWebhookService(engine, { now }));
    all = await startReceiver();
  });
  afterAll(async () => {
    await stop();
    await all.close();
  });
  beforeEach(async () => {
    offset = 0;
    api = await t.newEnvironment();
    await deliver();
    for (const r of [hook, all]) {
      r.received.length = 0;
      r.script();
    }
  });

  const endpoint = async (url: string, enabled_events: string[], extra: Record<string, unknown> = {}) => {
    const res = await api.post('/webhook_endpoint/', { url, enabled_events, ...extra });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; secret: string; url: string; enabled_events: string[] };
  };

  it('creates, lists, reads, changes and deletes endpoints; the secret is shown once', async () => {
    const made = await endpoint('https://shop.example/hooks', ['transaction.paid', 'sale.refunded'], { description: 'Orders' });
    expect(made).toMatchObject({ enabled: true, description: 'Orders', disabled_reason: null, secret_rolled_until: null });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await api.get(`/webhook_endpoint/${made.id}/`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body).toEqual(Object.fromEntries(Object.entries(made).filter(([k]) => k !== 'secret')));
    const list = await api.get('/webhook_endpoint/');
    expect(list.body.results.map((e: { id: string }) => e.id)).toEqual([made.id]);
    expect(list.body.results[0]).not.toHaveProperty('secret');

    const changed = await api.patch(`/webhook_endpoint/${made.id}/`, { enabled_events: ['*'], enabled: false });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ enabled_events: ['*'], enabled: false, url: made.url, description: 'Orders' });
    // Each change of an endpoint is an event too.
    const types = (await api.get(`/event/?object_id=${made.id}`)).body.results.map((e: { type: string }) => e.type);
    expect(types).toEqual(['webhook_endpoint.updated', 'webhook_endpoint.created']);
    expect((await api.request('DELETE', `/webhook_endpoint/${made.id}/`)).status).toBe(204);
    expect((await api.get(`/webhook_endpoint/${made.id}/`)).status).toBe(404);
    const deleted = (await api.get(`/event/?object_id=${made.id}&type=webhook_endpoint.deleted`)).body.results[0];
    expect(deleted.data).toMatchObject({ id: made.id, enabled_events: ['*'] });
    expect(deleted.data).not.toHaveProperty('secret');
  });

  it('refuses unknown event types, "*" beside others, duplicates and bad URLs, naming the field', async () => {
    const bad: [unknown, string][] = [
      [{ url: 'https://shop.example/h', enabled_events: ['transaction.payed'] }, 'enabled_events.0'],
      [{ url: 'https://shop.example/h', enabled_events: ['*', 'sale.created'] }, 'enabled_events'],
      [{ url: 'https://shop.example/h', enabled_events: ['sale.created', 'sale.created'] }, 'enabled_events'],
      [{ url: 'https://shop.example/h', enabled_events: [] }, 'enabled_events'],
      [{ url: 'ftp://shop.example/h', enabled_events: ['*'] }, 'url'],
      // A password would be shown wherever the endpoint is (its events, the API, the dashboard).
      [{ url: 'https://hookuser:S3cretPassw0rd@hooks.example/in', enabled_events: ['*'] }, 'url'],
      [{ url: 'https://shop.example/h', enabled_events: ['*'], secret: 'whsec_mine' }, ''],
    ];
    for (const [body, path] of bad) {
      const res = await api.post('/webhook_endpoint/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(problemPaths(res).join(' '), JSON.stringify(body)).toContain(path);
    }
    expect((await api.count('/webhook_endpoint/'))).toBe(0);
  });

  it('every event goes to each endpoint that takes it and to the notify_url, each signed with its own secret', async () => {
    const paidOnly = await endpoint(hook.url.replace('/hooks', '/paid'), ['transaction.paid']);
    const everything = await endpoint(all.url, ['*']);
    const { transaction, sale } = await paidTransaction(api, priced('EUR', 10, { notify_url: hook.url }));
    // notify_url: transaction.paid and sale.created; "paid only": transaction.paid; "*": both.
    expect(await deliver()).toBe(5);
    expect(hook.received).toHaveLength(3);
    expect(all.received.map((r) => r.payload.type).sort()).toEqual(['sale.created', 'transaction.paid']);

    const envSecret = new Webhook(api.keys.webhook_secret);
    const paidSecret = new Webhook(paidOnly.secret);
    const allSecret = new Webhook(everything.secret);
    for (const r of all.received) {
      expect(allSecret.verify(r.body, headersOf(r))).toEqual(r.payload);
      expect(() => envSecret.verify(r.body, headersOf(r))).toThrow();
    }
    // The receiver of hook.url also listens on /paid: which secret verifies says which delivery it was.
    const verifiedBy = hook.received.map((r) => {
      const ok = (w: Webhook) => {
        try {
          w.verify(r.body, headersOf(r));
          return true;
        } catch {
          return false;
        }
      };
      return `${r.payload.type}:${ok(envSecret) ? 'env' : ''}${ok(paidSecret) ? 'paid' : ''}`;
    });
    expect(verifiedBy.sort()).toEqual(['sale.created:env', 'transaction.paid:env', 'transaction.paid:paid']);

    const event = (await api.get(`/event/?object_id=${transaction.id}`)).body.results[0];
    expect(event).toMatchObject({ type: 'transaction.paid', notify_url: hook.url, delivery_status: 'delivered', attempt_count: 1 });
    expect(event.deliveries.map((d: { destination: string; webhook_endpoint: string | null; delivery_status: string }) => [d.destination, d.webhook_endpoint, d.delivery_status])).toEqual([
      ['notify_url', null, 'delivered'],
      ['webhook_endpoint', paidOnly.id, 'delivered'],
      ['webhook_endpoint', everything.id, 'delivered'],
    ]);
    // Every destination got the same bytes under the same webhook-id.
    const bodies = [...hook.received, ...all.received].filter((r) => r.payload.type === 'transaction.paid');
    expect(new Set(bodies.map((r) => r.body)).size).toBe(1);
    expect(new Set(bodies.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
    const detail = (await api.get(`/event/${event.id}/`)).body;
    expect(detail.attempts).toHaveLength(3);
    expect(new Set(detail.attempts.map((a: { delivery: string }) => a.delivery))).toEqual(new Set(event.deliveries.map((d: { id: string }) => d.id)));
    // An object without a notify_url: to the endpoints only.
    const saleEvent = (await api.get(`/event/?object_id=${sale.id}`)).body.results[0];
    expect(saleEvent.deliveries.map((d: { webhook_endpoint: string | null }) => d.webhook_endpoint)).toEqual([null, everything.id]);
  });

  it('a disabled or deleted endpoint receives nothing; events of objects without a notify_url still reach the others', async () => {
    await endpoint(hook.url, ['*'], { enabled: false });
    const gone = await endpoint(hook.url, ['*']);
    const on = await endpoint(all.url, ['transaction.cancelled']);
    expect((await api.request('DELETE', `/webhook_endpoint/${gone.id}/`)).status).toBe(204);
    const created = await api.post('/transaction/', priced('EUR', 3));
    await cancelToken(api.url, created.body.token);
    await deliver();
    expect(hook.received).toHaveLength(0);
    expect(all.received.map((r) => r.payload.type)).toEqual(['transaction.cancelled']);
    expect(new Webhook(on.secret).verify(all.received[0]!.body, headersOf(all.received[0]!))).toMatchObject({ data: { id: created.body.id } });
  });

  it('a rolled secret signs beside the new one for its overlap, then the new one alone', async () => {
    const made = await endpoint(all.url, ['transaction.cancelled']);
    const rolled = await api.post(`/webhook_endpoint/${made.id}/roll_secret/`, { overlap_hours: 2 });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(made.secret);
    expect(Date.parse(rolled.body.secret_rolled_until) - now().getTime()).toBeGreaterThan(2 * H - MIN);
    expect((await api.get(`/webhook_endpoint/${made.id}/`)).body).not.toHaveProperty('secret');

    const cancel = async () => {
      const created = await api.post('/transaction/', priced('EUR', 3));
      await cancelToken(api.url, created.body.token);
      await deliver();
      return all.received.at(-1)!;
    };
    const during = await cancel();
    expect(headersOf(during)['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(made.secret).verify(during.body, headersOf(during))).toEqual(during.payload);
    expect(new Webhook(rolled.body.secret).verify(during.body, headersOf(during))).toEqual(during.payload);

    offset += 2 * H + MIN;
    const after = await cancel();
    expect(headersOf(after)['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verify(rolled.body.secret, after)).toEqual(after.payload);
    expect(() => verify(made.secret, after)).toThrow(/signature/i);
  });

  it('a delivered attempt marks its endpoint as delivered to, which the 3-day rule reads; a refused attempt does not', async () => {
    const delivered = await endpoint(hook.url, ['transaction.cancelled']);
    const failing = await endpoint(all.url, ['transaction.cancelled']);
    // 410: stopped at once, so no retry of it is left for the tests after this one.
    all.script(410);
    const lastDelivery = async (id: string) =>
      (await t.service.deps.database.db.selectFrom('webhook_endpoints').select('last_delivered_at').where('id', '=', id).executeTakeFirstOrThrow()).last_delivered_at;
    const created = await api.post('/transaction/', priced('EUR', 3));
    await cancelToken(api.url, created.body.token);
    const before = now().toISOString();
    expect(await deliver()).toBe(2);
    const after = now().toISOString();
    const marked = await lastDelivery(delivered.id);
    expect(marked! >= before && marked! <= after, `${before} ≤ ${marked} ≤ ${after}`).toBe(true);
    expect(await lastDelivery(failing.id)).toBeNull();
  });

  it('retries an endpoint for 3 days, then disables it with an event; a retry goes to the failed destinations or the one named', async () => {
    const failing = await endpoint(all.url, ['transaction.cancelled']);
    const watcher = await endpoint(hook.url.replace('/hooks', '/watch'), ['webhook_endpoint.disabled']);
    const created = await api.post('/transaction/', priced('EUR', 3, { notify_url: hook.url }));
    await cancelToken(api.url, created.body.token);
    const id = (await api.get(`/event/?object_id=${created.body.id}`)).body.results[0].id as string;
    all.script(...Array<number>(10).fill(500));
    const first = now().getTime();
    const delivery = async () =>
      ((await api.get(`/event/${id}/`)).body.deliveries as { webhook_endpoint: string | null; delivery_status: string; attempt_count: number; next_attempt: string | null }[]).find(
        (d) => d.webhook_endpoint === failing.id,
      )!;
    for (let i = 0; i < 10; i++) {
      await deliver();
      const d = await delivery();
      expect(d.attempt_count, `attempt ${i + 1}`).toBe(i + 1);
      if (d.next_attempt) offset += Date.parse(d.next_attempt) - now().getTime() + 1;
    }
    const d = await delivery();
    expect(d).toMatchObject({ delivery_status: 'failed', attempt_count: 10, next_attempt: null });
    // At least 3 days, whatever the jitter.
    expect(now().getTime() - first).toBeGreaterThan(72 * H);
    // The notify_url had its own delivery, delivered at once.
    expect((await api.get(`/event/${id}/`)).body).toMatchObject({ delivery_status: 'delivered', attempt_count: 1 });

    const disabled = (await api.get(`/webhook_endpoint/${failing.id}/`)).body;
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    const told = (await api.get(`/event/?type=webhook_endpoint.disabled`)).body.results;
    expect(told).toHaveLength(1);
    expect(told[0].data).toMatchObject({ id: failing.id, enabled: false, disabled_reason: 'failing' });
    await deliver();
    const notice = hook.received.find((r) => r.payload.type === 'webhook_endpoint.disabled')!;
    expect(verify(watcher.secret, notice)).toMatchObject({ data: { id: failing.id } });

    // A retry without a body names what failed: only the endpoint, disabled, which would be sent
    // nothing: a 409, and its delivery stays as it was (failed), not the notify_url's either.
    const before = hook.received.length;
    const retried = await api.post(`/event/${id}/retry/`, undefined);
    expect(retried.status).toBe(409);
    expect((await api.post(`/event/${id}/retry/`, { destination: failing.id })).status).toBe(409);
    await deliver();
    expect((await delivery()).delivery_status).toBe('failed');
    expect(hook.received).toHaveLength(before);

    // Enabled again, its URL moved meanwhile, named in the body: delivered, to where it is now.
    expect((await api.patch(`/webhook_endpoint/${failing.id}/`, { enabled: true, url: hook.url.replace('/hooks', '/moved') })).body).toMatchObject({ enabled: true, disabled_reason: null });
    const atOldUrl = all.received.length;
    expect((await api.post(`/event/${id}/retry/`, { destination: failing.id })).status).toBe(200);
    await deliver();
    expect(await delivery()).toMatchObject({ delivery_status: 'delivered', attempt_count: 11 });
    expect(all.received).toHaveLength(atOldUrl);
    expect(hook.received.filter((r) => r.payload.id === id && r.payload.type === 'transaction.cancelled')).toHaveLength(2);
    expect(((await api.get(`/event/${id}/`)).body.deliveries as { webhook_endpoint: string | null; url: string }[]).find((x) => x.webhook_endpoint === failing.id)!.url).toBe(hook.url.replace('/hooks', '/moved'));
    // The notify_url, named: once more, though it was delivered.
    expect((await api.post(`/event/${id}/retry/`, { destination: 'notify_url' })).body.delivery_status).toBe('pending');
    await deliver();
    expect(hook.received.filter((r) => r.payload.id === id)).toHaveLength(3);
    const unknown = await api.post(`/event/${id}/retry/`, { destination: '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e' });
    expect(unknown.status).toBe(400);
    expect(problemPaths(unknown)).toEqual(['destination']);
  });

  it('every change of a catalogue object is an event, delivered to the endpoints that take it', async () => {
    const made = await endpoint(all.url, ['product.created', 'product.updated', 'product.deleted', 'coupon.created']);
    const product = (await api.post('/product/', { name: 'Mug', price: 12.5, currency: 'EUR' })).body;
    const changed = (await api.patch(`/product/${product.id}/`, { price: 13 })).body;
    expect((await api.request('DELETE', `/product/${product.id}/`)).status).toBe(204);
    const coupon = (await api.post('/coupon/', { name: 'Ten', kind: 'percent', value: 10 })).body;
    const tax = (await api.post('/tax/', { name: 'VAT', rate: 21 })).body;
    const events = (await api.get(`/event/?object_id=${product.id}`)).body.results.reverse();
    expect(events.map((e: { type: string }) => e.type)).toEqual(['product.created', 'product.updated', 'product.deleted']);
    expect(events.map((e: { data: unknown }) => e.data)).toEqual([product, changed, changed]);
    // Not taken by the endpoint: recorded, delivered nowhere.
    expect((await api.get(`/event/?object_id=${tax.id}`)).body.results[0]).toMatchObject({ type: 'tax.created', data: tax, deliveries: [] });
    expect(await deliver()).toBe(4);
    expect(all.received.map((r) => r.payload.type)).toEqual(expect.arrayContaining(['product.created', 'product.updated', 'product.deleted', 'coupon.created']));
    const couponEvent = all.received.find((r) => r.payload.type === 'coupon.created')!;
    expect(verify(made.secret, couponEvent)).toMatchObject({ data: coupon });
    // A failed change is no event.
    expect((await api.patch(`/product/${product.id}/`, { price: 1 })).status).toBe(404);
    expect((await api.get(`/event/?object_id=${product.id}`)).body.count).toBe(3);
  });

  it('lists events by when they were created', async () => {
    const created = await api.post('/transaction/', priced('EUR', 3));
    await cancelToken(api.url, created.body.token);
    offset += 2 * H;
    const later = await api.post('/transaction/', priced('EUR', 4));
    await cancelToken(api.url, later.body.token);
    const at = (await api.get(`/event/?object_id=${later.body.id}`)).body.results[0].created as string;
    const from = new Date(Date.parse(at) - H).toISOString();
    expect((await api.get(`/event/?created_from=${encodeURIComponent(from)}`)).body.results.map((e: { data: { id: string } }) => e.data.id)).toEqual([later.body.id]);
    expect((await api.get(`/event/?created_to=${encodeURIComponent(from)}`)).body.results.map((e: { data: { id: string } }) => e.data.id)).toEqual([created.body.id]);
    // An offset is read as the instant it names.
    expect((await api.get(`/event/?created_from=${encodeURIComponent(from.replace('Z', '+00:00'))}`)).body.count).toBe(1);
    const bad = await api.get('/event/?created_from=yesterday');
    expect(bad.status).toBe(400);
    expect(problemPaths(bad)).toEqual(['query.created_from']);
  });
});

describe.each(ENGINES)('webhook endpoint URLs on %s', (engine) => {
  let t: TestService;
  let api: Client;
  beforeAll(async () => {
    t = await startTestService(engine, { env: { ALLOW_PRIVATE_NOTIFY_URLS: 'false' } });
    api = await t.newEnvironment();
  });
  afterAll(() => t.close());

  it('refuses loopback and private URLs as notify_url does, naming the setting', async () => {
    for (const url of ['http://127.0.0.1:3000/hooks', 'http://localhost/hooks', 'http://[::1]/h', 'http://10.0.0.8/h']) {
      const res = await api.post('/webhook_endpoint/', { url, enabled_events: ['*'] });
      expect(res.status, url).toBe(400);
      expect(problemPaths(res)).toEqual(['url']);
      expect(res.body.detail).toMatch(/ALLOW_PRIVATE_NOTIFY_URLS/);
    }
    const made = await api.post('/webhook_endpoint/', { url: 'https://shop.example/hooks', enabled_events: ['*'] });
    expect(made.status).toBe(201);
    const patched = await api.patch(`/webhook_endpoint/${made.body.id}/`, { url: 'http://192.168.1.2/h' });
    expect(patched.status).toBe(400);
    expect(problemPaths(patched)).toEqual(['url']);
  });
});
