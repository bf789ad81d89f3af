import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { type Browser, member } from './dashboard';
import { clientBody } from './documents';
import { type Client, ENGINES, type TestService } from './harness';
import { startIsolatedService } from './database';
import { paidTransaction, payToken, priced, SANDBOX_CARD } from './pay';

// The header's search box (/dashboard/search/) across kinds, on both engines: each kind found
// by what identifies it, a card payment by its last four, amount and day in any order, an
// exact id or token straight to its page, another environment's objects never, and bad
// input a 400 that says what is wrong.

describe.each(ENGINES)('dashboard search across objects on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let other: Client;
  let viewer: Browser;
  /** Texts of this run: the PostgreSQL database is shared with earlier runs. */
  const run = randomUUID().slice(0, 8);

  beforeAll(async () => {
    t = await startIsolatedService(engine, { env: { SANDBOX_DISPUTE_DELAY_MS: '0' } });
    shop = await t.newEnvironment('Search everywhere shop');
    other = await t.newEnvironment('Another shop');
    viewer = (await member(t, shop, 'viewer')).browser;
  });
  afterAll(() => t?.close());

  const search = async (q: string, status = 200) => {
    const page = await viewer.get(`/dashboard/search/?q=${encodeURIComponent(q)}`);
    expect(page.status, page.text.slice(0, 300)).toBe(status);
    return page;
  };
  /** One kind's group on a results page. */
  const section = (html: string, kind: string) => new RegExp(`<section aria-labelledby="found-${kind}">([\\s\\S]*?)</section>`).exec(html)?.[1] ?? '';
  /** The links of one kind's group on a results page. */
  const group = (html: string, kind: string) => [...section(html, kind).matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!);

  it('every signed-in page has the labelled search box, a GET form to the search page', async () => {
    for (const path of ['/dashboard/', '/dashboard/transactions/', '/dashboard/clients/', '/dashboard/search/']) {
      const page = await viewer.get(path);
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/<form method="get" action="\/dashboard\/search\/" role="search" class="find">/);
      expect(page.text).toContain('<label for="site-search" class="visually-hidden">Search everything</label>');
      expect(page.text).toMatch(/<input id="site-search" type="search" name="q"/);
    }
    expect((await search('')).text).toContain('Type what you are looking for');
  });

  it('finds transactions by order id; a token or an id goes straight to its page; another environment’s never', async () => {
    const mine = await shop.post('/transaction/', priced('EUR', 3, { order_id: `order-${run}` }));
    const theirs = await other.post('/transaction/', priced('EUR', 3, { order_id: `order-${run}-theirs` }));
    expect([mine.status, theirs.status]).toEqual([201, 201]);

    const byOrder = await search(`ORDER-${run}`);
    expect(group(byOrder.text, 'transactions')).toEqual([`/dashboard/transactions/${mine.body.id}/`]);
    expect(byOrder.text).not.toContain(theirs.body.id);

    const byToken = await search(mine.body.token, 303);
    expect([byToken.status, byToken.location]).toEqual([303, `/dashboard/transactions/${mine.body.id}/`]);
    const byId = await search(mine.body.id.toUpperCase(), 303);
    expect([byId.status, byId.location]).toEqual([303, `/dashboard/transactions/${mine.body.id}/`]);

    // Theirs by token and by id: as if it did not exist.
    for (const key of [theirs.body.token, theirs.body.id]) {
      const page = await search(key);
      expect(page.text).toContain('Nothing in this environment matches');
      expect(page.text).not.toContain(`/dashboard/transactions/${theirs.body.id}/`);
    }
  });

  it('finds a card payment by last four, amount and day in any order, its refund and its stored card', async () => {
    const { transaction, sale } = await paidTransaction(shop, priced('EUR', 12.37, { order_id: `paid-${run}` }));
    await paidTransaction(other, priced('EUR', 12.37, { order_id: `paid-${run}-theirs` }));
    const page = `/dashboard/transactions/${transaction.id}/`;
    // The sale's own day (UTC), not the clock's: a run may cross midnight.
    const day = String(sale.created).slice(0, 10);
    for (const q of [`4242 12.37 ${day}`, `12,37 4242`, `${day} 12.37`, '12.37']) expect(group((await search(q)).text, 'sales'), q).toEqual([page]);
    expect(group((await search('4242 12.38')).text, 'sales')).toEqual([]);
    expect(group((await search('4243 12.37')).text, 'sales')).toEqual([]);
    expect(group((await search('4242 12.37 2001-01-01')).text, 'sales')).toEqual([]);

    const refund = await shop.post(`/sale/${sale.id}/refund/`, { amount: 4.21 });
    expect(refund.status, refund.text).toBe(200);
    const refunds = await search('4.21 4242');
    expect(group(refunds.text, 'refunds')).toEqual([page]);
    expect(refunds.text).toContain('€4.21');
    // The payment's status in the payments list's words: its refund counts.
    expect(section((await search(`paid-${run}`)).text, 'transactions')).toContain('Partially refunded');

    const card = await shop.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '11/33', cvc: '123', name: 'A' } });
    expect(card.status, card.text).toBe(201);
    const cards = await search('4242');
    expect(group(cards.text, 'authorizations')).toContain('/dashboard/authorizations/');
    expect(cards.text).toContain(`<section aria-labelledby="found-sales">`);
    // A stored card has no page of its own: its id lists it under "By id" rather than going away.
    const byId = await search(card.body.id);
    expect(byId.status).toBe(200);
    expect(group(byId.text, 'by-id')).toEqual(['/dashboard/authorizations/']);
  });

  it('finds a dispute by its card and amount, a client by email, name or document, a subscription by id or email', async () => {
    const disputed = await shop.post('/transaction/', priced('EUR', 10.09, { order_id: `disputed-${run}` }));
    expect(await payToken(shop.url, disputed.body.token, TEST_CARDS.disputedFraudulent)).toBe(200);
    // The sandbox bank opens it in a round of its job (at once: SANDBOX_DISPUTE_DELAY_MS is 0).
    while ((await shop.get('/dispute/')).body.count === 0) expect(await t.service.jobs.runOnce('sandbox-disputes')).toBeGreaterThan(0);
    const dispute = await search('10.09 0259');
    expect(group(dispute.text, 'disputes')).toEqual([`/dashboard/transactions/${disputed.body.id}/`]);
    // Statuses in words, as on their lists: the dispute's, and the payment's it disputes.
    expect(section(dispute.text, 'disputes')).toContain('Needs your response');
    expect(section((await search(`disputed-${run}`)).text, 'transactions')).toContain('Disputed');

    const email = `Grace.${run}@Example.com`;
    const client = await shop.post('/client/', clientBody({ email, name: `Grace Hopper ${run}`, id_number: `Z${run.toUpperCase()}` }));
    expect(client.status, client.text).toBe(201);
    await other.post('/client/', clientBody({ email: `grace.${run}@example.org`, name: `Grace Hopper ${run}` }));
    const clientPage = `/dashboard/clients/${client.body.id}/`;
    for (const q of [`grace.${run}@example`, `hopper ${run}`, `z${run}`]) expect(group((await search(q)).text, 'clients'), q).toEqual([clientPage]);
    const byId = await search(client.body.id, 303);
    expect([byId.status, byId.location]).toEqual([303, clientPage]);

    const plan = (await shop.post('/plan/', { name: `Club ${run}`, amount: 9.9, currency: 'EUR', interval: 'month' })).body;
    const sub = await shop.post('/subscription/', { plan: plan.id, client: client.body.id, subscription_id: `sub-${run}` });
    expect(sub.status, sub.text).toBe(201);
    for (const q of [`sub-${run}`, `GRACE.${run}@EXAMPLE.COM`]) {
      const found = await search(q);
      expect(group(found.text, 'subscriptions'), q).toEqual(['/dashboard/subscriptions/']);
      expect(found.text).toContain(`sub-${run}`);
    }
    // Another environment's client of the same name is not there.
    expect((await search(`hopper ${run}`)).text).not.toContain('example.org');
  });

  it('takes % _ and \\ as text; bad input is a 400 that says what is wrong, never a 500', async () => {
    for (const q of ['%', '_', '\\', '%_%', "' or 1=1 --"]) expect((await search(q)).text, q).toContain('Nothing in this environment matches');

    const long = await search('x'.repeat(201), 400);
    expect(long.text).toContain('The search is too long: type at most 200 characters.');
    expect(long.text).toContain('role="alert"');
    const control = await viewer.get('/dashboard/search/?q=a%00b');
    expect(control.status).toBe(400);
    expect(control.text).toContain('The search cannot contain control characters');
    const tab = await viewer.get('/dashboard/search/?q=a%09b');
    expect(tab.status).toBe(400);
    // A repeated q is read by its first.
    expect((await viewer.get(`/dashboard/search/?q=${'x'.repeat(201)}&q=y`)).status).toBe(400);
    expect((await viewer.get(`/dashboard/search/?q=y&q=${'x'.repeat(201)}`)).status).toBe(200);
    for (const odd of ['q=%ED%A0%80', 'q=%', `q=${'9'.repeat(40)}`, 'q=2026-02-30', 'q=1e5', 'q=-5', 'q[]=a&q[]=b', 'q[a]=b', 'q=9999-99-99%204242', 'q=0000-01-01', 'q=0000-01-01%204242', 'q=0001-01-01%204242', 'q=9999-12-31%204242']) {
      expect((await viewer.get(`/dashboard/search/?${odd}`)).status, odd).toBeLessThan(500);
    }
    // Without a session: the sign-in page, as every page.
    const anonymous = await fetch(`${t.url}/dashboard/search/?q=x`, { redirect: 'manual' });
    expect([anonymous.status, anonymous.headers.get('location')]).toEqual([303, '/dashboard/sign-in/']);
  });
});
