import { demoEnvironment, expectAccessible, keys, payAsCustomer, signUp } from './dashboard-data';
import { expect, type Service, startService, test } from './fixtures';
import { PROCESSOR_PAYOUT_STATUSES } from '../../server/domain/processor-settlement';
import { openDatabase } from '../../server/store/db';
import { saveProcessorPayouts } from '../../server/store/processor-payouts';
import { insertProcessor } from '../../server/store/processors';

// The Balance page in Chromium, on a service of its own with its jobs running (the figures
// are the environment's): a card payment of 30.00 with a fee of 0.25 and no settlement
// delay is €29.75 available; an owner pays it out with "Pay out now", confirms, and sees
// the payout on its way and then paid; the period's fee and the balance transactions are
// there, filtered by type; a Stripe account's own payouts, one in each state, fill their
// table. No script; axe-clean in light and dark at 360 and 1280 px.

/** Polls the API until `check` holds for the answer at `path`. */
async function until(service: Service, path: string, check: (body: any) => boolean) {
  await expect.poll(async () => check((await service.api('GET', path)).body), { timeout: 30_000 }).toBe(true);
}

const DAY_MS = 86_400_000;

/**
 * A Stripe account connected to `environment` and one payout of it in each state, stored as
 * the daily sweep stores what Stripe lists (store/processor-payouts.ts). Its next sweep is a
 * day away, so the service never asks Stripe while the page is checked.
 */
async function storeProcessorPayouts(service: Service, environment: string): Promise<void> {
  const database = openDatabase({ databaseUrl: null, dataDir: service.dataDir });
  try {
    const now = new Date();
    const credentials = { secret_key: 'sk_test_FAKEe2eBalancePayouts01', publishable_key: 'pk_test_FAKEe2eBalancePayouts01', webhook_secret: 'whsec_FAKE_E2eBalancePayouts01' };
    const processor = await insertProcessor(database.db, environment, { type: 'stripe', credentials, statement_descriptor: null, sweep_due_at: new Date(now.getTime() + DAY_MS) }, now);
    if (processor === 'taken') throw new Error('the demo environment has a Stripe account already');
    const payouts = PROCESSOR_PAYOUT_STATUSES.map((status, i) => ({
      id: `po_e2eBalance${i}`,
      amount: 1234 * (i + 1),
      currency: 'EUR',
      status,
      arrivalDate: new Date(now.getTime() + (i - 2) * DAY_MS),
      failureMessage: status === 'failed' ? 'The bank account has been closed.' : null,
      created: new Date(now.getTime() - 3 * DAY_MS),
    }));
    await saveProcessorPayouts(database.db, { environmentId: environment, processorId: processor.id, now }, payouts);
  } finally {
    await database.close();
  }
}

test('see the balance and pay out now', async ({ page }) => {
  test.setTimeout(180_000);
  const { service, stop } = await startService();
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  try {
    const demo = await demoEnvironment(service);
    await keys(service, ['pricing', '--environment', demo, '--settlement-days', '0', '--charge-fixed', '25']);
    const tx = await service.createTransaction({ currency: 'EUR', order_id: 'balance-1', gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price: 30 } }] });
    await payAsCustomer(tx.payment_url);
    await until(service, '/balance/', (b) => b.available.some((a: { currency: string; amount: number }) => a.currency === 'EUR' && a.amount === 29.75));
    expect((await service.api('PATCH', '/payout_settings/', { iban: 'ES9121000418450200051332', schedule: 'manual' })).status).toBe(200);

    await signUp(page, service, 'balance-owner@shop.example');
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Balance' }).click();
    await expect(page.getByRole('heading', { name: 'Balance', level: 1 })).toBeVisible();
    await expect(page.getByTestId('available-EUR')).toHaveText('€29.75');
    await expect(page.getByTestId('pending-EUR')).toHaveText('€0.00');
    await expect(page.getByTestId('payout-terms')).toContainText('ES…1332');
    await expect(page.getByTestId('fees')).toContainText('€0.25, on 1 balance transaction');
    await expect(page.getByTestId('balance-transactions').getByRole('row')).toHaveCount(2);
    // No processor connected: the processor's payouts are an empty state, until its first daily read.
    await expect(page.getByText("No payout from a processor yet. The processor's payouts appear after its next daily read.")).toBeVisible();
    await expectAccessible(page);

    // Filtered by type, as a GET form: no refund yet.
    await page.getByLabel('Type').selectOption('refund');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page).toHaveURL(/type=refund/);
    await expect(page.getByText('No balance transaction matches.')).toBeVisible();
    await expect(page.getByTestId('balance-csv')).toHaveAttribute('href', /kind=balance_transactions&type=refund/);

    // Pay out now, asked once more.
    await page.getByRole('button', { name: 'Pay out now in EUR' }).click();
    await expect(page.getByTestId('pay-out-confirm')).toContainText('Pay out €29.75, everything available in this currency, to the bank account ES…1332?');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Pay out €29.75' }).click();
    await expect(page.getByText('Payout of €29.75 made: it is on its way to your bank.')).toBeVisible();
    await expect(page.getByTestId('available-EUR')).toHaveText('€0.00');
    await expectAccessible(page);

    // The payout job pays it: the latest payouts say so, in words.
    const payout = (await service.api('GET', '/merchant_payout/')).body.results[0];
    expect(payout).toMatchObject({ amount: 29.75, schedule: 'manual' });
    await until(service, `/merchant_payout/${payout.id}/`, (p) => p.status === 'paid');
    await page.reload();
    await expect(page.getByTestId('latest-payouts')).toContainText('Paid');
    await expect(page.getByText('No payout on its way.')).toBeVisible();
    await page.getByTestId('latest-payouts').getByRole('link').click();
    await expect(page.getByTestId('payout-status')).toHaveText('Paid');

    // The processor's payouts filled, a failed one with its reason standing out.
    await storeProcessorPayouts(service, demo);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Balance' }).click();
    await expect(page.getByTestId('processor-payouts').locator('tbody tr')).toHaveCount(PROCESSOR_PAYOUT_STATUSES.length);
    await expect(page.getByTestId('processor-payouts')).toContainText('The bank account has been closed.');
    await expectAccessible(page);
    expect(scripts).toEqual([]);
  } finally {
    await stop();
  }
});
