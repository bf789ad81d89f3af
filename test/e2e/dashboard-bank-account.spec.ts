import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { expectAccessible, PASSWORD, PHONE_360, signUp } from './dashboard-data';
import { expect, startService, test } from './fixtures';
import { LAPTOP } from './screen';

// The Balance page's bank account by keyboard, at 360 and 1280 px: an owner changes the
// IBAN with their password in the same form, the page says the payouts are held, the email
// the service writes to DATA_DIR/outbox/ carries the confirm link, whose page's one button
// ends the hold. No script; axe-clean in light and dark (issue 47).

const CONFIRM = /https?:\/\/\S+\/dashboard\/balance\/bank-account\/confirm\/[A-Za-z0-9_-]{43}\//;

/** The confirm links in the emails to `to`, oldest first. */
async function confirmLinksTo(dataDir: string, to: string): Promise<string[]> {
  const dir = join(dataDir, 'outbox');
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();
  } catch {
    return [];
  }
  const mails = await Promise.all(files.map(async (f) => simpleParser(readFileSync(join(dir, f)))));
  return mails.filter((m) => m.to && !Array.isArray(m.to) && m.to.value[0]?.address === to).flatMap((m) => CONFIRM.exec(String(m.text))?.[0] ?? []);
}

// On a service of its own: the bank account it leaves behind would hold the next payout of
// any later test of the worker that sets another one.
test('change the bank account by keyboard, held until confirmed from the email', async ({ page }) => {
  test.setTimeout(120_000);
  const { service, stop } = await startService();
  try {
    const scripts: string[] = [];
    page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
    expect((await service.api('PATCH', '/payout_settings/', { iban: 'ES9121000418450200051332', schedule: 'manual' })).status).toBe(200);
    const email = 'bank-owner@shop.example';
    await signUp(page, service, email);

    const changes = [
      [PHONE_360, 'DE89 3704 0044 0532 0130 00', '3000'],
      [LAPTOP, 'FR14 2004 1010 0505 0001 3M02 606', '2606'],
    ] as const;
    for (const [i, [size, iban, last4]] of changes.entries()) {
      await page.setViewportSize(size);
      await page.goto(`${service.url}/dashboard/balance/`);
      await page.getByLabel('IBAN').focus();
      await page.keyboard.type(iban);
      await page.keyboard.press('Tab');
      await expect(page.getByLabel('Account holder, as your bank knows it')).toBeFocused();
      await page.keyboard.press('Tab');
      await expect(page.getByLabel('Schedule')).toBeFocused();
      await page.keyboard.press('Tab');
      await expect(page.getByLabel('Your current password')).toBeFocused();
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      await expect(page.getByText('Payout settings changed. Every owner got an email about it.')).toBeVisible();
      await expect(page.getByTestId('payout-held')).toContainText(`New bank account ending ${last4}: payouts held until an owner confirms it from the email, or until`);
      await expectAccessible(page);

      // One email per change, each with its link, once the mail job has written it.
      await expect.poll(async () => (await confirmLinksTo(service.dataDir, email)).length).toBe(i + 1);
      await page.goto((await confirmLinksTo(service.dataDir, email)).at(-1)!);
      await expect(page.getByTestId('payout-account-confirm')).toContainText(`New bank account ending ${last4}`);
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Confirm the new bank account' }).focus();
      await page.keyboard.press('Enter');
      await expect(page.getByText('New bank account confirmed: payouts go to it from now on.')).toBeVisible();
      await expect(page.getByTestId('payout-held')).toHaveCount(0);
    }
    expect(scripts).toEqual([]);
  } finally {
    await stop();
  }
});
