import { expect, type Service, startService, test } from './fixtures';
import { expectAccessible, signUp } from './dashboard-data';
import { cancelToken } from '../api/pay';

// Events and webhook endpoints in a real browser, with no script: an endpoint created in
// the dashboard is the API's endpoint (and its secret is shown once); an event opened from
// the list shows the payload the API holds. Every page passes axe on the way. The service
// runs no background work, so deliveries stay as they were made.


let service: Service;
let stop: () => Promise<void>;
test.beforeAll(async () => {
  ({ service, stop } = await startService({ BACKGROUND_WORK: 'false' }));
});
test.afterAll(() => stop?.());



test('create a webhook endpoint in the dashboard and see it in the API; roll its secret; delete it', async ({ page }) => {
  test.setTimeout(120_000);
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && scripts.push(r.url()));
  await signUp(page, service, 'endpoints@shop.example');
  await page.getByRole('link', { name: 'Webhook endpoints' }).click();
  await expect(page.getByRole('heading', { name: 'Webhook endpoints' })).toBeVisible();
  await expectAccessible(page);
  // None yet: the empty list's call to action leads to the form.
  await page.getByRole('link', { name: 'Add an endpoint' }).click();
  await expectAccessible(page);
  // No event type chosen: the API's rule refuses it, naming the field.
  await page.getByLabel('All events').uncheck();
  await page.getByLabel('URL').fill('https://hooks.shop.example/orders');
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await expect(page.getByRole('alert')).toContainText('Nothing was saved');
  await expectAccessible(page);
  await page.getByLabel('Description').fill('Order system');
  await page.getByLabel('transaction.paid').check();
  await page.getByLabel('sale.refunded').check();
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await expect(page.getByRole('heading', { name: 'Order system' })).toBeVisible();
  const secret = (await page.getByTestId('endpoint-secret').textContent())!;
  expect(secret).toMatch(/^whsec_/);
  await expectAccessible(page);

  const listed = await service.api('GET', '/webhook_endpoint/');
  expect(listed.status).toBe(200);
  const endpoint = listed.body.results.find((e: { url: string }) => e.url === 'https://hooks.shop.example/orders');
  expect(endpoint).toMatchObject({ description: 'Order system', enabled_events: ['transaction.paid', 'sale.refunded'], enabled: true });
  expect(JSON.stringify(listed.body)).not.toContain(secret);

  // The list shows it without its secret; its page, again without it.
  await page.getByRole('link', { name: 'Webhook endpoints' }).first().click();
  await expect(page.getByRole('link', { name: 'https://hooks.shop.example/orders' })).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  await page.getByRole('link', { name: 'https://hooks.shop.example/orders' }).click();
  expect(await page.content()).not.toContain(secret);
  await page.getByRole('button', { name: 'Roll secret' }).click();
  await expect(page.getByRole('status')).toHaveText('Secret rolled.');
  const rolled = (await page.getByTestId('endpoint-secret').textContent())!;
  expect(rolled).toMatch(/^whsec_/);
  expect(rolled).not.toBe(secret);
  expect((await service.api('GET', `/webhook_endpoint/${endpoint.id}/`)).body.secret_rolled_until).toEqual(expect.any(String));

  await page.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('heading', { name: 'Delete this webhook endpoint?' })).toBeVisible();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByRole('status')).toHaveText('Deleted.');
  expect((await service.api('GET', `/webhook_endpoint/${endpoint.id}/`)).status).toBe(404);
  expect(scripts).toEqual([]);
});

test('open an event from the list and see its payload and deliveries', async ({ page }) => {
  test.setTimeout(120_000);
  const tx = await service.createTransaction({ currency: 'EUR', order_id: 'events-42', notify_url: 'https://shop.example/notify', products: [{ amount: 1, product: { name: 'Desk lamp', price: 30 } }] });
  // The customer cancels, through the page's own JSON post as its screen sends it once
  // confirmed (test/api/pay.ts; checkout.spec.ts draws the screens): a transaction.cancelled
  // event for the notify_url.
  expect(await cancelToken(service.url, tx.token)).toBe(200);
  expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('C');
  await signUp(page, service, 'events@shop.example');
  // The navigation's link: the Overview's recent activity has "All events" too.
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Events', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Events' })).toBeVisible();
  await expectAccessible(page);
  await page.getByLabel('Object').fill(tx.id);
  await page.getByRole('button', { name: 'Apply' }).click();
  const events = (await service.api('GET', `/event/?object_id=${tx.id}`)).body.results as { id: string; type: string; data: unknown }[];
  expect(events.length).toBeGreaterThan(0);
  await expect(page.locator('tbody tr')).toHaveCount(events.length);
  await page.getByRole('link', { name: events[0]!.type }).click();
  await expect(page.getByRole('heading', { name: `Event ${events[0]!.type}` })).toBeVisible();
  const payload = JSON.parse((await page.getByTestId('event-payload').textContent())!);
  expect(payload.data).toEqual(events[0]!.data);
  expect(payload).toMatchObject({ id: events[0]!.id, type: events[0]!.type });
  await expect(page.getByRole('link', { name: tx.id })).toHaveAttribute('href', `/dashboard/transactions/${tx.id}/`);
  await expect(page.getByRole('cell', { name: 'https://shop.example/notify' })).toBeVisible();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Send again now' }).click();
  await expect(page.getByRole('status')).toContainText('Queued');
});
