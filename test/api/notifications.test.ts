import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { updateEnvironment } from '../../server/store/environments';
import { type Client, ENGINES, problemPaths, startTestService, type TestService } from './harness';
import { cancelToken, paidTransaction, priced, SANDBOX_CARD } from './pay';
import type { Receiver } from './receiver';
import { startWebhookService } from './webhook-service';

// Notifications end to end: the outbox rows the changes write, the signed POSTs the
// worker makes, and the retry schedule, run by hand (runOnce) under an injected clock.
// Signatures are checked with the `standardwebhooks` package, an independent verifier.

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

describe.each(ENGINES)('notifications on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let hook: Receiver;
  /** The service's clock is real time shifted by this much. */
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  /** One round of every job: the expiry sweep, then delivery. */
  const run = async () => {
    const done = await t.service.jobs.runAll();
    return { expired: done[JOB_NAMES.expiry]!, attempts: done[JOB_NAMES.delivery]! };
  };
  const tx = (over: Record<string, unknown> = {}) => priced('EUR', 10, { notify_url: hook.url, ...over });

  let stop: () => Promise<void>;
  beforeAll(async () => {
    // runOnce() takes every due row of the database, and the clock jumps by days. A
    // receiver that hangs is given up on after 2 s rather than the default 10 s.
    ({ t, hook, close: stop } = await startWebhookService(engine, { now, env: { WEBHOOK_TIMEOUT_MS: '2000' } }));
  });
  afterAll(() => stop());
  beforeEach(async () => {
    offset = 0;
    api = await t.newEnvironment();
    // Whatever earlier tests left due is delivered now, so each test sees only its own.
    await run();
    hook.received.length = 0;
    hook.script();
  });

  const event = async (id: string) => (await api.get(`/event/${id}/`)).body;

  it('signs every delivery the Standard Webhooks way; a tampered byte or a skewed clock fails verification', async () => {
    const { transaction, sale } = await paidTransaction(api, tx());
    expect((await run()).attempts).toBe(2);
    const wh = new Webhook(api.keys.webhook_secret);
    expect(hook.received.map((r) => r.payload.type).sort()).toEqual(['sale.created', 'transaction.paid']);
    for (const r of hook.received) {
      const headers = r.headers as Record<string, string>;
      expect(headers['content-type']).toBe('application/json');
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(wh.verify(r.body, headers)).toEqual(r.payload);
      expect(r.payload.id).toBe(headers['webhook-id']);
      expect(Object.keys(r.payload).sort()).toEqual(['created', 'data', 'id', 'livemode', 'type']);
      expect([(r.payload as { livemode?: boolean }).livemode, r.payload.data.livemode]).toEqual([false, false]);

      const tampered = Buffer.from(r.body);
      const at = tampered.length - 2;
      tampered[at] = tampered[at]! ^ 1;
      expect(() => wh.verify(tampered.toString(), headers)).toThrow();
      const otherSecret = new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`);
      expect(() => otherSecret.verify(r.body, headers)).toThrow();
    }
    const paid = hook.received.find((r) => r.payload.type === 'transaction.paid')!.payload;
    expect(paid.data).toEqual((await api.get(`/transaction/${transaction.id}/`)).body);
    expect(hook.received.find((r) => r.payload.type === 'sale.created')!.payload.data).toEqual(sale);

    // The service's clock 10 minutes off either way: the receiver's verifier refuses.
    for (const skew of [-10 * MIN, 10 * MIN]) {
      offset = skew;
      hook.received.length = 0;
      await paidTransaction(api, tx());
      await run();
      expect(hook.received).toHaveLength(2);
      for (const r of hook.received) expect(() => wh.verify(r.body, r.headers as Record<string, string>)).toThrow(/timestamp/i);
    }
  });

  it('signs with the current secret after a rotation', async () => {
    const rotated = await updateEnvironment(t.service.deps.database.db, api.keys.environment_id, { rotateWebhookSecret: true });
    expect(rotated!.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const created = await api.post('/transaction/', tx());
    await cancelToken(api.url, created.body.token);
    await run();
    const [r] = hook.received;
    const headers = r!.headers as Record<string, string>;
    expect(new Webhook(rotated!.webhook_secret).verify(r!.body, headers)).toEqual(r!.payload);
    expect(() => new Webhook(api.keys.webhook_secret).verify(r!.body, headers)).toThrow();
  });

  /** An authorization as its events carry it: the API's object without the hosted page's token and url (docs/webhooks.md), which a stored card has not. */
  async function authorizationAsEvents(id: string) {
    const { token, url, ...shown } = (await api.get(`/authorization/${id}/`)).body;
    expect([token, url]).toEqual([null, null]);
    return shown;
  }

  it('every change of an object writes its event, with the object as the API shows it; those with a notify_url are delivered there', async () => {
    const types = async (objectId: string) =>
      (await api.get(`/event/?object_id=${objectId}`)).body.results.map((e: { type: string }) => e.type).reverse();

    const { transaction, sale } = await paidTransaction(api, tx({ authorize: true }));
    // Made in one database transaction at one time, listed in the order docs/webhooks.md gives.
    const payment = (await api.get('/event/')).body.results.map((e: { type: string }) => e.type).reverse();
    expect(payment).toEqual(['transaction.paid', 'authorization.created', 'sale.created']);
    const auth = (await api.get(`/authorization/?transaction_id=${transaction.id}`)).body.results[0];
    expect(await types(transaction.id)).toEqual(['transaction.paid']);
    expect(await types(auth.id)).toEqual(['authorization.created']);
    expect(auth.notify_url).toBe(hook.url);

    const captured = (await api.post(`/sale/${sale.id}/capture/`, { amount: 4 })).body;
    const voided = (await api.request('POST', `/sale/${sale.id}/void/`)).body;
    const refunded = (await api.post(`/sale/${sale.id}/refund/`, { amount: 1 })).body;
    expect(await types(sale.id)).toEqual(['sale.created', 'sale.captured', 'sale.voided', 'sale.refunded']);
    const saleEvents = (await api.get(`/event/?object_id=${sale.id}`)).body.results.reverse();
    expect(saleEvents.slice(1).map((e: { data: unknown }) => e.data)).toEqual([captured, voided, refunded]);

    const charged = (await api.post(`/authorization/${auth.id}/charge/`, { amount: 2, currency: 'EUR' })).body;
    expect(await types(charged.id)).toEqual(['sale.created']);
    // A charge's events are snapshots of what its answer and the authorization then show.
    expect((await api.get(`/event/?object_id=${charged.id}`)).body.results[0].data).toEqual(charged);
    const chargedAuth = (await api.get(`/event/?object_id=${auth.id}&type=authorization.charged`)).body.results[0];
    expect(chargedAuth.data).toEqual(await authorizationAsEvents(auth.id));
    await api.request('POST', `/authorization/${auth.id}/remove/`);
    expect(await types(auth.id)).toEqual(['authorization.created', 'authorization.charged', 'authorization.removed']);
    const removed = (await api.get(`/event/?object_id=${auth.id}&type=authorization.removed`)).body.results[0];
    expect(removed.data).toEqual(await authorizationAsEvents(auth.id));

    const stored = await api.post('/authorization/', {
      gateway: SANDBOX_CARD,
      card: { number: TEST_CARDS.insufficientFunds, expiry: '12/34', cvc: '123', name: 'A' },
      notify_url: hook.url,
    });
    await api.post(`/authorization/${stored.body.id}/charge/`, { amount: 3, currency: 'EUR' });
    const declined = (await api.get(`/sale/?authorization_id=${stored.body.id}`)).body.results[0];
    expect(await types(declined.id)).toEqual(['sale.declined']);

    const cancelled = await api.post('/transaction/', tx());
    await cancelToken(api.url, cancelled.body.token);
    expect(await types(cancelled.body.id)).toEqual(['transaction.cancelled']);

    // Without a notify_url the changes are events all the same, delivered nowhere.
    const quiet = await paidTransaction(api, priced('EUR', 5, { authorize: true }));
    await api.request('POST', `/sale/${quiet.sale.id}/capture/`);
    expect(await types(quiet.transaction.id)).toEqual(['transaction.paid']);
    expect(await types(quiet.sale.id)).toEqual(['sale.created', 'sale.captured']);
    const silent = (await api.get(`/event/?object_id=${quiet.sale.id}`)).body.results[0];
    expect(silent).toMatchObject({ notify_url: null, delivery_status: null, attempt_count: 0, next_attempt: null, delivered: null, deliveries: [] });
    expect(silent.data).toEqual((await api.get(`/sale/${quiet.sale.id}/`)).body);

    await run();
    const all = (await api.get('/event/?page_size=100')).body.results as { id: string; notify_url: string | null; delivery_status: string | null }[];
    const told = all.filter((e) => e.notify_url !== null);
    expect(told.every((e) => e.delivery_status === 'delivered')).toBe(true);
    expect(all.filter((e) => e.notify_url === null).every((e) => e.delivery_status === null)).toBe(true);
    expect(hook.received.map((r) => r.payload.id).sort()).toEqual(told.map((e) => e.id).sort());
  });

  it('the expiry sweep stores E and notifies once, however often it runs', async () => {
    const created = await api.post('/transaction/', tx({ expired_date: new Date(now().getTime() + H).toISOString() }));
    offset = 2 * H;
    expect((await api.get(`/transaction/${created.body.id}/`)).body.status).toBe('E');
    const first = await run();
    expect(first.expired).toBeGreaterThanOrEqual(1);
    expect((await Promise.all([run(), run()])).map((r) => r.expired)).toEqual([0, 0]);
    const events = (await api.get(`/event/?object_id=${created.body.id}`)).body;
    expect(events.count).toBe(1);
    expect(events.results[0]).toMatchObject({ type: 'transaction.expired', data: { id: created.body.id, status: 'E' } });
    expect(hook.received.filter((r) => r.payload.data.id === created.body.id)).toHaveLength(1);
    const row = await t.service.deps.database.db.selectFrom('transactions').select('status').where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('E');
  });

  it('a receiver that fails three times then succeeds gets the same event four times, on the schedule', async () => {
    const created = await api.post('/transaction/', tx());
    await cancelToken(api.url, created.body.token);
    hook.script(500, 302, 503);
    const id = (await api.get(`/event/?object_id=${created.body.id}`)).body.results[0].id;

    const expectNext = async (attempts: number, delay: number) => {
      const e = await event(id);
      expect(e).toMatchObject({ delivery_status: 'pending', attempt_count: attempts });
      const wait = Date.parse(e.next_attempt) - Date.parse(e.attempts.at(-1).created);
      expect(wait).toBeGreaterThanOrEqual(delay * 0.9);
      expect(wait).toBeLessThanOrEqual(delay * 1.1);
      // Not due yet: nothing happens.
      expect((await run()).attempts).toBe(0);
      offset += Date.parse(e.next_attempt) - now().getTime() + 1;
    };
    expect((await run()).attempts).toBe(1);
    await expectNext(1, 5 * S);
    expect((await run()).attempts).toBe(1);
    await expectNext(2, 5 * MIN);
    expect((await run()).attempts).toBe(1);
    await expectNext(3, 30 * MIN);
    expect((await run()).attempts).toBe(1);

    const e = await event(id);
    expect(e).toMatchObject({ delivery_status: 'delivered', attempt_count: 4, next_attempt: null });
    expect(e.attempts.map((a: { status_code: number; result: string }) => [a.status_code, a.result])).toEqual([
      [500, 'failed'],
      [302, 'failed'],
      [503, 'failed'],
      [200, 'delivered'],
    ]);
    expect(e.attempts[0].response_body).toBe('answer 500');
    expect(hook.received).toHaveLength(4);
    expect(new Set(hook.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
    const stamps = hook.received.map((r) => Number(r.headers['webhook-timestamp']));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    offset += 48 * H;
    expect((await run()).attempts).toBe(0);
  });

  it('gives up after 8 attempts over more than 24 h; a manual retry sends it once more', async () => {
    const created = await api.post('/transaction/', tx());
    await cancelToken(api.url, created.body.token);
    const id = (await api.get(`/event/?object_id=${created.body.id}`)).body.results[0].id;
    hook.script(...Array<number>(8).fill(500));
    for (let i = 0; i < 8; i++) {
      expect((await run()).attempts, `attempt ${i + 1}`).toBe(1);
      const e = await event(id);
      if (e.next_attempt) offset += Date.parse(e.next_attempt) - now().getTime() + 1;
    }
    const e = await event(id);
    expect(e).toMatchObject({ delivery_status: 'failed', attempt_count: 8, next_attempt: null });
    const span = Date.parse(e.attempts[7].created) - Date.parse(e.attempts[0].created);
    expect(span).toBeGreaterThan(24 * H);
    offset += 48 * H;
    expect((await run()).attempts).toBe(0);

    const retried = await api.request('POST', `/event/${id}/retry/`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ delivery_status: 'pending', attempt_count: 8 });
    expect((await run()).attempts).toBe(1);
    expect(await event(id)).toMatchObject({ delivery_status: 'delivered', attempt_count: 9 });
    expect(new Set(hook.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
  });

  it('a 410 stops the deliveries at once', async () => {
    const created = await api.post('/transaction/', tx());
    await cancelToken(api.url, created.body.token);
    hook.script(410);
    expect((await run()).attempts).toBe(1);
    const id = (await api.get(`/event/?object_id=${created.body.id}`)).body.results[0].id;
    expect(await event(id)).toMatchObject({ delivery_status: 'stopped', attempt_count: 1, next_attempt: null });
    offset += 48 * H;
    expect((await run()).attempts).toBe(0);
  });

  it('no answer within WEBHOOK_TIMEOUT_MS is a failed attempt, retried later', async () => {
    const created = await api.post('/transaction/', tx());
    await cancelToken(api.url, created.body.token);
    hook.script('hang');
    const started = Date.now();
    expect((await run()).attempts).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_990);
    const id = (await api.get(`/event/?object_id=${created.body.id}`)).body.results[0].id;
    const e = await event(id);
    expect(e).toMatchObject({ delivery_status: 'pending', attempt_count: 1 });
    expect(e.attempts[0]).toMatchObject({ result: 'failed', status_code: null, error: 'no answer within 2 s' });
  });

  it('events API: filters, another environment gets 404, retry of an unknown event is 404', async () => {
    const created = await api.post('/transaction/', tx());
    await cancelToken(api.url, created.body.token);
    const list = await api.get('/event/?type=transaction.cancelled');
    expect(list.body.count).toBe(1);
    const id = list.body.results[0].id;
    expect(list.body.results[0]).toMatchObject({ notify_url: hook.url, delivery_status: 'pending', attempt_count: 0 });
    expect((await api.get('/event/?type=sale.created')).body.count).toBe(0);
    expect((await api.get('/event/?type=nope')).status).toBe(400);
    expect((await api.get('/event/?delivery_status=pending')).body.count).toBe(1);
    const other = await t.newEnvironment('Other');
    expect((await other.get(`/event/${id}/`)).status).toBe(404);
    expect((await other.request('POST', `/event/${id}/retry/`)).status).toBe(404);
    expect((await other.get('/event/')).body.count).toBe(0);
    expect((await api.request('POST', '/event/0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e/retry/')).status).toBe(404);
    expect((await api.get(`/event/${id}/`)).body.attempts).toEqual([]);
  });
});

describe.each(ENGINES)('notify_url rules on %s', (engine) => {
  let t: TestService;
  let api: Client;
  beforeAll(async () => {
    t = await startTestService(engine, { background: false });
    api = await t.newEnvironment();
  });
  afterAll(() => t.close());

  it('refuses loopback, private and link-local notify_urls unless ALLOW_PRIVATE_NOTIFY_URLS', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://shop.localhost/hook',
      'http://localhost./hook',
      'http://LOCALHOST./hook',
      'http://[64:ff9b::7f00:1]/hook',
      'http://[64:ff9b:1::a00:1]/hook',
      'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/hook',
      'http://[2002:a00:1::]/hook',
      'http://[fec0::1]/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://172.20.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/hook',
      'http://[fd00::1]/hook',
      'http://0.0.0.0/hook',
    ]) {
      const res = await api.post('/transaction/', priced('EUR', 1, { notify_url: url }));
      expect(res.status, url).toBe(400);
      expect(problemPaths(res)).toEqual(['notify_url']);
      expect(res.body.errors[0].message, url).toContain('ALLOW_PRIVATE_NOTIFY_URLS=true');
      const auth = await api.post('/authorization/', {
        gateway: SANDBOX_CARD,
        card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'A' },
        notify_url: url,
      });
      expect(auth.status, url).toBe(400);
    }
    expect((await api.post('/transaction/', priced('EUR', 1, { notify_url: 'https://shop.example/hook' }))).status).toBe(201);
    expect((await api.post('/transaction/', priced('EUR', 1, { notify_url: 'https://93.184.215.14/hook' }))).status).toBe(201);
    expect((await api.post('/transaction/', priced('EUR', 1, { notify_url: 'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook' }))).status).toBe(201);
  });
});
