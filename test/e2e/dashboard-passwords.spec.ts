import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { expect, test } from './fixtures';
import { expectAccessible, PASSWORD, signUp } from './dashboard-data';

// A forgotten password, by its pages and the email the service writes to DATA_DIR/outbox/
// (no SMTP_URL), then a password changed on Security; every page passes axe (issue 44).

const RESET = 'a reset passphrase nobody guesses';
const CHANGED = 'the passphrase after the change';

/** The reset link of the newest email to `to` in the outbox, once the mail job has written it. */
async function resetLinkFor(dataDir: string, to: string): Promise<string> {
  let link = '';
  await expect
    .poll(async () => {
      const dir = join(dataDir, 'outbox');
      const files = (() => {
        try {
          return readdirSync(dir).filter((f) => f.endsWith('.eml'));
        } catch {
          return [];
        }
      })();
      for (const file of files.sort().reverse()) {
        const mail = await simpleParser(readFileSync(join(dir, file)));
        if (mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === to) {
          link = /https?:\/\/\S+\/dashboard\/sign-in\/reset\/\?token=[A-Za-z0-9_-]{43}/.exec(String(mail.text))?.[0] ?? '';
          return link;
        }
      }
      return '';
    })
    .not.toBe('');
  return link;
}

test('forgot password → the emailed link → a new password signs in; then changed on Security; the pages pass axe', async ({ page, service }) => {
  test.setTimeout(120_000);
  const email = 'forgetful@shop.example';
  await signUp(page, service, email);
  await page.context().clearCookies();

  await page.goto(`${service.url}/dashboard/sign-in/`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expectAccessible(page);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByRole('status')).toContainText(`If ${email} belongs to an account`);
  await expectAccessible(page);

  const link = await resetLinkFor(service.dataDir, email);
  await page.goto(`${service.url}${new URL(link).pathname}${new URL(link).search}`);
  await expectAccessible(page);
  await page.getByLabel('New password').fill(RESET);
  await page.getByRole('button', { name: 'Save new password' }).click();
  await expect(page.getByRole('status')).toContainText('Your password has been changed');

  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('do not match an account');
  await page.getByLabel('Password').fill(RESET);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

  await page.goto(`${service.url}/dashboard/account/security/`);
  await page.getByLabel('Current password').fill(RESET);
  await page.getByLabel('New password').fill(CHANGED);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByRole('status').first()).toContainText('Your password has been changed');
  await expectAccessible(page);
});
