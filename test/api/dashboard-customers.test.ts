import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, member } from './dashboard';
import { clientBody } from './documents';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { paidTransaction, priced } from './pay';

// The dashboard's Customers page (issue 47): API clients and payers known by the email on
// their payments in one list (one row per customer, emails matched trimmed and in any
// capitals), with their payments, lifetime value and last payment; its search and paging;
// a customer's page; demo and test-tool payments hidden as on the payments list; and
// another environment's customers never listed nor reachable.

/** The rows of a customers list, in order: what each links to and its cells' text. */
function rowsOf(html: string) {
  return [...html.matchAll(/<tr data-customer="([^"]+)">(.*?)<\/tr>/gs)].map(([, id, row]) => ({
    id: id!,
    href: /<a href="([^"]+)"/.exec(row!)![1]!,
    cells: [...row!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map(([, cell]) => cell!.replace(/<[^>]+>/g, '')),
  }));
}

describe.each(ENGINES)('dashboard customers on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let viewer: Browser;
  let ada: { id: string };
  let bobFirst: { transaction: any; sale: any };
  let adaPayment: { transaction: any; sale: any };

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Customers shop');
    viewer = (await member(t, shop, 'viewer')).browser;
    const created = await shop.post('/client/', clientBody({ name: 'Ada & "Lovelace"', email: 'Ada@Analytical.example' }));
    expect(created.status, created.text).toBe(201);
    ada = created.body;
    // Ada's payment, her email in other capitals: hers, not a payer's of its own.
    adaPayment = await paidTransaction(shop, priced('EUR', 7, { customer_email: 'ada@ANALYTICAL.example' }));
    bobFirst = await paidTransaction(shop, priced('EUR', 10, { customer_email: 'bob@payer.example' }));
    await paidTransaction(shop, priced('EUR', 5.05, { customer_email: 'Bob@Payer.example' }));
    await paidTransaction(shop, priced('USD', 3, { customer_email: 'bob@payer.example' }));
    // A partial refund: Bob's lifetime value in euros is 10.00 + 5.05 − 2.50.
    expect((await shop.post(`/sale/${bobFirst.sale.id}/refund/`, { amount: 2.5 })).status).toBe(200);
    // Carol only opened a payment: a customer with one payment and nothing paid.
    expect((await shop.post('/transaction/', priced('EUR', 4, { customer_email: 'carol@payer.example' }))).status).toBe(201);
  });
  afterAll(() => t?.close());

  it('lists clients and payers, one row per customer, newest activity first, with payments, lifetime value and last payment', async () => {
    const page = await viewer.get('/dashboard/customers/');
    expect(page.status).toBe(200);
    const rows = rowsOf(page.text);
    expect(rows.map((r) => r.cells[1])).toEqual(['carol@payer.example', 'bob@payer.example', 'Ada@Analytical.example']);
    const [carol, bob, adaRow] = rows;
    expect(carol!.cells.slice(2, 4)).toEqual(['1', '—']);
    expect(bob!.cells.slice(2, 4)).toEqual(['3', '€12.55, $3.00']);
    expect(bob!.href).toBe(`/dashboard/customers/payers/${bobFirst.transaction.id}/`);
    expect(adaRow!.cells.slice(2, 4)).toEqual(['1', '€7.00']);
    expect(adaRow!.href).toBe(`/dashboard/customers/clients/${ada.id}/`);
    // The client's name is text, never markup.
    expect(page.text).toMatch(/>Ada &amp; (&quot;|")Lovelace(&quot;|")<\/a>/);
    expect(page.text).not.toContain('Ada & ');
    expect(bob!.cells[4]).toMatch(/\d/);
    expect(page.text).toContain('aria-current="page"');
    expect(page.text).toContain('href="/dashboard/customers/"');
  });

  it('finds customers by name or email, in any capitals, with LIKE characters taken literally', async () => {
    const emails = async (q: string) => rowsOf((await viewer.get(`/dashboard/customers/?q=${encodeURIComponent(q)}`)).text).map((r) => r.cells[1]);
    expect(await emails('PAYER.example')).toEqual(['carol@payer.example', 'bob@payer.example']);
    expect(await emails('lovelace')).toEqual(['Ada@Analytical.example']);
    expect(await emails('bob@')).toEqual(['bob@payer.example']);
    expect(await emails('%')).toEqual([]);
    expect((await viewer.get('/dashboard/customers/?q=_')).text).toContain('No customers match this search.');
    // A text that is no search is ignored rather than refused.
    for (const q of ['%01', 'x%00y', 'x%ED%A0%80y']) expect((await viewer.get(`/dashboard/customers/?q=${q}`)).status, q).toBe(200);
    expect((await viewer.get('/dashboard/customers/?q=x%00y')).text).toContain('carol@payer.example');
    expect((await viewer.get(`/dashboard/customers/?q=${'x'.repeat(5000)}&page=-3`)).status).toBe(200);
  });

  it("shows a payer's payments and lifetime value, and sends a client's email to the client's page", async () => {
    const bob = await viewer.get(`/dashboard/customers/payers/${bobFirst.transaction.id}/`);
    expect(bob.status).toBe(200);
    expect(/<dd id="lifetime-value">(.*?)<\/dd>/.exec(bob.text)?.[1]).toBe('€12.55, $3.00');
    expect(bob.text.match(/<tr data-payment=/g)).toHaveLength(3);
    expect(bob.text).toContain(`href="/dashboard/transactions/${bobFirst.transaction.id}/"`);
    expect(bob.text).not.toContain(`href="/dashboard/transactions/${adaPayment.transaction.id}/"`);
    expect(bob.text).toContain('No saved cards.');

    const viaPayment = await viewer.get(`/dashboard/customers/payers/${adaPayment.transaction.id}/`);
    expect(viaPayment.status).toBe(303);
    expect(viaPayment.location).toBe(`/dashboard/customers/clients/${ada.id}/`);
    const adaPage = await viewer.get(viaPayment.location!);
    expect(adaPage.status).toBe(200);
    expect(adaPage.text).toContain(`href="/dashboard/transactions/${adaPayment.transaction.id}/"`);
    expect(adaPage.text.match(/<tr data-payment=/g)).toHaveLength(1);
    expect(adaPage.text).toContain(`href="/dashboard/clients/${ada.id}/"`);
    expect(adaPage.text).toContain('No wallets.');
    expect(adaPage.text).not.toContain('Ada & ');
  });

  it('pages the list, 20 a page', async () => {
    const env = await t.newEnvironment('Many customers');
    for (let i = 0; i < 21; i++) expect((await env.post('/transaction/', priced('EUR', 1, { customer_email: `payer${i}@many.example` }))).status).toBe(201);
    const { browser } = await member(t, env, 'viewer');
    const first = await browser.get('/dashboard/customers/');
    const second = await browser.get('/dashboard/customers/?page=2');
    expect(rowsOf(first.text)).toHaveLength(20);
    expect(first.text).toContain('Page 1 of 2');
    expect(first.text).toContain('href="/dashboard/customers/?page=2"');
    const all = [...rowsOf(first.text), ...rowsOf(second.text)].map((r) => r.cells[1]);
    expect(new Set(all).size).toBe(21);
    expect(all.at(-1)).toBe('payer0@many.example');
  });

  it("hides the demo shop's and npm run trigger's payers unless asked, as the payments list does", async () => {
    const env = await t.newEnvironment('Tools shop');
    await env.post('/transaction/', priced('EUR', 1, { customer_email: 'demo@tools.example', order_id: 'demo-1' }));
    await env.post('/transaction/', priced('EUR', 1, { customer_email: 'trigger@tools.example', order_id: 'trigger-1' }));
    await env.post('/transaction/', priced('EUR', 1, { customer_email: 'real@tools.example', order_id: 'order-1' }));
    const { browser } = await member(t, env, 'viewer');
    expect(rowsOf((await browser.get('/dashboard/customers/')).text).map((r) => r.cells[1])).toEqual(['real@tools.example']);
    expect(
      rowsOf((await browser.get('/dashboard/customers/?all=1')).text)
        .map((r) => r.cells[1])
        .sort(),
    ).toEqual(['demo@tools.example', 'real@tools.example', 'trigger@tools.example']);
  });

  it("never lists nor shows another environment's customers", async () => {
    const other = await t.newEnvironment('Other shop');
    await other.post('/transaction/', priced('EUR', 1, { customer_email: 'zed@other.example' }));
    const { browser: stranger } = await member(t, other, 'admin');
    const list = await stranger.get('/dashboard/customers/?all=1');
    expect(rowsOf(list.text).map((r) => r.cells[1])).toEqual(['zed@other.example']);
    for (const q of ['bob', 'Ada', 'payer']) expect(rowsOf((await stranger.get(`/dashboard/customers/?q=${q}`)).text), q).toEqual([]);
    expect((await stranger.get(`/dashboard/customers/payers/${bobFirst.transaction.id}/`)).status).toBe(404);
    expect((await stranger.get(`/dashboard/customers/payers/${adaPayment.transaction.id}/`)).status).toBe(404);
    expect((await stranger.get(`/dashboard/customers/clients/${ada.id}/`)).status).toBe(404);
    for (const id of ['nope', '00000000-0000-7000-8000-000000000000']) {
      expect((await viewer.get(`/dashboard/customers/clients/${id}/`)).status).toBe(404);
      expect((await viewer.get(`/dashboard/customers/payers/${id}/`)).status).toBe(404);
    }
    expect((await new Browser(t.url).get('/dashboard/customers/')).status).toBe(303);
  });
});
