import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { auditOf } from '../../server/store/audit';
import { member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { SANDBOX_CARD } from './pay';

// Stored cards in the dashboard: the list and its status filter, and an admin's removal
// through the API's own use case (active → removed once, its event); removal asks first.

describe.each(ENGINES)('dashboard stored cards on %s', (engine) => {
  let t: TestService;
  let shop: Client;

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Cards shop');
  });
  afterAll(() => t?.close());

  const stored = async (number: string = TEST_CARDS.approved) =>
    (await shop.post('/authorization/', { gateway: SANDBOX_CARD, card: { number, expiry: '11/33', cvc: '123', name: 'A' } })).body as { id: string };
  const statusOf = async (id: string) => (await shop.get(`/authorization/${id}/`)).body.status;

  it('lists stored cards and removes one after a confirmation naming the environment; removing again changes nothing', async () => {
    const card = await stored();
    const { browser: admin } = await member(t, shop, 'admin');
    const list = await admin.get('/dashboard/authorizations/');
    expect(list.status).toBe(200);
    expect(list.text).toContain('visa ending 4242, expires 11/2033');
    expect(list.text).toContain(`/dashboard/authorizations/${card.id}/remove/`);

    const ask = await admin.post(`/dashboard/authorizations/${card.id}/remove/`, {});
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('This cannot be undone');
    expect(ask.text).toContain('In the environment Cards shop (sandbox).');
    expect(await statusOf(card.id)).toBe('active');

    const removed = await admin.post(`/dashboard/authorizations/${card.id}/remove/`, { confirm: 'yes' });
    expect(removed.status).toBe(303);
    expect(await statusOf(card.id)).toBe('removed');
    expect((await admin.get(removed.location!)).text).toContain('Removed: the card can no longer be charged.');
    expect(((await shop.get(`/event/?object_id=${card.id}`)).body.results as { type: string }[]).map((e) => e.type).sort()).toEqual(['authorization.created', 'authorization.removed']);
    // The API refuses a charge of it, as for a card removed through the API.
    expect((await shop.post(`/authorization/${card.id}/charge/`, { amount: 1, currency: 'EUR' })).status).toBe(409);

    const again = await admin.post(`/dashboard/authorizations/${card.id}/remove/`, { confirm: 'yes' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('Nothing was changed: the card is Removed.');
    expect((await admin.get('/dashboard/authorizations/?status=removed')).text).toContain(card.id);
    expect((await admin.get('/dashboard/authorizations/?status=active')).text).not.toContain(card.id);
    const audit = await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 100, offset: 0 });
    expect(audit.filter((a) => a.action === 'authorization_removed')).toHaveLength(1);
  });

  it('viewers see but cannot remove; CSRF is required; another environment gets 404', async () => {
    const card = await stored();
    const { browser: viewer } = await member(t, shop, 'viewer');
    const seen = await viewer.get('/dashboard/authorizations/');
    expect(seen.text).toContain(card.id);
    expect(seen.text).not.toContain('/remove/');
    expect((await viewer.post(`/dashboard/authorizations/${card.id}/remove/`, { confirm: 'yes' })).status).toBe(403);
    const { browser: admin } = await member(t, shop, 'admin');
    expect((await admin.post(`/dashboard/authorizations/${card.id}/remove/`, { confirm: 'yes' }, { csrf: null })).status).toBe(403);
    const { browser: stranger } = await member(t, await t.newEnvironment('Stranger'), 'owner');
    expect((await stranger.post(`/dashboard/authorizations/${card.id}/remove/`, { confirm: 'yes' })).status).toBe(404);
    expect((await stranger.get('/dashboard/authorizations/')).text).not.toContain(card.id);
    expect(await statusOf(card.id)).toBe('active');
  });
});
