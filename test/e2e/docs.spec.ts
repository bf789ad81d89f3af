import type { Page } from '@playwright/test';
import { axeViolations } from './axe';
import { expect, type Service, test } from './fixtures';

// The API reference at /docs/: HTML rendered by the service from /v1/openapi.json. The
// whole reference is in the first response, so every check here waits for nothing but
// the page load (or for what it checks, through expect's retries).

interface Operation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
}

// The tests share nothing but the worker's service and read only the reference it serves,
// so the two workers split them (the four axe runs over the whole page above all).
test.describe.configure({ mode: 'parallel' });

/** The document's descriptions are Markdown: the page shows `code` without its backticks. */
const plain = (text: string) => text.replaceAll('`', '');

async function operationsOf(service: Service): Promise<Operation[]> {
  const document = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string; summary: string }>>;
  };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ operationId: op.operationId, summary: op.summary, method: method.toUpperCase(), path: `/v1${path}` })),
  );
  expect(operations.length).toBeGreaterThan(50);
  return operations;
}

/** What the page shows of each operation, and the sidebar's links, read in one go. */
async function readPage(page: Page) {
  return page.evaluate(() => ({
    sections: [...document.querySelectorAll('section[id^="operation/"]')].map((s) => ({
      id: s.id,
      heading: s.querySelector('h3')?.textContent ?? '',
      endpoint: s.querySelector('.endpoint')?.textContent ?? '',
    })),
    sidebar: [...document.querySelectorAll('nav[aria-label="Contents"] a[href^="#operation/"]')].map((a) => ({
      href: a.getAttribute('href'),
      text: a.textContent ?? '',
    })),
  }));
}

function expectEveryOperation(operations: Operation[], shown: Awaited<ReturnType<typeof readPage>>) {
  expect(shown.sections.map((s) => s.id).sort()).toEqual(operations.map((op) => `operation/${op.operationId}`).sort());
  for (const op of operations) {
    const section = shown.sections.find((s) => s.id === `operation/${op.operationId}`)!;
    expect(section.heading, op.operationId).toBe(plain(op.summary));
    expect(section.endpoint, op.operationId).toBe(`${op.method} ${op.path}`);
    const link = shown.sidebar.find((a) => a.href === `#operation/${op.operationId}`);
    expect(link?.text, op.operationId).toBe(`${op.method} ${plain(op.summary)}`);
  }
}

/** Fails the test on any request to another origin and on anything the console reports. */
function watch(page: Page, origin: string) {
  const elsewhere: string[] = [];
  const problems: string[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol !== 'data:' && url.origin !== origin) elsewhere.push(req.url());
  });
  page.on('console', (msg) => problems.push(`${msg.type()}: ${msg.text()}`));
  page.on('pageerror', (err) => problems.push(String(err)));
  return { elsewhere, problems };
}

test('the first response holds every operation, with its anchor, method, path and summary', async ({ service }) => {
  const operations = await operationsOf(service);
  const res = await fetch(`${service.url}/docs/`, { headers: { 'accept-encoding': 'br' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('blob:');
  // fetch decodes br; that it was sent compressed is the header's business. The first
  // reader gets the page uncompressed at once, the next ones br, made in the background
  // (test/api/assets.test.ts).
  const encoding = async () => (await fetch(`${service.url}/docs/`, { headers: { 'accept-encoding': 'br' } })).headers.get('content-encoding');
  await expect.poll(encoding, { timeout: 20_000 }).toBe('br');
  const html = await res.text();
  const text = (fragment: string) =>
    fragment
      .replace(/<[^>]*>/g, '')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&quot;', '"')
      .replaceAll('&amp;', '&');
  for (const op of operations) {
    const start = html.indexOf(`<section class="operation" id="operation/${op.operationId}">`);
    expect(start, op.operationId).toBeGreaterThan(0);
    const section = text(html.slice(start, html.indexOf('</h4>', start)));
    expect(section, op.operationId).toContain(`${plain(op.summary)}${op.method} ${op.path}`);
    expect(html, op.operationId).toContain(`href="#operation/${op.operationId}"`);
  }
});

test('without JavaScript the page shows every operation and lists each in the sidebar', async ({ browser, service }) => {
  const operations = await operationsOf(service);
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    const res = await page.goto(`${service.url}/docs/`);
    expect(res?.status()).toBe(200);
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Payment Service API');
    expectEveryOperation(operations, await readPage(page));
    // A link works without a script: the operation's section is what the browser scrolls to.
    await page.getByRole('navigation', { name: 'Contents' }).locator('a[href="#operation/createTransaction"]').click();
    await expect(page).toHaveURL(/#operation\/createTransaction$/);
    await expect(page.locator('[id="operation/createTransaction"] h3')).toBeInViewport();
  } finally {
    await context.close();
  }
});

test('with JavaScript: nothing from elsewhere, nothing in the console, and the sidebar filter narrows the links', async ({ page, service }) => {
  const operations = await operationsOf(service);
  const { elsewhere, problems } = watch(page, new URL(service.url).origin);
  await page.goto(`${service.url}/docs/`);
  expectEveryOperation(operations, await readPage(page));
  const nav = page.getByRole('navigation', { name: 'Contents' });
  const filter = nav.getByRole('searchbox', { name: 'Filter the contents' });
  await filter.fill('refund');
  await expect(nav.locator('a[href="#operation/refundSale"]')).toBeVisible();
  await expect(nav.locator('a[href="#operation/createTransaction"]')).toBeHidden();
  await filter.fill('');
  await expect(nav.locator('a[href="#operation/createTransaction"]')).toBeVisible();
  expect(elsewhere).toEqual([]);
  expect(problems).toEqual([]);
});

/**
 * axe over the whole page in light and then in dark, on one load: every rule in light, the
 * colour rules in dark (COLOUR_RULES: the scheme changes colours only; the page's script,
 * which adds the filter, reads neither the scheme nor the width). The page is left light.
 */
async function expectWholePageLightAndDark(page: Page, width: number) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await page.evaluate(() => document.documentElement.scrollWidth), colorScheme).toBeLessThanOrEqual(width);
    const violations = await axeViolations(page, undefined, colorScheme === 'light' ? 'all' : 'colours');
    expect(violations.map((v) => `${colorScheme} ${v.id} (${v.impact}): ${v.nodes.length} × ${v.nodes[0]?.target.join(' ')}`)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

for (const width of [360, 1280]) {
  // One load per width, light and dark on it, rather than one per width and scheme.
  test(`axe finds nothing on the whole page at ${width} px, light and dark; no sideways scrolling`, async ({ page, service }) => {
    // axe checks each of the page's ~6,000 elements (its colour contrast rule most of the
    // time): 2–3 s of one core's CPU per run on these machines (axe-core 4.14), much longer
    // in wall time while other work shares the cores. Playwright's "slow" triples the usual limit; it waits for nothing.
    test.slow();
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${service.url}/docs/`);
    // The script has run (it adds the filter): axe sees the page as a reader does.
    await expect(page.getByRole('searchbox', { name: 'Filter the contents' })).toBeVisible();
    await expectWholePageLightAndDark(page, width);
  });
}

test('keyboard: Tab reaches the skip link, then the sidebar; Enter on an operation moves there', async ({ page, service }) => {
  await page.goto(`${service.url}/docs/`);
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  expect(await skip.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
  await page.keyboard.press('Tab');
  const nav = page.getByRole('navigation', { name: 'Contents' });
  await expect(nav.locator(':focus')).toHaveCount(1);
  // On through the sidebar to the second operation: a bounded walk, each step waiting for the focus to move.
  const target = nav.locator('a[href="#operation/createTransaction"]');
  for (let presses = 0; presses < 10 && !(await target.evaluate((el) => el === document.activeElement)); presses++) {
    const before = await page.evaluate(() => document.activeElement?.outerHTML);
    await page.keyboard.press('Tab');
    await expect.poll(() => page.evaluate(() => document.activeElement?.outerHTML)).not.toBe(before);
  }
  await expect(target).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#operation\/createTransaction$/);
  await expect(page.locator('[id="operation/createTransaction"] h3')).toBeInViewport();

  // The skip link moves the focus to the content.
  await page.goto(`${service.url}/docs/`);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();
});

test('/docs redirects to /docs/, and the demo page links to the reference', async ({ page, service }) => {
  const res = await fetch(`${service.url}/docs`, { redirect: 'manual' });
  expect(res.status).toBe(308);
  expect(res.headers.get('location')).toBe('/docs/');
  await page.goto(`${service.url}/demo/`);
  await page.getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(`${service.url}/docs/`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Payment Service API');
});

test('/docs/errors: a section per problem type, readable without JavaScript, at the anchor a problem’s doc_url names', async ({ browser, service }) => {
  const res = await fetch(`${service.url}/v1/transaction/`);
  const problem = (await res.json()) as { type: string; doc_url: string };
  expect(problem.type).toBe('urn:problem:unauthorized');
  expect(problem.doc_url).toBe(`${service.url}/docs/errors#unauthorized`);
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    const answer = await page.goto(problem.doc_url);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Errors');
    const section = page.locator('[id="unauthorized"]');
    await expect(section).toBeInViewport();
    await expect(section).toContainText('urn:problem:unauthorized');
    await expect(section.getByRole('heading', { name: 'What to do' })).toBeVisible();
    // Every type the document lists has its section.
    const document = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as { components: { schemas: { Problem: { properties: { type: { enum: string[] } } } } } };
    for (const type of document.components.schemas.Problem.properties.type.enum) {
      await expect(page.locator(`[id="${type.slice('urn:problem:'.length)}"] code`).first()).toHaveText(type);
    }
  } finally {
    await context.close();
  }
});

test('axe finds nothing on /docs/errors at 360 px, light and dark; no sideways scrolling', async ({ page, service }) => {
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(`${service.url}/docs/errors`);
  await expect(page.getByRole('searchbox', { name: 'Filter the contents' })).toBeVisible();
  await expectWholePageLightAndDark(page, 360);
});
