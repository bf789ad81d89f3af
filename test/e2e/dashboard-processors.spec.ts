import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import { type RedsysDouble, startRedsysDouble } from '../redsys/server';
import { type StripeDouble, startStripeDouble } from '../stripe/server';
import { expect, type Service, startService, test } from './fixtures';
import { expectAccessible, signUp } from './dashboard-data';

// The Processors page in a real browser, with no script: an owner connects the demo
// sandbox's Stripe account (the Stripe test double stands in, STRIPE_API_URL), is refused
// a live key by field, replaces a rotated key, and disconnects after being asked once more.
// What the page does is what the API shows; no key typed in is ever drawn back into a
// page. Every state passes axe in light and dark at 360 and 1280 px. The same for a Redsys
// terminal (the Redsys test double stands in, REDSYS_URL): a short key refused by field,
// the terminal connected, its card and Bizum gateways and its notification URL shown, its
// key rotated, disconnected.

let service: Service;
let stripe: StripeDouble;
let redsys: RedsysDouble;
let stop: () => Promise<void>;
test.beforeAll(async () => {
  stripe = await startStripeDouble();
  redsys = await startRedsysDouble();
  ({ service, stop } = await startService({ BACKGROUND_WORK: 'false', STRIPE_API_URL: stripe.url, REDSYS_URL: redsys.url }));
});
test.afterAll(async () => {
  await stop?.();
  await stripe?.close();
  await redsys?.close();
});

const KEYS = {
  secret: 'sk_test_FAKEe2eDashboardKeySK01',
  rotated: 'sk_test_FAKEe2eDashboardKeySK02',
  live: 'sk_live_FAKE_not_a_real_key_dashboard_e2e_LV01',
  publishable: 'pk_test_FAKEe2eDashboardKeyPK01',
  webhook: 'whsec_FAKE_E2eDashboardWebhook0001',
};

test('connect Stripe, replace a rotated key and disconnect it from the Processors page', async ({ page }) => {
  test.setTimeout(180_000);
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && scripts.push(r.url()));
  await signUp(page, service, 'processors@shop.example');
  await page.getByRole('link', { name: 'Processors' }).click();
  await expect(page.getByRole('heading', { name: 'Processors', level: 1 })).toBeVisible();
  await expect(page.getByText('No processor connected yet.')).toBeVisible();
  await expectAccessible(page);

  // A live key in a sandbox: refused by field, nothing asked of Stripe, no key drawn back.
  const asked = stripe.requests.length;
  await page.getByLabel('Secret key').fill(KEYS.live);
  await page.getByLabel('Publishable key').fill(KEYS.publishable);
  await page.getByLabel('Webhook signing secret').fill(KEYS.webhook);
  await page.getByLabel('Statement descriptor (optional)').fill('E2E SHOP');
  await page.getByRole('button', { name: 'Connect Stripe' }).click();
  await expect(page.getByRole('alert')).toContainText('Secret key: is a live key');
  expect(stripe.requests.length).toBe(asked);
  expect(await page.content()).not.toContain(KEYS.live);
  await expect(page.getByLabel('Statement descriptor (optional)')).toHaveValue('E2E SHOP');
  await expectAccessible(page);

  await page.getByLabel('Secret key').fill(KEYS.secret);
  await page.getByLabel('Publishable key').fill(KEYS.publishable);
  await page.getByLabel('Webhook signing secret').fill(KEYS.webhook);
  await page.getByRole('button', { name: 'Connect Stripe' }).click();
  await expect(page.getByRole('status')).toHaveText('Connected. Register the webhook URL at Stripe now.');
  await expect(page.getByTestId('processor-last4')).toHaveText('…SK01');
  const listed = await service.api('GET', '/processor/');
  expect(listed.body).toMatchObject({ count: 1, results: [{ type: 'stripe', secret_key_last4: 'SK01', statement_descriptor: 'E2E SHOP' }] });
  const processor = listed.body.results[0];
  await expect(page.getByTestId('processor-webhook-url')).toHaveText(processor.webhook_url);
  for (const key of Object.values(KEYS)) expect(await page.content()).not.toContain(key);
  await expectAccessible(page);

  // The list shows it, and no longer offers to connect a second.
  await page.getByRole('link', { name: 'Processors' }).first().click();
  await expect(page.getByRole('link', { name: 'Stripe' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Connect Stripe' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Stripe' }).click();

  // A rotated secret key: the others left empty stay as they were.
  await page.getByLabel('Secret key').fill(KEYS.rotated);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('status')).toHaveText('Changes saved: new payments use them at once.');
  await expect(page.getByTestId('processor-last4')).toHaveText('…SK02');
  expect((await service.api('GET', `/processor/${processor.id}/`)).body).toMatchObject({ secret_key_last4: 'SK02', statement_descriptor: 'E2E SHOP' });

  await page.getByRole('button', { name: 'Disconnect…' }).click();
  await expect(page.getByRole('heading', { name: 'Disconnect this Stripe account?' })).toBeVisible();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Yes, disconnect it' }).click();
  await expect(page.getByRole('status')).toHaveText('Disconnected.');
  expect((await service.api('GET', `/processor/${processor.id}/`)).status).toBe(404);
  await expect(page.getByRole('button', { name: 'Connect Stripe' })).toBeVisible();
  expect(scripts).toEqual([]);
  // No key typed in reached the service's log either.
  for (const key of Object.values(KEYS)) expect(service.logLines().join('\n')).not.toContain(key);
});

test('connect a Redsys terminal, see its gateways and notification URL, rotate its key and disconnect it', async ({ page }) => {
  test.setTimeout(180_000);
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && scripts.push(r.url()));
  const shortKey = 'c2hvcnRLZXlGQUtF';
  await signUp(page, service, 'redsys-processors@shop.example');
  await page.getByRole('link', { name: 'Processors' }).click();
  await expect(page.getByRole('heading', { name: 'Connect a Redsys terminal', level: 2 })).toBeVisible();

  // A key that is too short: refused by field, Redsys not asked, the merchant code kept, the key not.
  const asked = redsys.requests.length;
  await page.getByLabel('Merchant code').fill(PUBLIC_TEST_MERCHANT);
  await page.getByLabel('Terminal number').fill('1');
  await page.getByLabel('Terminal key (base64)').fill(shortKey);
  await page.getByRole('button', { name: 'Connect Redsys' }).click();
  await expect(page.getByRole('alert')).toContainText('Terminal key (base64):');
  expect(redsys.requests.length).toBe(asked);
  await expect(page.getByLabel('Merchant code')).toHaveValue(PUBLIC_TEST_MERCHANT);
  expect(await page.content()).not.toContain(shortKey);
  await expectAccessible(page);

  await page.getByLabel('Terminal key (base64)').fill(PUBLIC_TEST_KEY);
  await page.getByLabel('Signature version').selectOption('HMAC_SHA256_V1');
  await page.getByRole('button', { name: 'Connect Redsys' }).click();
  await expect(page.getByRole('status')).toHaveText('Connected. Register the notification URL at your bank now.');
  const processor = ((await service.api('GET', '/processor/')).body.results as { id: string; type: string; webhook_url: string }[]).find((p) => p.type === 'redsys')!;
  await expect(page.getByTestId('processor-webhook-url')).toHaveText(processor.webhook_url);
  await expect(page.getByTestId('processor-gateways')).toContainText('Card');
  await expect(page.getByTestId('processor-gateways')).toContainText('Bizum');
  await expect(page.getByTestId('processor-last4')).toHaveText(`…${PUBLIC_TEST_KEY.slice(-4)}`);
  expect(await page.content()).not.toContain(PUBLIC_TEST_KEY);
  await expectAccessible(page);

  // The key rotated (the same test key: the double knows no other), the version kept.
  await page.getByLabel('Terminal key (base64)').fill(PUBLIC_TEST_KEY);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('status')).toHaveText('Changes saved: new payments use them at once.');

  await page.getByRole('button', { name: 'Disconnect…' }).click();
  await expect(page.getByRole('heading', { name: 'Disconnect this Redsys terminal?' })).toBeVisible();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Yes, disconnect it' }).click();
  await expect(page.getByRole('status')).toHaveText('Disconnected.');
  expect((await service.api('GET', `/processor/${processor.id}/`)).status).toBe(404);
  await expect(page.getByRole('button', { name: 'Connect Redsys' })).toBeVisible();
  expect(scripts).toEqual([]);
  expect(service.logLines().join('\n')).not.toContain(PUBLIC_TEST_KEY);
});
