import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';
import { CARDS, expect, type Service, startService, test } from './fixtures';
import { payByCard, richTransactions, signUp } from './dashboard-data';
import { LAPTOP } from './screen';

// The screenshots of docs/dashboard.md, made from the real service in Chromium at 360 px and
// 1280 px: sign-in, the transactions list, a transaction, then every other page a merchant
// works in. `npm run docs:screenshots` writes them into docs/images/; any other run writes
// them into the test's output folder, so the pages and the size budget are checked without
// touching the docs.

const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';
const DOCS_IMAGES = new URL('../../docs/images/', import.meta.url).pathname;
/** Each PNG stays small enough for a README-style page to load quickly. */
const MAX_BYTES = 150 * 1024;
const SIZES = [
  { width: 360, height: 740 },
  LAPTOP,
];

/** Shoots the page as it is at each size, into docs/images/ or the test's output folder. */
function shooter(page: Page, info: TestInfo) {
  return async (name: string) => {
    for (const size of SIZES) {
      await page.setViewportSize(size);
      const file = join(UPDATE ? DOCS_IMAGES : info.outputPath(), `dashboard-${name}-${size.width}.png`);
      await page.screenshot({ path: file, animations: 'disabled' });
      expect(statSync(file).size, file).toBeLessThan(MAX_BYTES);
    }
  };
}


test('screenshots of sign-in, the transactions list and a transaction, each under 150 KB', async ({ page, service }, info) => {
  test.setTimeout(180_000);
  const { held } = await richTransactions(service, 'docs');
  for (const [i, price] of [12.5, 89, 240].entries()) await service.createTransaction({ currency: 'EUR', order_id: `order-100${i}`, products: [{ amount: 1, product: { name: 'Desk lamp', price } }] });
  await signUp(page, service, 'docs@shop.example', 'admin');

  const shots: [string, string][] = [
    ['transactions', `${service.url}/dashboard/transactions/`],
    ['transaction', `${service.url}/dashboard/transactions/${held.id}/`],
  ];
  const take = shooter(page, info);
  await page.emulateMedia({ colorScheme: 'light' });
  for (const [name, url] of shots) {
    await page.goto(url);
    await take(name);
  }
  await page.context().clearCookies();
  await page.goto(`${service.url}/dashboard/sign-in/`);
  await take('sign-in');
});

test('screenshots of the overview, search, events, endpoints and one with its attempts, API requests, catalogue, customers, clients, subscriptions, stored cards, wallets, balance, payouts, disputes, a dispute, export, settings and notifications, each under 150 KB', async ({ page }, info) => {
  test.setTimeout(300_000);
  // Disputes opened by the sandbox bank at once, so a dispute's page has one to show.
  const { service, stop } = await startService({ SANDBOX_DISPUTE_DELAY_MS: '0' });
  try {
    await shootEveryPage(page, service, info);
  } finally {
    await stop();
  }
});

async function shootEveryPage(page: Page, service: Service, info: TestInfo) {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await service.api(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body;
  };
  // First, so that the payments below are sent to it: its page then lists attempts.
  const endpoint = await api('POST', '/webhook_endpoint/', { url: 'https://shop.example/hooks/payments', enabled_events: ['transaction.paid', 'sale.created', 'sale.refunded'], description: 'Order fulfilment' });
  await richTransactions(service, 'pages');
  const disputed = await service.createTransaction({ currency: 'EUR', order_id: 'disputed-pages', gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price: 30 } }] });
  await payByCard(page, disputed.payment_url, CARDS.disputedFraudulent);
  await api('POST', '/product/', { name: 'Desk lamp', price: 35, currency: 'EUR' });
  await api('POST', '/shipping/', { name: 'Courier', price: 4.95, currency: 'EUR' });
  const plan = await api('POST', '/plan/', { name: 'Tea club', amount: 7.25, currency: 'EUR', interval: 'month' });
  const card = await api('POST', '/authorization/', { gateway: '0190f5a0-0000-7000-8000-000000000001', card: { number: CARDS.approved, expiry: '12/34', cvc: '123', name: 'Ada Lovelace' } });
  const subscription = await api('POST', '/subscription/', { plan: plan.id, authorization: card.id, subscription_id: 'tea-ada' });
  await api('POST', `/subscription/${subscription.id}/start/`);
  await api('PATCH', '/payout_settings/', { iban: 'ES9121000418450200051332', schedule: 'weekly' });
  const event = (await api('GET', '/event/?type=sale.created')).results[0];
  const sale = (await api('GET', `/sale/?transaction_id=${disputed.id}`)).results[0];
  await expect.poll(async () => (await service.api('GET', `/dispute/?sale=${sale.id}`)).body.count, { timeout: 15_000 }).toBe(1);
  const dispute = (await api('GET', `/dispute/?sale=${sale.id}`)).results[0];
  await signUp(page, service, 'pages@shop.example', 'admin');
  // Its first attempts, failed (the shop's address cannot be reached from here), before its page is shot.
  const endpointPage = `${service.url}/dashboard/webhook-endpoints/${endpoint.id}/`;
  await expect.poll(async () => (await page.request.get(endpointPage)).text(), { timeout: 30_000 }).toContain('Send again');

  const take = shooter(page, info);
  await page.emulateMedia({ colorScheme: 'light' });
  const pages: [string, string][] = [
    ['overview', '/dashboard/'],
    ['search', '/dashboard/search/?q=4242'],
    // What a developer asks of this page: everything that happened to one object.
    ['events', `/dashboard/events/?object_id=${subscription.id}`],
    ['event', `/dashboard/events/${event.id}/`],
    ['webhook-endpoints', '/dashboard/webhook-endpoints/'],
    // Its attempts: the shop's address cannot be reached from here, so they failed.
    ['webhook-endpoint', `/dashboard/webhook-endpoints/${endpoint.id}/`],
    ['requests', '/dashboard/requests/'],
    ['catalogue', '/dashboard/catalogue/'],
    ['customers', '/dashboard/customers/'],
    ['clients', '/dashboard/clients/'],
    ['subscriptions', '/dashboard/subscriptions/'],
    ['subscription', `/dashboard/subscriptions/${subscription.id}/`],
    ['authorizations', '/dashboard/authorizations/'],
    ['wallets', '/dashboard/wallets/'],
    ['balance', '/dashboard/balance/'],
    ['payouts', '/dashboard/payouts/'],
    ['disputes', '/dashboard/disputes/'],
    ['dispute', `/dashboard/disputes/${dispute.id}/`],
    ['export', '/dashboard/export/'],
    ['settings', '/dashboard/settings/'],
    ['notifications', '/dashboard/account/notifications/'],
  ];
  for (const [name, path] of pages) {
    const res = await page.goto(`${service.url}${path}`);
    expect(res?.status(), path).toBe(200);
    await take(name);
  }
}
