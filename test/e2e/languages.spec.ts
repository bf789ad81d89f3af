import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { CARDS, expect, type Merchant, type Service, test } from './fixtures';
import { cancelButton, expectAccessible, fillCard, oneLine, payButton, PHONE } from './screen';

// No English on a Spanish or French page: every state a customer can reach, JavaScript on
// and off, the sandbox provider's page included. Names and brands are the exceptions, and
// they are not in en.json.

const LOCALES = join(import.meta.dirname, '../../locales');
const load = (language: string) => JSON.parse(readFileSync(join(LOCALES, `${language}.json`), 'utf8')) as Record<string, string>;
const en = load('en');

/** The fixed parts of every English string that the language translates differently. */
function englishFragments(language: string): string[] {
  const strings = load(language);
  const fragments = Object.keys(en)
    .filter((key) => strings[key] !== en[key])
    .flatMap((key) => en[key]!.split(/\{\{\s*\w+\s*\}\}/))
    .map((part) => part.trim().replace(/[.:,()]+$/, '').trim())
    .filter((part) => /\p{L}{3}/u.test(part) && !Object.values(strings).some((text) => text.includes(part)));
  return [...new Set(fragments)];
}

async function expectNoEnglish(page: Page, language: string, state: string) {
  const text = (await page.locator('body').innerText()) + ' ' + (await page.title());
  const found = englishFragments(language).filter((part) =>
    new RegExp(`(^|[^\\p{L}])${part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u').test(text),
  );
  expect(found, `${language}, ${state}`).toEqual([]);
}

for (const language of ['es', 'fr'] as const) {
  for (const javaScriptEnabled of [true, false]) {
    test.describe(`${language} ${javaScriptEnabled ? 'with' : 'without'} JavaScript`, () => {
      test.use({ javaScriptEnabled, viewport: PHONE });

      /** Checks the page as it is now; `open` starts a payment in the language. */
      function states(page: Page, service: Service, merchant: Merchant) {
        return {
          check: async (state: string) => {
            await expectNoEnglish(page, language, state);
            await expectAccessible(page, javaScriptEnabled);
          },
          open: async (over: Record<string, unknown> = {}) => {
            const tx = await service.createTransaction(oneLine(merchant, { language, return_url: undefined, cancel_url: undefined, ...over }));
            await page.goto(tx.payment_url);
          },
        };
      }

      test('paying: pending, details, declined, paid', async ({ page, service, merchant }) => {
        const { check, open } = states(page, service, merchant);
        await open();
        await check('pending');
        await page.locator('summary.summary__toggle').click();
        await check('details open');

        await fillCard(page, CARDS.declined, '1234');
        await payButton(page).click();
        await expect(page.getByRole('alert')).not.toBeEmpty();
        await check('declined');

        await fillCard(page, CARDS.approved, '1234');
        await payButton(page).click();
        await expect(page.locator('.receipt__ref')).toBeVisible();
        await check('paid');
      });

      test('leaving: cancel confirmation, cancelled, the provider page', async ({ page, service, merchant }) => {
        const { check, open } = states(page, service, merchant);
        await open();
        await cancelButton(page).click();
        await expect(page.locator('#cancel-confirm-title')).toBeVisible();
        await check('cancel confirmation');
        await cancelButton(page).click();
        await expect(page.locator('.status--neutral')).toBeVisible();
        await check('cancelled');

        await open({ gateway_selected: false });
        await page.getByRole('radio', { name: 'Sandbox Pay' }).check();
        await payButton(page).click();
        await expect(page.locator('.provider')).toBeVisible();
        await check('provider page');
      });
    });
  }
}

test('the expired page speaks French', async ({ page, service, merchant }) => {
  const tx = await service.createTransaction(oneLine(merchant, { language: 'fr', expired_date: new Date(Date.now() + 3000).toISOString() }));
  await page.goto(tx.payment_url);
  await expect(page.locator('.status--neutral')).toBeVisible({ timeout: 15_000 });
  await expectNoEnglish(page, 'fr', 'expired');
  await expectAccessible(page, true);
});
