import type { Page } from '@playwright/test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Service, startService, test } from './fixtures';
import { Secret, TOTP } from 'otpauth';
import { cliInvite, expectAccessible, invite, keys, PASSWORD, payAsCustomer, richTransactions, signUp } from './dashboard-data';
import { cancelToken } from '../api/pay';

// The dashboard in Chromium against the real service: the merchant's first flow from an
// invite to a refund the API sees, by keyboard, and axe on every page in light and dark at
// 360 px and 1280 px.


// The tests share nothing but the worker's service (each makes its own sale, user and page),
// so the two workers split them rather than one running the whole file.
test.describe.configure({ mode: 'parallel' });

async function paidSale(service: Service, price: number, orderId: string) {
  const tx = await service.createTransaction({ currency: 'EUR', order_id: orderId, gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price } }] });
  await payAsCustomer(tx.payment_url);
  const sales = await service.api('GET', `/sale/?transaction_id=${tx.id}`);
  return { tx, sale: sales.body.results[0] as { id: string; created: string } };
}



test('invite → password → sign in → refund half a sale by keyboard, seen by the API', async ({ page, service }) => {
  const { tx, sale } = await paidSale(service, 40, 'lamp-1');
  // The operator's own command, as the README tells it (the other tests make its link in process).
  await page.goto(await cliInvite(service, 'owner@shop.example'));
  // Keyboard only from here.
  await page.getByLabel('New password').focus();
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await page.getByRole('link', { name: 'Transactions' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: 'lamp-1', exact: true }).focus();
  await page.keyboard.press('Enter');
  // Refund is a step of its own: the amount typed (not prefilled), a reason chosen.
  await page.getByRole('button', { name: 'Refund…' }).first().focus();
  await page.keyboard.press('Enter');
  const amount = page.getByLabel('Amount to refund (EUR)');
  await expect(amount).toHaveValue('');
  await amount.focus();
  await page.keyboard.type('20');
  await page.keyboard.press('Tab');
  await page.keyboard.press('ArrowDown');
  await expect(page.getByLabel('Reason')).toHaveValue('duplicate');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(page.getByText(/Refund €20.00 on visa •••• 4242/)).toBeVisible();
  await page.getByRole('button', { name: 'Yes, refund €20.00' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toHaveText('Done: Refund of €20.00.');
  expect(page.url()).toContain(`/dashboard/transactions/${tx.id}/`);
  const fromApi = await service.api('GET', `/sale/${sale.id}/`);
  expect(fromApi.body).toMatchObject({ refunded: 20, refundable: 20 });
});

test('a double-clicked refund confirmation refunds once', async ({ page, service }) => {
  const { tx, sale } = await paidSale(service, 30, 'lamp-2');
  await signUp(page, service, 'admin@shop.example', 'admin');
  await page.goto(`${service.url}/dashboard/transactions/${tx.id}/`);
  await page.getByRole('button', { name: 'Refund…' }).first().click();
  await page.getByLabel('Amount to refund (EUR)').fill('10');
  await page.getByLabel('Reason').selectOption('other');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Yes, refund €10.00' }).dblclick();
  await expect(page.getByRole('status')).toHaveText('Done: Refund of €10.00.');
  const fromApi = await service.api('GET', `/sale/${sale.id}/`);
  expect(fromApi.body.refunded).toBe(10);
  expect(fromApi.body.operations.filter((o: { kind: string }) => o.kind === 'refund')).toHaveLength(1);
});

test('a viewer sees no refund button, and its direct POST is 403', async ({ page, service }) => {
  const { tx, sale } = await paidSale(service, 12, 'lamp-3');
  await signUp(page, service, 'viewer@shop.example', 'viewer');
  await page.goto(`${service.url}/dashboard/transactions/${tx.id}/`);
  await expect(page.getByRole('heading', { name: /Sale / })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Refund' })).toHaveCount(0);
  const csrf = await page.locator('input[name="csrf"]').first().inputValue();
  // The session's own cookie and CSRF token: only the role can be the reason for the 403.
  const post = (idempotency?: string) =>
    page.request.post(`${service.url}/dashboard/sales/${sale.id}/refund/`, {
      form: { csrf, amount: '12.00', ...(idempotency ? { idempotency_key: idempotency } : {}) },
      headers: { origin: service.url },
      maxRedirects: 0,
    });
  expect((await post()).status()).toBe(403);
  expect((await post('k'.repeat(43))).status()).toBe(403);
  expect((await service.api('GET', `/sale/${sale.id}/`)).body.refunded).toBe(0);
});

test('keys created, rolled and revoked in the dashboard are what the API accepts', async ({ page, service }) => {
  await signUp(page, service, 'keys@shop.example');
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Label').fill('Warehouse');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.getByTestId('secret-key').innerText();
  const row = page.locator('tr', { hasText: 'Warehouse' });
  const publicKey = await row.locator('code').innerText();
  const call = (sk: string) =>
    fetch(`${service.url}/v1/transaction/`, { headers: { authorization: `AppKeys ${publicKey}:${sk}` } }).then((r) => r.status);
  expect(await call(secret)).toBe(200);
  await row.getByLabel('Old secret keeps working for').selectOption('0');
  await row.getByRole('button', { name: 'Roll secret' }).click();
  await page.getByRole('button', { name: 'Yes, roll it' }).click();
  const rolled = await page.getByTestId('secret-key').innerText();
  expect(await call(secret)).toBe(401);
  expect(await call(rolled)).toBe(200);
  // Reloading the page that showed it shows it no more, and rolls nothing.
  await page.reload();
  await expect(page.getByText('has already been shown')).toBeVisible();
  await expect(page.getByTestId('secret-key')).toHaveCount(0);
  expect(await call(rolled)).toBe(200);
  await page.goto(`${service.url}/dashboard/keys/`);
  await page.locator('tr', { hasText: 'Warehouse' }).getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('button', { name: 'Yes, revoke it' }).click();
  await expect(page.locator('tr', { hasText: 'Warehouse' })).toContainText('Revoked');
  expect(await call(rolled)).toBe(401);
});

test('a failed webhook delivery is seen with its attempt and sent again', async ({ page }) => {
  test.setTimeout(90_000);
  const answers = [500];
  const arrivals: string[] = [];
  const receiver = createServer((req, res) => {
    arrivals.push(String(req.headers['webhook-id']));
    req.resume();
    res.writeHead(answers.shift() ?? 200).end('thanks');
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const { service, stop } = await startService({ ALLOW_PRIVATE_NOTIFY_URLS: 'true' });
  try {
    const notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const tx = await service.createTransaction({ currency: 'EUR', notify_url: notifyUrl, products: [{ amount: 1, product: { name: 'Lamp', price: 5 } }] });
    await signUp(page, service, 'hooks@shop.example');
    // The customer cancels (through the page's own JSON post, as its screen sends it once
    // confirmed; checkout.spec.ts draws the screens): a transaction.cancelled event, which
    // the receiver refuses once.
    expect(await cancelToken(service.url, tx.token)).toBe(200);
    expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('C');
    await expect.poll(() => arrivals.length, { timeout: 20_000 }).toBe(1);
    await page.goto(`${service.url}/dashboard/webhooks/`);
    await page.getByRole('link', { name: 'transaction.cancelled' }).click();
    await expect(page.locator('tr[data-attempt="1"]')).toContainText('500');
    await expectAccessible(page);
    // The delivery job retries on its own too (backoff): on a busy machine its first retry
    // can come before or right after the click, so count from the click, not from one.
    // If that retry holds the delivery when the button is pressed, the page says an attempt
    // is in progress; the merchant presses again once it has finished, and so does this test.
    const before = arrivals.length;
    await expect(async () => {
      await page.getByRole('button', { name: 'Send again now' }).click();
      await expect(page.getByRole('status')).toContainText('Queued', { timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect.poll(() => arrivals.length, { timeout: 20_000 }).toBeGreaterThan(before);
    // Every delivery is the same event under the same webhook-id.
    expect(new Set(arrivals)).toEqual(new Set([arrivals[0]]));
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId('delivery-status')).toHaveText('delivered', { timeout: 1000 });
    }).toPass({ timeout: 20_000 });
  } finally {
    await stop();
    await new Promise((r) => receiver.close(r));
  }
});

test("a user of another environment gets nothing of this one; a post without its CSRF token is 403", async ({ page, service }) => {
  const { tx, sale } = await paidSale(service, 15, 'lamp-5');
  const other = await keys(service, ['create', '--name', 'Other shop']);
  await signUp(page, service, 'stranger@other.example', 'owner', other.environment_id);
  expect((await page.goto(`${service.url}/dashboard/transactions/${tx.id}/`))!.status()).toBe(404);
  await page.goto(`${service.url}/dashboard/transactions/`);
  await expect(page.getByRole('link', { name: 'lamp-5' })).toHaveCount(0);
  const csrf = await page.locator('input[name="csrf"]').first().inputValue();
  const refund = (form: Record<string, string>) =>
    page.request.post(`${service.url}/dashboard/sales/${sale.id}/refund/`, { form, headers: { origin: service.url }, maxRedirects: 0 });
  expect((await refund({ csrf, amount: '15.00', idempotency_key: 'k'.repeat(43) })).status()).toBe(404);
  // Without the token nothing runs, whatever the rest says.
  expect((await refund({ amount: '15.00', idempotency_key: 'k'.repeat(43) })).status()).toBe(403);
  const signOut = await page.request.post(`${service.url}/dashboard/sign-out/`, { form: {}, headers: { origin: service.url }, maxRedirects: 0 });
  expect(signOut.status()).toBe(403);
  await page.goto(`${service.url}/dashboard/`);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  expect((await service.api('GET', `/sale/${sale.id}/`)).body.refunded).toBe(0);
});

test('a wrong password until 429', async ({ page, service }) => {
  await signUp(page, service, 'target@shop.example');
  await page.context().clearCookies();
  for (let i = 0; i < 5; i++) {
    await page.goto(`${service.url}/dashboard/sign-in/`);
    await page.getByLabel('Email').fill('target@shop.example');
    await page.getByLabel('Password').fill(`not it ${i}`);
    const answer = page.waitForResponse((r) => r.url().endsWith('/dashboard/sign-in/') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await answer).status()).toBe(401);
  }
  await page.getByLabel('Password').fill(PASSWORD);
  const answer = page.waitForResponse((r) => r.url().endsWith('/dashboard/sign-in/') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const res = await answer;
  expect(res.status()).toBe(429);
  expect(Number(res.headers()['retry-after'])).toBeGreaterThan(0);
  await expect(page.getByRole('alert')).toContainText('Too many failed attempts');
});

test('a viewer exports the day\'s sales as CSV and the file holds the sale', async ({ page, service }) => {
  const { sale } = await paidSale(service, 18, 'lamp-export');
  await signUp(page, service, 'export@shop.example', 'viewer');
  await page.getByRole('link', { name: 'Export' }).click();
  await page.getByLabel('What to export').selectOption('sales');
  // The sale's own day (UTC): a run that crosses midnight must not look for it on the next.
  const today = String(sale.created).slice(0, 10);
  await page.getByLabel('From (inclusive)').fill(today);
  await page.getByLabel('To (inclusive)').fill(today);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`sales-${today}-${today}.csv`);
  const { readFile } = await import('node:fs/promises');
  const csv = (await readFile(await file.path())).toString('utf8');
  const line = csv.split('\r\n').find((l) => l.startsWith(sale.id));
  expect(line).toContain(',EUR,18.00,');
  expect(line).toContain(',4242,');
});

// Every page passes axe in light and dark at 360 px and 1280 px, with no script: 27 pages,
// four analyses each, in three tests (each signed in as an owner of the demo environment)
// so that the two workers share them; one test took 143 s of one worker, most of the run's
// tail (docs/performance-changelog.md).

/** Watches for the dashboard's scripts (there must be none) on `page`. */
function scriptsOf(page: Page): string[] {
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  return scripts;
}

async function expectEveryPageAccessible(page: Page, service: Service, paths: string[]): Promise<void> {
  for (const path of paths) {
    await page.goto(`${service.url}${path}`);
    await expectAccessible(page);
  }
}

test('every page passes axe in light and dark at 360 px and 1280 px, with no script: the invite, a sale and its refund, the lists and the search', async ({ page, service }) => {
  test.setTimeout(240_000);
  const scripts = scriptsOf(page);
  const { tx, sale } = await paidSale(service, 25, 'lamp-4');
  const link = await invite(service, 'axe@shop.example');
  await page.goto(link);
  await expectAccessible(page);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  // The sale's page is the last of these, and the refund's step is asked for from it.
  await expectEveryPageAccessible(page, service, ['/dashboard/', '/dashboard/transactions/', `/dashboard/transactions/${tx.id}/`]);
  expect(page.url()).toBe(`${service.url}/dashboard/transactions/${tx.id}/`);
  await page.getByRole('button', { name: 'Refund…' }).first().click();
  await expectAccessible(page);
  await page.goto(`${service.url}/dashboard/transactions/?order_id=none`);
  await expectAccessible(page);
  // The header's search box: its page without a text, with results, and with a text too long.
  await expectEveryPageAccessible(page, service, ['/dashboard/search/', '/dashboard/search/?q=lamp', `/dashboard/search/?q=${'x'.repeat(201)}`]);
  expect(scripts).toEqual([]);
  expect(sale.id).toBeTruthy();
});

test('every page passes axe in light and dark at 360 px and 1280 px, with no script: disputes, webhooks, export, settings, notifications, keys, team, audit, a missing page', async ({ page, service }) => {
  test.setTimeout(240_000);
  const scripts = scriptsOf(page);
  await signUp(page, service, 'axe-settings@shop.example');
  await expectEveryPageAccessible(page, service, ['/dashboard/disputes/', '/dashboard/webhooks/', '/dashboard/export/', '/dashboard/settings/', '/dashboard/account/notifications/', '/dashboard/keys/', '/dashboard/team/', '/dashboard/audit/', '/dashboard/nowhere/']);
  expect(scripts).toEqual([]);
});

test('every page passes axe in light and dark at 360 px and 1280 px, with no script: catalogue, clients, subscriptions, authorizations, wallets, events, endpoints, payouts, sign-in', async ({ page, service }) => {
  test.setTimeout(240_000);
  const scripts = scriptsOf(page);
  await signUp(page, service, 'axe-catalogue@shop.example');
  await expectEveryPageAccessible(page, service, ['/dashboard/catalogue/', '/dashboard/catalogue/coupon/new/', '/dashboard/clients/', '/dashboard/subscriptions/', '/dashboard/authorizations/', '/dashboard/wallets/', '/dashboard/events/', '/dashboard/webhook-endpoints/', '/dashboard/webhook-endpoints/new/', '/dashboard/payouts/']);
  await page.context().clearCookies();
  await page.goto(`${service.url}/dashboard/sign-in/`);
  await expectAccessible(page);
  expect(scripts).toEqual([]);
});

test('the search, a transaction with its card, wallets and history, and two-step sign-in pass axe in light and dark at 360 px and 1280 px', async ({ page, service }) => {
  // Nine pages, four analyses each.
  test.setTimeout(240_000);
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  const { held, fromWallet } = await richTransactions(service, 'axe2');
  await signUp(page, service, 'careful@shop.example', 'viewer');
  await page.goto(`${service.url}/dashboard/transactions/?q=grace.axe2%40example.com&from=2026-02-30`);
  await expect(page.getByRole('status')).toContainText('Not understood, so not applied: start date.');
  await expect(page.getByRole('link', { name: 'wallet-axe2' })).toBeVisible();
  await expectAccessible(page);
  await page.goto(`${service.url}/dashboard/transactions/${held.id}/`);
  await expect(page.getByRole('heading', { name: 'Stored card (authorization)' })).toBeVisible();
  await expectAccessible(page);
  await page.goto(`${service.url}/dashboard/transactions/${fromWallet.id}/`);
  await expect(page.getByRole('heading', { name: 'Paid from' })).toBeVisible();
  await expectAccessible(page);

  // Two-step sign-in, by its pages: set up (the QR code and the key), the recovery codes, on.
  await page.getByRole('link', { name: 'Security' }).click();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
  await expectAccessible(page);
  const secret = (await page.getByTestId('totp-secret').textContent())!;
  const code = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
  await page.getByLabel('Six-digit code').fill(code);
  await page.getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByRole('heading', { name: 'Two-step sign-in is on' })).toBeVisible();
  await expectAccessible(page);
  const recovery = (await page.getByTestId('recovery-codes').locator('code').allTextContents())[0]!;
  await page.getByRole('link', { name: 'I have saved them' }).click();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.getByLabel('Email').fill('careful@shop.example');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Enter your code' })).toBeVisible();
  await expectAccessible(page);
  // The app's code of this step was taken by the confirmation: a recovery code signs in.
  await page.getByLabel('Code from your authenticator app').fill(recovery);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  expect(scripts).toEqual([]);
});
