import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardText } from '../../server/dashboard/i18n';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { JOB_NAMES } from '../../server/jobs';
import type { Gateway } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { createSandboxCard } from '../../server/payments/sandbox';
import { auditOf } from '../../server/store/audit';
import { setPricing } from '../../server/store/balance';
import { saveProcessorSettlement } from '../../server/store/processor-settlements';
import { type Browser, member } from './dashboard';
import { IBANS } from './documents';
import { type Client, ENGINES, type TestService } from './harness';
import { startIsolatedService } from './database';
import { paidTransaction, payWithCard, priced } from './pay';

// The dashboard's Balance page against payments made through the API: available and
// pending per currency as GET /v1/balance/ has them, fees of the period, the balance
// transactions with their filters and the export of the same rows, the payouts on their
// way, the sales a processor of the merchant's own settles apart (never in the balance),
// another environment's money never shown, and "Pay out now": an owner's, asked once
// more, the API's payout; refused for the others, without a bank account, with nothing left.

const OWN_ACCOUNT = '0190f5a0-0000-7000-8000-0000000000d2';
/** The sandbox card under another id, settled by the merchant's own processor account. */
const ownAccount = (): Gateway => ({ ...createSandboxCard(), id: OWN_ACCOUNT, code: 'own-account', name: 'Own account', settlement: 'processor' });
const FEE_30 = { percentE2: 0n, fixed: 30n };
const NO_FEE = { percentE2: 0n, fixed: 0n };
const money = (units: number, currency: string) => dashboardText('en').money(units, currency);

describe.each(ENGINES)('dashboard balance on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let owner: Browser;
  let viewer: Browser;
  let admin: Browser;
  let refundId: string;
  const job = (name: string) => t.service.jobs.runOnce(name);
  const pricing = (env: Client, settlementDelayDays: number) =>
    setPricing(t.service.deps.database.db, env.keys.environment_id, { charge: FEE_30, refund: NO_FEE, settlementDelayDays }, t.service.deps.now());
  const postBalance = async () => {
    while ((await job(JOB_NAMES.balance)) > 0);
  };
  const today = () => t.service.deps.now().toISOString().slice(0, 10);

  beforeAll(async () => {
    t = await startIsolatedService(engine, { gateways: createGateways([createSandboxCard(), ownAccount()]) });
    shop = await t.newEnvironment('Balance shop');
    // Available at once: 40.00 and 2.50 (0.30 fee each), then 1.00 of the first refunded.
    await pricing(shop, 0);
    const big = await paidTransaction(shop, priced('EUR', 40));
    await paidTransaction(shop, priced('EUR', 2.5));
    await postBalance();
    expect((await shop.post(`/sale/${big.sale.id}/refund/`, { amount: 1 })).status).toBe(200);
    // Pending for two days: 10.00 EUR and 5.00 USD.
    await pricing(shop, 2);
    await paidTransaction(shop, priced('EUR', 10));
    await paidTransaction(shop, priced('USD', 5));
    await postBalance();
    refundId = (await shop.get('/balance_transaction/?type=refund')).body.results[0].id;
    // 100.00 through the merchant's own processor account: never in the balance.
    const own = await shop.post('/transaction/', priced('EUR', 100));
    expect((await payWithCard(t.url, own.body.token, TEST_CARDS.approved, OWN_ACCOUNT)).status).toBe(200);
    await postBalance();
    // What the processor reports of it, as the Stripe reader stores it (stripe-settlement.test.ts
    // reads it from the Stripe double): its fee and net, in the currency it settled in.
    const ownSale = (await shop.get(`/sale/?transaction_id=${own.body.id}`)).body.results[0];
    const figures = { record: 'txn_own', currency: 'EUR', amount: 10_000, fee: 175, net: 9_825, availableOn: null };
    await saveProcessorSettlement(t.service.deps.database.db, ownSale.id, figures, t.service.deps.now());
    owner = (await member(t, shop, 'owner')).browser;
    viewer = (await member(t, shop, 'viewer')).browser;
    admin = (await member(t, shop, 'admin')).browser;
  });
  afterAll(() => t?.close());

  it('shows available and pending per currency as GET /v1/balance/ has them, the fees, what becomes available when', async () => {
    const api = (await shop.get('/balance/')).body;
    expect(api.available).toEqual([
      { currency: 'EUR', amount: 40.9 },
      { currency: 'USD', amount: 0 },
    ]);
    const page = await viewer.get('/dashboard/balance/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/dashboard/balance/" aria-current="page"');
    expect(page.text).toContain('<td data-testid="available-EUR">€40.90</td>');
    expect(page.text).toContain('<td data-testid="pending-EUR">€9.70</td>');
    expect(page.text).toContain(`<td data-testid="pending-USD">${money(470, 'USD')}</td>`);
    expect(page.text).toContain(`<td data-testid="available-USD">${money(0, 'USD')}</td>`);
    // 0.30 on each of the four payments the balance took.
    expect(page.text).toContain('<li>€0.90, on 3 balance transactions</li>');
    expect(page.text).toContain(`<li>${money(30, 'USD')}, on 1 balance transaction</li>`);
    const inTwoDays = new Date(t.service.deps.now().getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
    expect(page.text).toContain(`<li>€9.70 on ${inTwoDays} (UTC)</li>`);
    // The processor's sale: apart, with its volume, and in no figure of the balance.
    expect(page.text).toMatch(/<th scope="row">Own account<\/th><td>EUR<\/td><td>1<\/td><td>€100.00<\/td><td>€0.00<\/td>/);
    // And what the processor reported of it: its own fee and net, apart from ours.
    expect(page.text).toMatch(/data-testid="processor-figures">[\s\S]*<th scope="row">Own account<\/th><td>EUR<\/td><td>1<\/td><td>€100.00<\/td><td>€1.75<\/td><td>€98.25<\/td>/);
    // A viewer reads it all, and is offered no payout.
    expect(page.text).not.toContain('action="/dashboard/balance/pay-out/"');
  });

  it('filters the balance transactions by type, currency and days, and links the export of the same rows', async () => {
    const all = await viewer.get('/dashboard/balance/');
    expect(all.text.match(/data-balance-transaction="/g)).toHaveLength(5);
    const refunds = await viewer.get('/dashboard/balance/?type=refund');
    expect(refunds.text.match(/data-balance-transaction="/g)).toHaveLength(1);
    expect(refunds.text).toContain(`data-balance-transaction="${refundId}"`);
    expect(refunds.text).toContain('<option value="refund" selected>Refund</option>');
    expect((await viewer.get('/dashboard/balance/?currency=usd')).text.match(/data-balance-transaction="/g)).toHaveLength(1);
    const old = await viewer.get('/dashboard/balance/?from=2020-01-01&to=2020-01-31');
    expect(old.text).toContain('No balance transaction matches.');
    expect(old.text).toContain('No fees in this period.');
    expect(old.text).toContain('No payment settled by a processor in this period.');
    expect(old.text).toContain('No figures reported by a processor for this period yet.');
    // The balance itself is not of a period.
    expect(old.text).toContain('<td data-testid="available-EUR">€40.90</td>');
    // A nonsense filter is named and left out; the page still answers.
    const nonsense = await viewer.get('/dashboard/balance/?type=gift&currency=EURO&from=x&page=-3');
    expect(nonsense.status).toBe(200);
    expect(nonsense.text).toContain('Not understood, so not applied: type, currency, from.');
    expect(nonsense.text.match(/data-balance-transaction="/g)).toHaveLength(5);

    const href = /href="([^"]+)" download data-testid="balance-csv"/.exec(refunds.text)![1]!.replaceAll('&amp;', '&');
    expect(href).toBe(`/dashboard/export/csv?kind=balance_transactions&type=refund&from=${new URL(`http://x${href}`).searchParams.get('from')}&to=${today()}`);
    const csv = await viewer.get(href);
    expect(csv.status).toBe(200);
    const lines = csv.text.replace(/^\uFEFF/, '').split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(refundId);
    const usd = (await viewer.get(`/dashboard/export/csv?kind=balance_transactions&currency=USD&from=${today()}&to=${today()}`)).text;
    expect(usd.split('\r\n').filter(Boolean)).toHaveLength(2);
  });

  it("another environment's money is never shown, nor paid out from it", async () => {
    const other = await t.newEnvironment('Other balance');
    const { browser: stranger } = await member(t, other, 'owner');
    const page = await stranger.get('/dashboard/balance/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('No money yet');
    expect(page.text).not.toContain('€40.90');
    expect(page.text).not.toContain(refundId);
    expect(page.text).not.toContain('Own account');
    expect(page.text).toContain('No balance transaction matches.');
    // Its "Pay out now" pays out its own balance: nothing.
    expect((await stranger.post('/dashboard/balance/pay-out/', { currency: 'EUR' })).status).toBe(409);
    expect((await shop.get('/balance/')).body.available).toContainEqual({ currency: 'EUR', amount: 40.9 });
  });

  it('"Pay out now" is refused without a bank account, in words', async () => {
    const page = await owner.get('/dashboard/balance/');
    // Pointing to the page's own form, never to the API.
    expect(page.text).toContain('No bank account is set for payouts yet; schedule: On request. “Pay out now” needs a bank account; set one below: <a href="#bal-account">Change bank account and schedule</a>');
    expect(page.text).toContain('<h3 id="bal-account">');
    expect(page.text).not.toContain('PATCH /v1/payout_settings/');
    const refused = await owner.post('/dashboard/balance/pay-out/', { currency: 'EUR' });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('Nothing was paid out: no bank account is set. Set one first under “Change bank account and schedule” below.');
    expect(refused.text).toContain('data-testid="payout-account-form"');
    expect(refused.text).not.toContain('PATCH /v1/payout_settings/');
    expect((await shop.get('/merchant_payout/')).body.count).toBe(0);
  });

  it('"Pay out now" by an owner: asked once more, then the API\'s payout, audited; then nothing is left', async () => {
    expect((await shop.patch('/payout_settings/', { iban: IBANS.ES, schedule: 'manual' })).status).toBe(200);
    const page = await owner.get('/dashboard/balance/');
    expect(page.text).toContain('aria-label="Pay out now in EUR"');
    // USD has nothing available: no button on its row.
    expect(page.text).not.toContain('aria-label="Pay out now in USD"');
    const confirm = await owner.post('/dashboard/balance/pay-out/', { currency: 'EUR' });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Pay out €40.90, everything available in this currency, to the bank account ES…1332?');
    expect((await shop.get('/merchant_payout/')).body.count).toBe(0);

    const done = await owner.post('/dashboard/balance/pay-out/', { currency: 'EUR', confirm: 'yes' });
    expect(done.status).toBe(303);
    const payouts = (await shop.get('/merchant_payout/')).body.results;
    expect(payouts).toMatchObject([{ status: 'pending', schedule: 'manual', amount: 40.9, currency: 'EUR', iban_last4: '1332' }]);
    expect(done.location).toBe(`/dashboard/balance/?paid_out=${payouts[0].id}`);
    const after = await owner.get(done.location!);
    expect(after.text).toContain('Payout of €40.90 made: it is on its way to your bank.');
    expect(after.text).toContain('<td data-testid="available-EUR">€0.00</td>');
    expect(after.text).toMatch(new RegExp(`<tr data-payout="${payouts[0].id}">.*On its way.*Within minutes`));
    expect(after.text).toContain(`href="/dashboard/payouts/${payouts[0].id}/"`);
    const log = await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 100, offset: 0 });
    expect(log.filter((r) => r.action === 'payout_requested').map((r) => JSON.parse(r.detail!))).toEqual([{ payout: payouts[0].id, currency: 'EUR' }]);

    // Paid by the provider: its state in words among the latest payouts; nothing left to pay out.
    while ((await job(JOB_NAMES.merchantPayouts)) > 0);
    expect((await owner.get('/dashboard/balance/')).text).toMatch(/data-testid="latest-payouts"><li><a href="\/dashboard\/payouts\/[^"]+\/">€40.90, made [^<]+<\/a>: Paid<\/li>/);
    const again = await owner.post('/dashboard/balance/pay-out/', { currency: 'EUR', confirm: 'yes' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('Nothing was paid out: nothing is available to pay out in EUR.');
    expect((await owner.post('/dashboard/balance/pay-out/', { currency: 'euro' })).status).toBe(400);
    expect((await shop.get('/merchant_payout/')).body.count).toBe(1);
  });

  it('"Pay out now" is refused for a non-owner and without the CSRF token, and nothing is paid out', async () => {
    const before = (await shop.get('/merchant_payout/')).body.count;
    for (const browser of [viewer, admin]) {
      await browser.get('/dashboard/balance/');
      const refused = await browser.post('/dashboard/balance/pay-out/', { currency: 'USD', confirm: 'yes' });
      expect(refused.status).toBe(403);
    }
    expect((await admin.get('/dashboard/balance/')).text).not.toContain('action="/dashboard/balance/pay-out/"');
    expect((await owner.post('/dashboard/balance/pay-out/', { currency: 'USD', confirm: 'yes' }, { csrf: null })).status).toBe(403);
    expect((await shop.get('/merchant_payout/')).body.count).toBe(before);
    const anonymous = await fetch(`${t.url}/dashboard/balance/`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
  });
});
