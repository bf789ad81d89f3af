import { randomUUID } from 'node:crypto';
import { inTransaction, openDatabase } from '../../server/store/db';
import { insertFile } from '../../server/store/payout-files';
import { statementXml } from '../unit/sepa-bank';
import { expectAccessible, keys, signUp } from './dashboard-data';
import { expect, type Service, startService, test } from './fixtures';

// Payout files in a real browser, keyboard only and with no script: an owner of a live
// environment of a service paying out by SEPA file (PAYOUT_PROVIDER=sepa-file) finds the
// file waiting, downloads it (its payout leaves, the page then warns that a second upload
// pays twice), marks the payout paid with a reason, uploads a bank statement and reads
// its unmatched line; the live readiness checklist is there too. Every page passes axe in
// light and dark at 360 and 1280 px. The payout and its file are written into the
// service's database as the payout-files job writes them (a live payout needs real
// money, which no process here holds).

const DEBTOR = 'DE89370400440532013000';
let service: Service;
let stop: () => Promise<void>;
test.beforeAll(async () => {
  ({ service, stop } = await startService({ BACKGROUND_WORK: 'false', PAYOUT_PROVIDER: 'sepa-file', SEPA_DEBTOR_NAME: 'Plataforma de Pagos SL', SEPA_DEBTOR_IBAN: DEBTOR }));
});
test.afterAll(async () => {
  await stop?.();
});

/** A live environment with one pending payout of 12.34 EUR in a file written for the bank. */
async function liveFile(): Promise<{ environment: string; file: string; payout: string }> {
  const { environment_id: environment } = await keys(service, ['create', '--name', 'Live payouts shop', '--live']);
  const database = openDatabase({ databaseUrl: null, dataDir: service.dataDir });
  const at = new Date().toISOString();
  const [file, payout] = [randomUUID(), randomUUID()];
  const messageId = file.replaceAll('-', '');
  try {
    await inTransaction(database.db, async (trx) => {
      await trx
        .insertInto('merchant_payouts')
        .values({ id: payout, environment_id: environment, currency: 'EUR', period: `manual:${payout}`, schedule: 'manual', amount: 1234, line_count: 1, iban: 'ES9121000418450200051332', account_holder_name: 'Tienda Ejemplo SL', status: 'pending', failure: null, locked_until: null, claimed_by: null, created_at: at, updated_at: at })
        .execute();
      const row = { id: file, environment_id: environment, message_id: messageId, version: 'pain.001.001.09' as const, state: 'written' as const, currency: 'EUR', debtor_iban: DEBTOR, payout_count: 1, control_sum: 1234, execution_date: at.slice(0, 10) };
      const xml = `<?xml version="1.0" encoding="UTF-8"?><Document><MsgId>${messageId}</MsgId></Document>`;
      await insertFile(trx, { ...row, xml, download_count: 0, downloaded_at: null, cancelled_at: null, created_at: at, updated_at: at }, [
        { id: randomUUID(), file_id: file, environment_id: environment, kind: 'merchant_payout', payout_id: payout, end_to_end_id: payout.replaceAll('-', ''), payment_info_id: `${messageId}-1`, amount: 1234, active: 1 },
      ]);
    });
  } finally {
    await database.close();
  }
  return { environment, file, payout };
}

test('download a payout file, mark its payout paid and import a statement, by keyboard', async ({ page }) => {
  test.setTimeout(240_000);
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && scripts.push(r.url()));
  const { environment, payout } = await liveFile();
  await signUp(page, service, 'payout-files@shop.example', 'owner', environment);
  await expect(page.getByTestId('attention')).toContainText('A payout file waiting to be sent since');

  // The live readiness checklist, from the Overview.
  await page.getByRole('link', { name: 'Checklist before taking real payments' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Live readiness', level: 1 })).toBeVisible();
  await expect(page.getByTestId('ready-summary')).toHaveText('4 of 4 items missing.');
  await expectAccessible(page);

  await page.getByRole('link', { name: 'Payout files' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Payout files', level: 1 })).toBeVisible();
  await expect(page.getByRole('row')).toHaveCount(2);
  await expectAccessible(page);
  await page.locator('tr[data-file] a').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('file-state')).toHaveText('Waiting to be downloaded for your bank');
  await expectAccessible(page);

  // The first download sends the payout; the page then warns.
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download for the bank (sends its payouts)' }).focus();
  await page.keyboard.press('Enter');
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^payout-file-[0-9a-f]{32}\.xml$/);
  await page.reload();
  await expect(page.getByTestId('file-state')).toHaveText('Downloaded: its payouts are on their way');
  await expect(page.getByRole('alert')).toHaveText('Downloaded 1 times already. Uploading this file to your bank again pays every payout in it twice.');
  await expect(page.getByRole('button', { name: 'Download again' })).toBeVisible();
  await expectAccessible(page);

  await page.getByLabel('Why you mark it paid').focus();
  await page.keyboard.type('Seen on the bank website');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toHaveText('The payout was marked paid.');
  await expect(page.locator(`tr[data-payout="${payout}"] [data-testid="payout-status"]`)).toHaveText('Paid');
  await expect(page.getByTestId('file-state')).toHaveText('Booked by your bank');
  await expectAccessible(page);

  // A statement with a line that is nobody's payout: listed for a person.
  await page.goto(`${service.url}/dashboard/payout-files/`);
  const statement = statementXml({ iban: DEBTOR, reportId: 'E2E-STATEMENT-1', lines: [{ direction: 'CRDT', amount: 500n, transactions: [] }] });
  await page.getByLabel('Statement or status report (XML)').setInputFiles({ name: 'statement.xml', mimeType: 'application/xml', buffer: Buffer.from(statement) });
  await page.getByRole('button', { name: 'Import' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('import-summary')).toHaveText('camt.053 imported: 0 payout changes; reports imported before and skipped: 0.');
  await expect(page.getByTestId('unmatched')).toContainText('Credit');
  await expect(page.getByTestId('unmatched')).toContainText('€5.00');
  await expectAccessible(page);
  expect(scripts).toEqual([]);
});
