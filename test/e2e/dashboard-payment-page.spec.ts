import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Service, startService, test } from './fixtures';
import { expectAccessible, payAsCustomer, signUp } from './dashboard-data';
import { serviceClock } from '../service-clock';

// A paid payment's page in Chromium (issue 47): the 3-D Secure result in words, the
// customer's language, the receipt line, the timeline with its events in words and the webhook's HTTP status as the
// merchant's server answered it, the API object opened, a note added to it, and "Resend receipt": refused within a
// minute of the last receipt, then queued and sent by the mail job, the timeline showing
// both emails. axe in light and dark at 360 and 1280 px. The minute is crossed by moving the
// service's clock (TEST_CLOCK_FILE), not waited.

const FRICTIONLESS = '4000 0000 0000 3055';

let service: Service;
let stop: () => Promise<void>;
let notifyUrl = '';
let clockDir = '';
let clock: ReturnType<typeof serviceClock>;
const arrivals: string[] = [];
const receiver = createServer((req, res) => {
  arrivals.push(String(req.headers['webhook-id']));
  req.resume();
  res.writeHead(200).end('thanks');
});

test.beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  clockDir = mkdtempSync(join(tmpdir(), 'checkout-e2e-clock-'));
  clock = serviceClock(clockDir);
  ({ service, stop } = await startService({ ALLOW_PRIVATE_NOTIFY_URLS: 'true', ...clock.env }));
});
test.afterAll(async () => {
  await stop?.();
  await new Promise<void>((r) => receiver.close(() => r()));
  if (clockDir) rmSync(clockDir, { recursive: true, force: true });
});

test('a paid payment’s page: 3-D Secure, receipt, timeline with its events in words and the webhook’s HTTP status, a note; resend the receipt', async ({ page }) => {
  // A payment and three pages' axe matrix (twelve analyses): over 30 s on a busy machine.
  test.setTimeout(240_000);
  const email = 'paypage.customer@example.com';
  // In Spanish: the page is shown in the transaction's language, which its attempt keeps.
  const tx = await service.createTransaction({ currency: 'EUR', order_id: 'paypage-1', language: 'es', gateway_selected: true, customer_email: email, notify_url: notifyUrl, products: [{ amount: 1, product: { name: 'Desk lamp', price: 30 } }] });
  // Paid as its screen pays (the page's JSON post, which must answer the paid view), not
  // drawn in Chromium: the subject is the dashboard's page of the payment.
  await payAsCustomer(tx.payment_url, FRICTIONLESS);
  await expect.poll(() => arrivals.length, { timeout: 20_000 }).toBeGreaterThan(0);
  await signUp(page, service, 'paypage@shop.example');

  const url = `${service.url}/dashboard/transactions/${tx.id}/`;
  await page.goto(url);
  await expect(page.getByTestId('authentication')).toHaveText('Authenticated (frictionless)');
  await expect(page.getByTestId('language')).toHaveText('Spanish');
  // The mail job sends the receipt within a second or two of the payment.
  await expect
    .poll(async () => {
      await page.goto(url);
      return page.getByTestId('receipt').textContent();
    }, { timeout: 20_000 })
    .toMatch(/^Sent to paypage\.customer@example\.com on /);
  const timeline = page.locator('ol.history');
  // Each event in words, linked to its page, its type beside it for developers.
  await expect(timeline.getByRole('link', { name: 'Payment succeeded' })).toBeVisible();
  await expect(timeline.getByText('transaction.paid', { exact: true })).toBeVisible();
  await expect(timeline.getByTestId('webhook').first()).toHaveText('Webhook to the payment’s notify_url: Delivered, HTTP 200');
  await expect(timeline.getByTestId('timeline-mail')).toHaveText(['Receipt emailed to the customer']);
  // The API object, for developers: closed until asked (no script), then the JSON the API answers.
  const apiObject = page.getByTestId('api-object');
  await expect(apiObject.getByTestId('api-transaction')).toBeHidden();
  await apiObject.getByText('API object (for developers)').click();
  await expect(apiObject.getByTestId('api-transaction')).toContainText('"order_id": "paypage-1"');
  await expect(apiObject.getByTestId('api-sale')).toContainText(`"transaction_id": "${tx.id}"`);
  await expectAccessible(page);

  // Within the minute: refused, politely, on the page.
  await page.getByRole('button', { name: 'Resend receipt' }).click();
  await expect(page.getByRole('status')).toContainText('Not sent: this payment’s receipt was queued less than a minute ago.');
  await expectAccessible(page);

  // While the minute passes, a note for the team: on the timeline at once, with its author, as text.
  const note = 'Customer called: <b>ship</b> today\nhttps://tracking.example/parcel/ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  await page.getByLabel('Add a note').fill(note);
  await page.getByRole('button', { name: 'Add note' }).click();
  await expect(page.getByRole('status')).toHaveText('Note added to the timeline.');
  await expect(timeline.getByTestId('timeline-note')).toHaveText(`Note by paypage@shop.example: ${note}`);
  await expect(timeline.locator('b')).toHaveCount(0);
  await expectAccessible(page);

  // A minute and a second on from now, so past the first receipt's minute, queued before.
  clock.set(61_000);
  await page.getByRole('button', { name: 'Resend receipt' }).click();
  await expect(page.getByRole('status')).toHaveText(`Receipt queued: it goes to ${email} in a moment.`);
  await expect
    .poll(async () => {
      await page.goto(url);
      return page.getByTestId('timeline-mail').allTextContents();
    }, { timeout: 20_000 })
    .toEqual(['Receipt emailed to the customer', 'Receipt emailed to the customer']);
  await expectAccessible(page);
});
