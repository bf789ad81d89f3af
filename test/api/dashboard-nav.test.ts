import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { createEnvironment } from '../../server/store/environments';
import { member } from './dashboard';
import { Client, ENGINES, useTestService } from './harness';
import { SANDBOX_CARD } from './pay';

// The dashboard's navigation (layout.tsx), as the server draws it on both engines: the
// groups by job in their order, owners' links for owners only, the current page marked,
// the environment and its mode in the header, the Customers page always, and the platform's
// sections (clients, wallets, stored cards) once the environment has any, or while on their page.

/** The navigation of a page: its groups' labels and every link's href, in order. */
function navOf(html: string) {
  const nav = /<nav aria-label="Dashboard">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
  return {
    groups: [...nav.matchAll(/class="group-label">([^<]+)</g)].map((m) => m[1]!),
    hrefs: [...nav.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!),
    current: [...nav.matchAll(/<a href="([^"]+)" aria-current="page"/g)].map((m) => m[1]!),
  };
}

const OWNER_LINKS = [
  '/dashboard/',
  '/dashboard/transactions/',
  '/dashboard/export/',
  '/dashboard/balance/',
  '/dashboard/payouts/',
  '/dashboard/payout-files/',
  '/dashboard/customers/',
  '/dashboard/catalogue/',
  '/dashboard/subscriptions/',
  '/dashboard/disputes/',
  '/dashboard/keys/',
  '/dashboard/webhook-endpoints/',
  '/dashboard/webhooks/',
  '/dashboard/events/',
  '/dashboard/requests/',
  '/dashboard/processors/',
  '/dashboard/settings/',
  '/dashboard/team/',
  '/dashboard/audit/',
  '/dashboard/account/security/',
  '/dashboard/account/notifications/',
];
const OWNERS_ONLY = ['/dashboard/payout-files/', '/dashboard/keys/', '/dashboard/processors/', '/dashboard/team/', '/dashboard/audit/'];
const GROUPS = ['Payments', 'Balance', 'Customers', 'Products and subscriptions', 'Developers', 'Settings'];

describe.each(ENGINES)('dashboard navigation on %s', (engine) => {
  const svc = useTestService(engine, 'Nav shop');

  it('groups the links by job, marks the current page, shows owners their links only, and the environment with its mode', async () => {
    const { browser: owner } = await member(svc.t, svc.api, 'owner');
    const page = await owner.get('/dashboard/balance/');
    expect(page.status).toBe(200);
    const nav = navOf(page.text);
    expect(nav.groups).toEqual(GROUPS);
    expect(nav.hrefs).toEqual(OWNER_LINKS);
    expect(nav.current).toEqual(['/dashboard/balance/']);
    expect(page.text).toMatch(/<p class="env" data-testid="environment">Nav shop <span class="mode" data-mode="sandbox">sandbox<\/span><\/p>/);

    const { browser: viewer } = await member(svc.t, svc.api, 'viewer');
    const seen = navOf((await viewer.get('/dashboard/events/')).text);
    expect(seen.groups).toEqual(GROUPS);
    expect(seen.hrefs).toEqual(OWNER_LINKS.filter((href) => !OWNERS_ONLY.includes(href)));
    expect(seen.current).toEqual(['/dashboard/events/']);
  });

  it('shows clients, wallets and stored cards once the environment has any, or on their own page', async () => {
    const { browser } = await member(svc.t, svc.api, 'admin');
    const platform = (html: string) => navOf(html).hrefs.filter((h) => /clients|wallets|authorizations/.test(h));
    // The Customers page is always there: every shop with payments has customers.
    let home = navOf((await browser.get('/dashboard/')).text);
    expect(home.hrefs.filter((h) => h.includes('/customers/'))).toEqual(['/dashboard/customers/']);
    expect(platform((await browser.get('/dashboard/')).text)).toEqual([]);
    // On its own page, the section is in the navigation and marked, its group with it.
    const clientsPage = navOf((await browser.get('/dashboard/clients/')).text);
    expect(clientsPage.groups).toContain('Customers');
    expect(clientsPage.current).toEqual(['/dashboard/clients/']);
    expect(platform((await browser.get('/dashboard/authorizations/')).text)).toEqual(['/dashboard/authorizations/']);

    const client = await svc.api.post('/client/', { name: 'Ada Lovelace', id_country: 'GB', id_number: 'AL1815', email: 'ada@shop.example' });
    expect(client.status).toBe(201);
    home = navOf((await browser.get('/dashboard/')).text);
    expect(home.groups).toEqual(['Payments', 'Balance', 'Customers', 'Products and subscriptions', 'Developers', 'Settings']);
    expect(platform((await browser.get('/dashboard/')).text)).toEqual(['/dashboard/clients/']);

    const wallet = await svc.api.post('/wallet/', { wallet_id: 'nav-w', name: 'W', client_id: client.body.id, currency: 'EUR' });
    expect(wallet.status).toBe(201);
    const card = await svc.api.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '11/33', cvc: '123', name: 'A' } });
    expect(card.status).toBe(201);
    expect(platform((await browser.get('/dashboard/')).text)).toEqual(['/dashboard/authorizations/', '/dashboard/clients/', '/dashboard/wallets/']);
  });

  it('a live environment says so beside its name', async () => {
    const live = new Client(svc.t.url, await createEnvironment(svc.t.service.deps.database.db, { name: 'Nav live', mode: 'live', now: new Date() }));
    const { browser } = await member(svc.t, live, 'owner');
    expect((await browser.get('/dashboard/')).text).toContain('<p class="env" data-testid="environment">Nav live <span class="mode" data-mode="live">live</span></p>');
  });
});
