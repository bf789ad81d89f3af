import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/payments/sandbox';
import { auditOf } from '../../server/store/audit';
import { member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { SANDBOX_CARD } from './pay';

// Subscriptions in the dashboard: the list and its status filter, and pause, resume and
// stop through the API's own use case (same states allowed, same events); stop asks first.

describe.each(ENGINES)('dashboard subscriptions on %s', (engine) => {
  let t: TestService;
  let shop: Client;

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Subscriptions shop');
  });
  afterAll(() => t?.close());

  async function active(subscriptionId: string): Promise<string> {
    const plan = (await shop.post('/plan/', { name: 'Coffee club', amount: 19.9, currency: 'EUR', interval: 'month' })).body;
    const card = (await shop.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'A' } })).body;
    const sub = (await shop.post('/subscription/', { plan: plan.id, authorization: card.id, subscription_id: subscriptionId })).body;
    expect((await shop.post(`/subscription/${sub.id}/start/`, undefined)).body.status).toBe('active');
    return sub.id;
  }
  const statusOf = async (id: string) => (await shop.get(`/subscription/${id}/`)).body.status;
  const typesOf = async (id: string) => ((await shop.get(`/event/?object_id=${id}`)).body.results as { type: string }[]).map((e) => e.type).sort();

  it('pauses, resumes and stops a subscription as the API does; a refused action changes nothing', async () => {
    const id = await active('sub-one');
    const { browser: admin } = await member(t, shop, 'admin');
    const list = await admin.get('/dashboard/subscriptions/');
    expect(list.text).toContain('Coffee club · sub-one');
    expect(list.text).toContain(`/dashboard/subscriptions/${id}/pause/`);
    expect(list.text).not.toContain(`/dashboard/subscriptions/${id}/resume/`);
    const before = await typesOf(id);

    const paused = await admin.post(`/dashboard/subscriptions/${id}/pause/`, {});
    expect(paused.status).toBe(303);
    expect(await statusOf(id)).toBe('paused');
    expect((await admin.get(paused.location!)).text).toContain('Paused: nothing is charged');
    // Paused: pausing again is the API's conflict.
    const again = await admin.post(`/dashboard/subscriptions/${id}/pause/`, {});
    expect(again.status).toBe(409);
    expect(again.text).toContain('Nothing was changed');
    expect((await admin.get('/dashboard/subscriptions/?status=paused')).text).toContain('sub-one');
    expect((await admin.get('/dashboard/subscriptions/?status=stopped')).text).not.toContain('sub-one');

    expect((await admin.post(`/dashboard/subscriptions/${id}/resume/`, {})).status).toBe(303);
    expect(await statusOf(id)).toBe('active');
    const ask = await admin.post(`/dashboard/subscriptions/${id}/stop/`, {});
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('This cannot be undone');
    expect(await statusOf(id)).toBe('active');
    expect((await admin.post(`/dashboard/subscriptions/${id}/stop/`, { confirm: 'yes' })).status).toBe(303);
    expect((await shop.get(`/subscription/${id}/`)).body).toMatchObject({ status: 'stopped', stop_reason: 'requested' });
    // The API's events, one per action.
    expect(await typesOf(id)).toEqual([...before, 'subscription.paused', 'subscription.resumed', 'subscription.stopped'].sort());
    const audit = await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 100, offset: 0 });
    expect(audit.map((a) => a.action).filter((a) => a.startsWith('subscription_')).sort()).toEqual(['subscription_pause', 'subscription_resume', 'subscription_stop']);
  });

  it('viewers see but cannot act; CSRF is required; another environment gets 404', async () => {
    const id = await active('sub-two');
    const { browser: viewer } = await member(t, shop, 'viewer');
    const seen = await viewer.get('/dashboard/subscriptions/');
    expect(seen.text).toContain('sub-two');
    expect(seen.text).not.toContain('/pause/');
    for (const a of ['pause', 'stop']) expect((await viewer.post(`/dashboard/subscriptions/${id}/${a}/`, { confirm: 'yes' })).status).toBe(403);
    const { browser: admin } = await member(t, shop, 'admin');
    expect((await admin.post(`/dashboard/subscriptions/${id}/pause/`, {}, { csrf: null })).status).toBe(403);
    const { browser: stranger } = await member(t, await t.newEnvironment('Stranger'), 'owner');
    expect((await stranger.post(`/dashboard/subscriptions/${id}/stop/`, { confirm: 'yes' })).status).toBe(404);
    expect((await stranger.get('/dashboard/subscriptions/')).text).not.toContain('sub-two');
    expect(await statusOf(id)).toBe('active');
  });
});
