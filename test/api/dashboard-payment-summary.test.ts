import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, member } from './dashboard';
import { type Client, ENGINES, type TestService } from './harness';
import { startIsolatedService } from './database';
import { paidTransaction, priced, SANDBOX_CARD, screenPost } from './pay';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { setPricing } from '../../server/store/balance';
import { JOB_NAMES } from '../../server/jobs';

// The summary at the top of a payment's page (issue 47): besides amount, status, reference,
// customer and card, the fees our balance took and the net it kept (as the API's
// `sale.fee` and the sales export sum them), and the customer's receipt: waiting, then sent
// with its time; none without a customer email; the language the customer paid in on the
// hosted page, as its attempt recorded it. On both engines.

describe.each(ENGINES)('a payment page summary on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let admin: Browser;
  const email = `summary.${Date.now().toString(36)}@customer.example`;

  beforeAll(async () => {
    t = await startIsolatedService(engine);
    shop = await t.newEnvironment('Summary shop');
    admin = (await member(t, shop, 'admin')).browser;
    // 1.5 % + €0.25 a charge, nothing on refunds.
    const none = { percentE2: 0n, fixed: 0n };
    await setPricing(t.service.deps.database.db, shop.keys.environment_id, { charge: { percentE2: 150n, fixed: 25n }, refund: none, settlementDelayDays: 0 }, new Date());
  });
  afterAll(() => t?.close());

  const summaryOf = async (transactionId: string) => {
    const page = await admin.get(`/dashboard/transactions/${transactionId}/`);
    expect(page.status).toBe(200);
    return /<section class="summary"[\s\S]*?<\/dl>/.exec(page.text)![0];
  };
  /** The balance job books what the sale moved (its balance transactions). */
  const book = async () => {
    while ((await t.service.jobs.runOnce(JOB_NAMES.balance)) > 0);
  };
  const dd = (html: string, testId: string) => new RegExp(`<dd data-testid="${testId}">([^<]*)</dd>`).exec(html)?.[1];

  it('fees and net of the sale, also after a refund; the receipt waiting, then sent', async () => {
    const { transaction, sale } = await paidTransaction(shop, priced('EUR', 40, { customer_email: email }));
    await book();
    const api = (await shop.get(`/sale/${sale.id}/`)).body;
    // 1.5 % of €40.00 is €0.60, plus €0.25.
    expect(api.fee).toBe(0.85);
    let summary = await summaryOf(transaction.id);
    expect([dd(summary, 'fees'), dd(summary, 'net')]).toEqual(['€0.85', '€39.15']);
    expect(dd(summary, 'receipt')).toBe(`Waiting to be sent to ${email}`);
    // The mail job run until the receipt is out: on PostgreSQL other files' mails share the table, and a batch may be theirs.
    const sent = new RegExp(`^Sent to ${email.replace('.', '\\.')} on \\w{3} \\d{1,2}, \\d{4}, `);
    await expect
      .poll(async () => {
        await t.service.jobs.runOnce(JOB_NAMES.mail);
        return dd(await summaryOf(transaction.id), 'receipt');
      }, { timeout: 20_000 })
      .toMatch(sent);

    expect((await shop.post(`/sale/${sale.id}/refund/`, { amount: 10, reason: 'requested_by_customer' })).status).toBe(200);
    await book();
    summary = await summaryOf(transaction.id);
    expect([dd(summary, 'fees'), dd(summary, 'net')]).toEqual(['€0.85', '€29.15']);
  });

  it('no fees before money moved; no receipt without a customer email', async () => {
    const open = (await shop.post('/transaction/', priced('EUR', 12))).body;
    const summary = await summaryOf(open.id);
    expect(dd(summary, 'fees')).toBeUndefined();
    expect(summary).toContain('<dd>No receipt: the payment has no customer email</dd>');
    const { transaction } = await paidTransaction(shop, priced('EUR', 12));
    expect(await summaryOf(transaction.id)).toContain('No receipt: the payment has no customer email');
  });

  it('the language the customer paid in on the hosted page, named in the reader’s language; none before an attempt', async () => {
    const open = (await shop.post('/transaction/', priced('EUR', 15))).body;
    expect(dd(await summaryOf(open.id), 'language')).toBeUndefined();
    // As the hydrated screen posts it: to the page's own address, the language it was shown in included.
    const card = { card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'Ana' };
    const paid = await screenPost(t.url, open.token, `/pay/${open.token}/?lang=es`, { action: 'pay', gateway: SANDBOX_CARD, fields: card });
    expect([paid.status, paid.body.view?.status]).toEqual([200, 'paid']);
    const attempts = await t.service.deps.database.db.selectFrom('payment_attempts').select(['outcome', 'language']).where('transaction_id', '=', open.id).execute();
    expect(attempts).toEqual([{ outcome: 'approved', language: 'es' }]);
    expect(dd(await summaryOf(open.id), 'language')).toBe('Spanish');
  });
});
