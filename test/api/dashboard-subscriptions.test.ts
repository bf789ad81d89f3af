import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { auditOf } from '../../server/store/audit';
import { member } from './dashboard';
import { startIsolatedService } from './database';
import { type Client, ENGINES, type TestService } from './harness';
import { SANDBOX_CARD } from './pay';
import { clientBody } from './documents';
import { JOB_NAMES } from '../../server/jobs/index';

// Subscriptions in the dashboard: the list and its status filter, and pause, resume and
// stop through the API's own use case (same states allowed, same events); stop asks first.

describe.each(ENGINES)('dashboard subscriptions on %s', (engine) => {
  let t: TestService;
  let shop: Client;

  beforeAll(async () => {
    // A database of its own: its jobs (runAll) take every due row they find, another file's subscriptions too.
    t = await startIsolatedService(engine);
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
  it('a subscription’s page: plan, status, client, card, next charge and its charges; a failed charge with its reason and next retry; past_due marked in the list', async () => {
    const client = (await shop.post('/client/', clientBody({ name: 'Late Larry', email: 'late.larry@shop.example' }))).body;
    const plan = (await shop.post('/plan/', { name: 'Tea club', amount: 7.25, currency: 'EUR', interval: 'month' })).body;
    const card = (await shop.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.insufficientFunds, expiry: '12/34', cvc: '123', name: 'L' } })).body;
    const sub = (await shop.post('/subscription/', { plan: plan.id, authorization: card.id, client: client.id, subscription_id: 'sub-late' })).body;
    await shop.post(`/subscription/${sub.id}/start/`, undefined);
    while ((await statusOf(sub.id)) !== 'past_due') {
      if ((await t.service.jobs.runOnce(JOB_NAMES.subscriptions)) === 0) throw new Error(`not past_due: ${await statusOf(sub.id)}`);
    }
    const api = (await shop.get(`/subscription/${sub.id}/`)).body;
    expect(api.charges).toEqual([expect.objectContaining({ period: 1, status: 'failed', failure: 'insufficient_funds', attempts: 1 })]);

    const { browser: viewer } = await member(t, shop, 'viewer');
    const list = await viewer.get('/dashboard/subscriptions/?status=past_due');
    expect(list.text).toContain(`<a href="/dashboard/subscriptions/${sub.id}/">Tea club · sub-late</a>`);
    expect(list.text).toContain('<strong class="overdue">Past due</strong>');

    const page = await viewer.get(`/dashboard/subscriptions/${sub.id}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>Tea club · sub-late');
    expect(page.text).toContain('href="/dashboard/subscriptions/" aria-current="page"');
    expect(page.text).toContain('Tea club: €7.25 every month');
    expect(page.text).toContain(`<a href="/dashboard/clients/${client.id}/">Late Larry</a>`);
    expect(page.text).toMatch(new RegExp(`ending ${card.card.last4}`));
    expect(page.text).toMatch(/data-testid="sub-status"><strong class="overdue">Past due<\/strong>/);
    const row = /<tr data-charge="1" data-status="failed">(.*?)<\/tr>/.exec(page.text)?.[1] ?? '';
    expect(row).toContain('€7.25');
    expect(row).toContain('<strong class="overdue">Failed</strong>');
    expect(row).toContain('Insufficient funds');
    expect(row).toContain('<td>1</td>');
    // The next retry is the subscription's next charge.
    const retry = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(new Date(api.next_charge_date));
    expect(row).toContain(retry);
    // A viewer has no buttons; an admin has stop (not pause: past_due cannot be paused).
    expect(page.text).not.toContain('/stop/');
    const { browser: admin } = await member(t, shop, 'admin');
    const adminPage = await admin.get(`/dashboard/subscriptions/${sub.id}/`);
    expect(adminPage.text).toContain(`action="/dashboard/subscriptions/${sub.id}/stop/"`);
    expect(adminPage.text).not.toContain(`/dashboard/subscriptions/${sub.id}/pause/`);
  });

  it('a subscription’s page of another environment, or no such id, is the same 404', async () => {
    const id = await active('sub-three');
    const { browser: stranger } = await member(t, await t.newEnvironment('Stranger two'), 'owner');
    const theirs = await stranger.get(`/dashboard/subscriptions/${id}/`);
    const missing = await stranger.get('/dashboard/subscriptions/0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e/');
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(missing.text);
    expect((await stranger.get('/dashboard/subscriptions/not-an-id/')).status).toBe(404);
    const { browser: viewer } = await member(t, shop, 'viewer');
    const own = await viewer.get(`/dashboard/subscriptions/${id}/`);
    expect(own.status).toBe(200);
    expect(own.text).toContain('No charges yet.');
  });
});
