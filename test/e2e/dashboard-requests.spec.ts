import { expect, type Service, startService, test } from './fixtures';
import { expectAccessible, signUp } from './dashboard-data';

// Developers → API requests in a real browser (the dashboard sends no script): requests made with the demo
// environment's key appear in the log (within the request log's flush, about a second), the
// status in words beside its colour; the filter form (a GET form) finds one by its request
// id and by status class. axe finds nothing in light and dark, at 360 and 1280 px.

let service: Service;
let stop: () => Promise<void>;
test.beforeAll(async () => {
  ({ service, stop } = await startService({ BACKGROUND_WORK: 'false' }));
});
test.afterAll(() => stop?.());

test('the API request log lists the environment’s requests, and its filters find one by request id and by status', async ({ page }) => {
  test.setTimeout(120_000);
  // A query the list does not take: a 400 whose problem names its request id.
  const refused = await service.api('GET', '/transaction/?buyer=private.buyer%40shop.example');
  expect(refused.status).toBe(400);
  const requestId: string = refused.body.request_id;
  expect((await service.api('GET', '/transaction/')).status).toBe(200);

  await signUp(page, service, 'requests@shop.example');
  await page.getByRole('link', { name: 'API requests' }).click();
  await expect(page.getByRole('heading', { name: 'API requests' })).toBeVisible();
  // Written within a second of the answer: look again until it is there.
  const row = page.locator(`tr[data-request="${requestId}"]`);
  await expect(async () => {
    await page.reload();
    await expect(row).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 15_000 });
  await expect(row.getByRole('cell').nth(1)).toHaveText('/v1/transaction/');
  await expect(row.getByRole('cell').nth(2)).toHaveText('400 client error');
  expect(await page.content()).not.toContain('private.buyer');
  await expectAccessible(page);

  await page.getByLabel('Request id').fill(requestId);
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(new RegExp(`request_id=${requestId}`));
  await expect(page.locator('tbody tr')).toHaveCount(1);
  await expect(row).toBeVisible();

  await page.getByLabel('Request id').fill('');
  await page.getByLabel('Status').fill('2xx');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.locator('tbody tr').first()).toBeVisible();
  await expect(row).toHaveCount(0);
  for (const status of await page.locator('tbody tr td:nth-child(3)').allTextContents()) expect(status).toMatch(/^2\d\d success$/);
  await expectAccessible(page);
});
