import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './fixtures';

// The API reference at /docs/: Redoc, served by the service, rendering /v1/openapi.json.

interface Operation {
  operationId: string;
  summary: string;
}

test('the reference lists every operation of /v1/openapi.json, loads nothing from elsewhere, and passes axe', async ({ page, service }) => {
  // axe checks every node of a long page (some 70 operations with their schemas).
  test.setTimeout(180_000);
  const origin = new URL(service.url).origin;
  // Every request the page makes (blocked ones too), and whatever the console reports (a CSP violation, say).
  const elsewhere: string[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol === 'data:') return;
    if (url.protocol === 'blob:' ? !req.url().startsWith(`blob:${origin}/`) : url.origin !== origin) elsewhere.push(req.url());
  });
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(String(err)));

  const document = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
  const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
  expect(operations.length).toBeGreaterThan(50);

  const res = await page.goto(`${service.url}/docs/`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
  await expect(page.locator('[id^="operation/"]')).toHaveCount(operations.length);
  for (const op of operations) {
    const section = page.locator(`[id="operation/${op.operationId}"]`);
    await expect(section.locator('h2'), op.operationId).toHaveText(op.summary);
  }
  // The sidebar names them too (collapsed groups keep their items in the page).
  const menu = await page.getByRole('menuitem').allTextContents();
  for (const op of operations) expect(menu.some((text) => text.includes(op.summary)), op.summary).toBe(true);

  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.nodes.length} × ${v.nodes[0]?.target.join(' ')}`)).toEqual([]);

  expect(elsewhere).toEqual([]);
  expect(problems).toEqual([]);
});

test('/docs redirects to /docs/, and the demo page links to the reference', async ({ page, service }) => {
  const res = await fetch(`${service.url}/docs`, { redirect: 'manual' });
  expect(res.status).toBe(308);
  expect(res.headers.get('location')).toBe('/docs/');
  await page.goto(`${service.url}/demo/`);
  await page.getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(`${service.url}/docs/`);
  await expect(page.locator('h1').first()).toContainText('Payment Service API');
});
