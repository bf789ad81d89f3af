import { expect, startService, test } from './fixtures';
import { expectAccessible, signUp } from './dashboard-data';
import { LAPTOP } from './screen';

// The dashboard's frame in Chromium, on a service of its own (which sections show depends
// on the environment's data): at 360 px the navigation folds behind one "Menu" button (a
// popover) so the page's title is in the first screen, and opens and closes by keyboard;
// at 1280 px it is a sidebar of groups. No script on any page; axe-clean in light and
// dark, open and closed; and with scripts off in the browser, the menu works the same.

const PHONE = { width: 360, height: 800 };
const GROUPS = ['Payments', 'Balance', 'Customers', 'Products and subscriptions', 'Developers', 'Settings'];

test('the navigation by job: one menu button at 360 px opened by keyboard, a sidebar at 1280 px; no script; axe', async ({ page }) => {
  test.setTimeout(120_000);
  const { service, stop } = await startService();
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  try {
    await signUp(page, service, 'layout@shop.example');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    const menu = page.getByRole('button', { name: 'Menu', exact: true });

    await page.setViewportSize(PHONE);
    await page.goto(`${service.url}/dashboard/transactions/`);
    // The title and the page's first content are in the first screen, the links folded away.
    const title = await page.getByRole('heading', { level: 1, name: 'Transactions' }).boundingBox();
    expect(title!.y + title!.height).toBeLessThanOrEqual(PHONE.height);
    const first = await page.locator('main > h1 + *').boundingBox();
    expect(first!.y).toBeLessThan(PHONE.height);
    await expect(nav).toBeHidden();
    await expect(menu).toBeVisible();
    await expect(page.getByTestId('environment')).toHaveText(/sandbox$/);
    await expect(page.getByTestId('environment')).toBeVisible();
    await expectAccessible(page);

    // By keyboard: from the header's search, the next stop is the menu; Enter opens it.
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Search', exact: true }).focus();
    await page.keyboard.press('Tab');
    await expect(menu).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(nav).toBeVisible();
    await expect(nav.locator('.group-label')).toHaveText(GROUPS);
    for (const label of GROUPS) await expect(nav.locator('.group-label', { hasText: label }).first()).toBeVisible();
    // Next in the order: the popover's own close button, then its links.
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Close menu' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(nav.getByRole('link', { name: 'Overview' })).toBeFocused();
    await page.keyboard.press('Tab');
    const current = nav.getByRole('link', { name: 'Transactions' });
    await expect(current).toBeFocused();
    await expect(current).toHaveAttribute('aria-current', 'page');
    await expectAccessible(page);
    // Escape folds it again; so does its close button.
    await page.setViewportSize(PHONE);
    await page.keyboard.press('Escape');
    await expect(nav).toBeHidden();
    await menu.focus();
    await page.keyboard.press('Space');
    await expect(nav).toBeVisible();
    await page.getByRole('button', { name: 'Close menu' }).focus();
    await page.keyboard.press('Enter');
    await expect(nav).toBeHidden();
    // Open again, a link followed by keyboard: the next page starts folded, its title in view.
    await menu.focus();
    await page.keyboard.press('Enter');
    await nav.getByRole('link', { name: 'Payouts to you' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Payouts to you' })).toBeInViewport();
    await expect(nav).toBeHidden();

    // At 1280 px: no button, the groups in a sidebar beside the page, the current page marked.
    await page.setViewportSize(LAPTOP);
    await page.goto(`${service.url}/dashboard/balance/`);
    await expect(menu).toBeHidden();
    await expect(nav).toBeVisible();
    await expect(nav.locator('.group-label')).toHaveText(GROUPS);
    for (const label of GROUPS) await expect(nav.locator('.group-label', { hasText: label }).first()).toBeVisible();
    await expect(nav.getByRole('link', { name: 'Balance' })).toHaveAttribute('aria-current', 'page');
    const side = (await nav.boundingBox())!;
    const main = (await page.getByRole('main').boundingBox())!;
    expect(side.x + side.width).toBeLessThanOrEqual(main.x);
    await expect(page.getByRole('heading', { level: 1, name: 'Balance' })).toBeInViewport();
    await expect(page.getByTestId('environment')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sign out', exact: true })).toBeVisible();
    await expectAccessible(page);
    expect(scripts).toEqual([]);
  } finally {
    await stop();
  }
});

test.describe('with scripts off', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE });

  test('at 360 px the menu still opens by keyboard and its links lead on', async ({ page, service }) => {
    await signUp(page, service, 'layout-nojs@shop.example');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    await expect(nav).toBeHidden();
    await page.getByRole('button', { name: 'Menu', exact: true }).focus();
    await page.keyboard.press('Enter');
    await expect(nav).toBeVisible();
    await nav.getByRole('link', { name: 'Disputes' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Disputes' })).toBeInViewport();
    await expect(nav).toBeHidden();
  });
});
