import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postBalanceTransactions } from '../../server/payments/balance';
import { setPricing } from '../../server/store/balance';
import { exportTransactions } from '../../server/store/exports';
import { type Browser, member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { paidTransaction, priced } from './pay';

// CSV exports from the dashboard: one environment's rows for a range of days, decimals in
// each row's currency, text a spreadsheet would run defused, read in batches.

/** The cells of a CSV file as RFC 4180 reads them (quoted fields may hold commas and quotes). */
function parseCsv(csv: string): string[][] {
  const rows: string[][] = [];
  for (const line of csv.replace(/^\uFEFF/, '').split('\r\n').filter(Boolean)) {
    const cells = [...line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)].map((m) => (m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!));
    rows.push(cells);
  }
  return rows;
}

describe.each(ENGINES)('dashboard exports on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let other: Client;
  let viewer: Browser;
  const today = () => t.service.deps.now().toISOString().slice(0, 10);

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Export shop');
    other = await t.newEnvironment('Other shop');
    viewer = (await member(t, shop, 'viewer')).browser;
    // 2.9 % + 0.25 a charge, so a sale's fee and net differ from its amount.
    const price = { charge: { percentE2: 290n, fixed: 25n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 0 };
    await setPricing(t.service.deps.database.db, shop.keys.environment_id, price, new Date());
  });
  afterAll(() => t?.close());

  it("exports a range's transactions, sales and refunds of this environment only, as a viewer", async () => {
    const { transaction, sale } = await paidTransaction(shop, priced('EUR', 12.5, { order_id: '=1+1, "quoted"', customer_email: 'ana@example.com' }));
    expect((await shop.post(`/sale/${sale.id}/refund/`, { amount: 2.5, reason: 'requested_by_customer' })).status).toBeLessThan(300);
    // The balance posts its movements in the background: posted here, so fee and net exist.
    while ((await postBalanceTransactions(t.service.deps)) > 0);
    const refunded = (await shop.get(`/sale/${sale.id}/`)).body;
    await shop.post('/transaction/', priced('JPY', 700, { order_id: 'yen-order' }));
    await other.post('/transaction/', priced('EUR', 3, { order_id: 'other-order' }));

    const csv = await viewer.get(`/dashboard/export/csv?kind=transactions&from=${today()}&to=${today()}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="transactions-${today()}-${today()}.csv"`);
    const [header, ...rows] = parseCsv(csv.text);
    expect(header).toEqual(['id', 'created_at', 'updated_at', 'order_id', 'status', 'reference', 'customer_email', 'currency', 'items', 'tax', 'shipping', 'coupon', 'total', 'source', 'destination']);
    const byOrder = new Map(rows.map((r) => [r[3], r]));
    expect(rows).toHaveLength(2);
    // The payer's text starting with "=" is defused; the quotes and comma survive. The status
    // is the dashboard's words: a partly refunded payment says so, an unpaid one is incomplete.
    expect(byOrder.get(`'=1+1, "quoted"`)).toMatchObject({ 0: transaction.id, 4: 'Partially refunded', 5: sale.reference, 6: 'ana@example.com', 7: 'EUR', 12: '12.50' });
    expect(byOrder.get('yen-order')).toMatchObject({ 4: 'Incomplete', 5: '', 6: '', 7: 'JPY', 12: '700' });
    expect(csv.text).not.toContain('other-order');

    const [saleHeader, ...sales] = parseCsv((await viewer.get(`/dashboard/export/csv?kind=sales&from=${today()}&to=${today()}`)).text);
    expect(saleHeader).toEqual([
      'id', 'reference', 'created_at', 'transaction_id', 'order_id', 'customer_email', 'authorization_id', 'status', 'currency',
      'amount', 'held', 'captured', 'refunded', 'voided', 'fee', 'net', 'card_brand', 'card_last4', 'failure',
    ]);
    // fee is the API's sale.fee; net what the balance kept of the sale after its refund.
    const [fee, net] = [saleHeader!.indexOf('fee'), saleHeader!.indexOf('net')];
    expect(sales).toEqual([expect.objectContaining({ 0: sale.id, 1: sale.reference, 3: transaction.id, 4: `'=1+1, "quoted"`, 5: 'ana@example.com', 7: 'Partially refunded', 9: '12.50', 12: '2.50', 17: '4242' })]);
    expect(Number(sales[0]![fee])).toBe(refunded.fee);
    expect(refunded.fee).toBeGreaterThan(0);
    expect(Math.round(Number(sales[0]![net]) * 100)).toBe(1250 - 250 - Math.round(refunded.fee * 100));
    const [refundHeader, ...refunds] = parseCsv((await viewer.get(`/dashboard/export/csv?kind=refunds&from=${today()}&to=${today()}`)).text);
    expect(refundHeader).toEqual(['id', 'created_at', 'sale_id', 'transaction_id', 'order_id', 'customer_email', 'currency', 'amount', 'reason', 'card_brand', 'card_last4', 'gateway_reference', 'failed_at']);
    // The refunded payment's customer, as the payments and sales give it.
    expect(refunds).toEqual([expect.objectContaining({ 2: sale.id, 3: transaction.id, 5: 'ana@example.com', 6: 'EUR', 7: '2.50', 8: 'requested_by_customer', 12: '' })]);
    const [movementHeader, ...movements] = parseCsv((await viewer.get(`/dashboard/export/csv?kind=balance_transactions&from=${today()}&to=${today()}`)).text);
    expect(movementHeader).toEqual(['id', 'created_at', 'type', 'sale_id', 'dispute_id', 'payout_id', 'currency', 'amount', 'fee', 'net', 'available_on']);
    expect(movements.map((m) => [m[2], m[3], m[7]]).sort()).toEqual([['charge', sale.id, '12.50'], ['refund', sale.id, '-2.50']]);
    // When each becomes available is a time in the shop's zone with its offset, as every time of the file.
    for (const m of movements) expect(m[10]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    for (const kind of ['payouts', 'wallet_entries']) {
      const empty = await viewer.get(`/dashboard/export/csv?kind=${kind}&from=${today()}&to=${today()}`);
      expect(empty.status).toBe(200);
      expect(parseCsv(empty.text)).toHaveLength(1);
    }
    // A range before today has none of today's rows.
    const past = await viewer.get('/dashboard/export/csv?kind=transactions&from=2020-01-01&to=2020-12-31');
    expect(parseCsv(past.text)).toHaveLength(1);
    const log = (await (await member(t, shop, 'owner')).browser.get('/dashboard/audit/')).text;
    expect(log).toContain(`Exported Transactions from ${today()} to ${today()}`);
  });

  it('answers a clear 400 for a reversed or impossible range or an unknown kind, and the sign-in page without a session', async () => {
    for (const query of ['kind=transactions&from=2026-02-02&to=2026-02-01', 'kind=transactions&from=2026-02-30&to=2026-03-01', 'kind=cards&from=2026-01-01&to=2026-01-02', 'kind=sales']) {
      const page = await viewer.get(`/dashboard/export/csv?${query}`);
      expect(page.status, query).toBe(400);
      expect(page.text).toContain('Choose two dates');
    }
    expect((await viewer.get('/dashboard/export/')).text).toContain('Download CSV');
    const anonymous = await fetch(`${t.url}/dashboard/export/csv?kind=transactions&from=2020-01-01&to=2030-01-01`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/dashboard/sign-in/');
  });

  it('reads in batches: every row once, in order, across batch boundaries', async () => {
    const env = await t.newEnvironment('Batch shop');
    for (let i = 0; i < 5; i++) await env.post('/transaction/', priced('EUR', 1, { order_id: `batch-${i}` }));
    const seen: string[] = [];
    const ids: string[] = [];
    const range = { environmentId: env.keys.environment_id, from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z', batch: 2 };
    const sizes: number[] = [];
    for await (const rows of exportTransactions(t.service.deps.database.db, range)) {
      sizes.push(rows.length);
      seen.push(...rows.map((r) => r.order_id!));
      ids.push(...rows.map((r) => r.id));
    }
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen.sort()).toEqual(['batch-0', 'batch-1', 'batch-2', 'batch-3', 'batch-4']);
    expect(ids).toEqual([...ids].sort());
  });
});
