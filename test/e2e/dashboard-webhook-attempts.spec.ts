import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Service, startService, test } from './fixtures';
import { expectAccessible, signUp } from './dashboard-data';

// Issue 47's daily job "find a failing webhook attempt and retry it", in Chromium with no
// script: the merchant's server refuses the deliveries (500), the merchant finds the failed
// attempts on the endpoint's page, presses Send again by keyboard once the server is fixed,
// and sees the new attempt delivered. axe in light and dark at 360 and 1280 px. The service
// runs its background work: its delivery job makes the attempts, as it would for a shop.

let service: Service;
let stop: () => Promise<void>;
let url = '';
/** The merchant's server: down until the test fixes it. */
let down = true;
const arrivals: string[] = [];
const receiver = createServer((req, res) => {
  arrivals.push(String(req.headers['webhook-id']));
  req.resume();
  res.writeHead(down ? 500 : 200, { 'content-type': 'text/plain' }).end(down ? 'Order system down <maintenance>' : 'thanks');
});

test.beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  ({ service, stop } = await startService({ ALLOW_PRIVATE_NOTIFY_URLS: 'true' }));
});
test.afterAll(async () => {
  await stop?.();
  await new Promise((r) => receiver.close(r));
});

test('find a failing webhook attempt on its endpoint’s page and send it again', async ({ page }) => {
  // Two pages' axe matrix (eight analyses) and the delivery job's first retry, 5 s on.
  test.setTimeout(240_000);
  const created = await service.api('POST', '/webhook_endpoint/', { url, enabled_events: ['product.created'], description: 'Order system' });
  expect(created.status).toBe(201);
  expect((await service.api('POST', '/product/', { name: 'Desk lamp', price: 30, currency: 'EUR' })).status).toBe(201);
  // The first attempt and the job's own retry, both refused: its next retry is minutes away,
  // so the attempt after the button is the button's.
  await expect.poll(() => arrivals.length, { timeout: 30_000 }).toBe(2);

  await signUp(page, service, 'attempts@shop.example');
  await page.getByRole('link', { name: 'Webhook endpoints' }).click();
  await page.getByRole('link', { name: url }).click();
  await expect(page.getByRole('heading', { name: 'Order system' })).toBeVisible();
  const rows = page.locator('tr[data-attempt]');
  // An attempt is listed once recorded, just after its answer arrived.
  await expect(async () => {
    await page.reload();
    await expect(rows).toHaveCount(2, { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  for (const row of await rows.all()) {
    await expect(row).toContainText('product.created');
    await expect(row).toContainText('Failed');
    await expect(row.getByRole('cell', { name: '500', exact: true })).toBeVisible();
    await expect(row).toContainText('Order system down <maintenance>');
  }
  await expectAccessible(page);

  down = false;
  // By keyboard: to the newest failed attempt's button, and Enter.
  await rows.first().getByRole('link', { name: 'product.created' }).focus();
  await page.keyboard.press('Tab');
  await expect(rows.first().getByRole('button', { name: /^Send again/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toContainText('Queued: the event is sent to this endpoint again');
  await expect.poll(() => arrivals.length, { timeout: 20_000 }).toBe(3);
  // The same event each time, under its one webhook-id.
  expect(new Set(arrivals).size).toBe(1);
  await expect(async () => {
    await page.reload();
    await expect(rows).toHaveCount(3, { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(rows.first()).toContainText('Delivered');
  await expect(rows.first().getByRole('cell', { name: '200', exact: true })).toBeVisible();
  await expect(rows.first().getByRole('button')).toHaveCount(0);
  await expectAccessible(page);
});
