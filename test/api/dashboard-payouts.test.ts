import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { auditOf } from '../../server/store/audit';
import { setPricing } from '../../server/store/balance';
import { type Browser, member } from './dashboard';
import { confirmNewAccount, IBANS } from './documents';
import { type Client, ENGINES, type TestService } from './harness';
import { startIsolatedService } from './database';
import { compliantClient, createWallet, fund } from './ledger';
import { paidTransaction, priced } from './pay';

// Payouts to the merchant's own bank account in the dashboard: the list under the payout
// settings (read-only), a payout's page and its settlement report (the API's rows, byte
// for byte), a failed one marked, the merchant_payouts export (and the wallets' payouts
// kind still answering to `payouts`), another environment's payout a 404.

/** A valid German IBAN whose last four digits are 0000: the sandbox payout gateway refuses it. */
const REFUSED_IBAN = 'DE94370400440532010000';
const NO_FEE = { percentE2: 0n, fixed: 0n };
const MISSING = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';

function parseCsv(csv: string): string[][] {
  return csv
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter(Boolean)
    .map((line) => [...line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)].map((m) => (m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!)));
}

describe.each(ENGINES)('dashboard payouts on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let viewer: Browser;
  let failed: { id: string };
  let paid: { id: string; amount: number };
  const today = () => t.service.deps.now().toISOString().slice(0, 10);
  const job = (name: string) => t.service.jobs.runOnce(name);

  /** A manual payout of what is available now to `iban`, and the payout job's round. */
  async function payout(iban: string) {
    expect((await shop.patch('/payout_settings/', { iban, schedule: 'manual' })).status).toBe(200);
    await confirmNewAccount(t.service.deps.database.db, shop.keys.environment_id);
    const made = await shop.post('/merchant_payout/', { currency: 'EUR' });
    expect(made.status, made.text).toBe(201);
    while ((await job(JOB_NAMES.merchantPayouts)) > 0);
    return (await shop.get(`/merchant_payout/${made.body.id}/`)).body;
  }

  beforeAll(async () => {
    t = await startIsolatedService(engine);
    shop = await t.newEnvironment('Payout shop');
    await setPricing(t.service.deps.database.db, shop.keys.environment_id, { charge: NO_FEE, refund: NO_FEE, settlementDelayDays: 0 }, new Date());
    await paidTransaction(shop, priced('EUR', 40));
    await paidTransaction(shop, priced('EUR', 2.5));
    while ((await shop.get('/balance/')).body.available.every((a: { amount: number }) => a.amount <= 0)) {
      if ((await job(JOB_NAMES.balance)) === 0) throw new Error('nothing available');
    }
    failed = await payout(REFUSED_IBAN);
    expect(failed).toMatchObject({ status: 'failed' });
    paid = await payout(IBANS.ES);
    expect(paid).toMatchObject({ status: 'paid', amount: 42.5, line_count: 2 });
    viewer = (await member(t, shop, 'viewer')).browser;
  });
  afterAll(() => t?.close());

  it('lists the payouts with their settings; a failed one says so; each links to its page', async () => {
    const page = await viewer.get('/dashboard/payouts/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/dashboard/payouts/" aria-current="page"');
    expect(page.text).toContain('<dd data-testid="payout-iban">ES…1332</dd>');
    expect(page.text).toContain('<dd data-testid="payout-schedule">On request</dd>');
    // Read-only here, with the way to where an owner changes them: the Balance page's form, not the API.
    expect(page.text).toContain('An owner changes them on the Balance page: <a href="/dashboard/balance/#bal-account">Change bank account and schedule</a>');
    expect(page.text).not.toContain('PATCH /v1/payout_settings/');
    expect(page.text).not.toContain(IBANS.ES);
    expect(page.text).toContain(`href="/dashboard/payouts/${paid.id}/"`);
    expect(page.text).toContain(`href="/dashboard/payouts/${failed.id}/"`);
    expect(page.text).toContain('€42.50');
    expect(page.text).toContain('<strong class="overdue">Failed: the money is back in your balance</strong>');
    // Nothing on it changes anything: no form but the header's.
    expect(page.text).not.toMatch(/<form method="post" action="\/dashboard\/payouts/);
    // The pager keeps to the list; a nonsense page is page 1.
    expect((await viewer.get('/dashboard/payouts/?page=abc')).status).toBe(200);
  });

  it("a payout's page and its settlement report: the API's report, row for row; audited", async () => {
    const page = await viewer.get(`/dashboard/payouts/${paid.id}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Payout of €42.50');
    expect(page.text).toContain('<dd data-testid="payout-status">Paid</dd>');
    expect(page.text).toContain(`href="/dashboard/payouts/${paid.id}/settlement.csv"`);
    const csv = await viewer.get(`/dashboard/payouts/${paid.id}/settlement.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="settlement-${paid.id}.csv"`);
    const api = await shop.get(`/report/settlement/?payout=${paid.id}`);
    expect(api.status).toBe(200);
    expect(csv.text).toBe(api.text);
    const [header, ...rows] = parseCsv(csv.text);
    expect(header!.slice(0, 4)).toEqual(['payout_id', 'payout_created', 'payout_status', 'payout_amount']);
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r[0] === paid.id && r[3] === '42.50')).toBe(true);

    const failedPage = await viewer.get(`/dashboard/payouts/${failed.id}/`);
    expect(failedPage.text).toContain('its balance transactions went back to your balance');
    expect(parseCsv((await viewer.get(`/dashboard/payouts/${failed.id}/settlement.csv`)).text)).toHaveLength(1);
    const log = await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 100, offset: 0 });
    expect(log.filter((r) => r.action === 'settlement_downloaded').map((r) => JSON.parse(r.detail!).payout).sort()).toEqual([paid.id, failed.id].sort());
  });

  it('exports merchant payouts as their own kind; the wallets’ payouts keep the kind `payouts`', async () => {
    const form = (await viewer.get('/dashboard/export/')).text;
    expect(form).toContain('<option value="merchant_payouts">Payouts to your bank account</option>');
    expect(form).toContain('<option value="payouts">Wallet payouts to clients’ bank accounts</option>');
    const csv = await viewer.get(`/dashboard/export/csv?kind=merchant_payouts&from=${today()}&to=${today()}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="merchant_payouts-${today()}-${today()}.csv"`);
    const [header, ...rows] = parseCsv(csv.text);
    expect(header).toEqual(['id', 'created_at', 'updated_at', 'status', 'schedule', 'period', 'currency', 'amount', 'line_count', 'iban_masked', 'failure']);
    const byId = new Map(rows.map((r) => [r[0], r]));
    expect(rows).toHaveLength(2);
    // The status in the words the dashboard shows, not its code.
    expect(byId.get(paid.id)).toMatchObject({ 3: 'Paid', 4: 'manual', 5: '', 6: 'EUR', 7: '42.50', 8: '2', 9: 'ES…1332', 10: '' });
    expect(byId.get(failed.id)).toMatchObject({ 3: 'Failed: the money is back in your balance', 9: 'DE…0000' });
    expect(byId.get(failed.id)![10]).not.toBe('');
    expect(csv.text).not.toContain(IBANS.ES);
    // The old kind still answers, with the wallets' payouts' columns.
    const wallets = parseCsv((await viewer.get(`/dashboard/export/csv?kind=payouts&from=${today()}&to=${today()}`)).text);
    expect(wallets[0]).toContain('source_wallet');
    expect(wallets).toHaveLength(1);
  });

  it("exports a wallet's payout to a client's IBAN with its status in words, in the reader's language", async () => {
    const client = await compliantClient(t, shop, IBANS.ES);
    const wallet = await createWallet(shop, { client_id: client.id });
    await fund(shop, wallet, 10);
    const sent = await shop.post('/transfer/', { source_wallet: wallet.id, destination_iban: client.iban, amount: 4 });
    expect(sent.status, sent.text).toBe(201);
    const rows = async (browser: Browser) => parseCsv((await browser.get(`/dashboard/export/csv?kind=payouts&from=${today()}&to=${today()}`)).text);
    const [header, row] = await rows(viewer);
    expect(header).toEqual(['id', 'created_at', 'transfer_id', 'source_wallet', 'iban_masked', 'currency', 'amount', 'concept', 'status', 'failure']);
    // The account paid, masked as the dashboard shows it (not the client IBAN's id).
    expect(row).toMatchObject({ 0: sent.body.id, 3: wallet.id, 4: 'ES…1332', 5: 'EUR', 6: '4.00', 8: 'On its way' });
    // The wallet's page says it in words too.
    expect((await viewer.get(`/dashboard/wallets/${wallet.id}/`)).text).toContain('<td data-status="pending">On its way</td>');
    await job('payouts');
    expect((await rows(viewer))[1]![8]).toBe('Paid');
    expect((await viewer.get(`/dashboard/wallets/${wallet.id}/`)).text).toContain('<td data-status="paid">Paid</td>');
    const spanish = (await member(t, shop, 'viewer', { 'accept-language': 'es' })).browser;
    expect((await rows(spanish))[1]![8]).toBe('Pagado');
  });

  it("another environment's payout, or none, is the same 404, for its page and its report", async () => {
    const { browser: stranger } = await member(t, await t.newEnvironment('Stranger payouts'), 'owner');
    for (const suffix of ['', 'settlement.csv']) {
      const theirs = await stranger.get(`/dashboard/payouts/${paid.id}/${suffix}`);
      const missing = await stranger.get(`/dashboard/payouts/${MISSING}/${suffix}`);
      expect(theirs.status).toBe(404);
      expect(theirs.text).toBe(missing.text);
      expect(theirs.text).not.toContain(paid.id);
    }
    expect((await stranger.get('/dashboard/payouts/x/')).status).toBe(404);
    const list = await stranger.get('/dashboard/payouts/');
    expect(list.text).not.toContain(paid.id);
    expect(list.text).toContain('No payouts yet.');
    const anonymous = await fetch(`${t.url}/dashboard/payouts/${paid.id}/settlement.csv`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
  });
});
