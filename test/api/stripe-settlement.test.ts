import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { AVAILABLE_AFTER_SECONDS, stripeFee } from '../stripe/objects';
import { member } from './dashboard';
import { ENGINES } from './harness';
import { payToken, SANDBOX_CARD } from './pay';
import { doubleSdk, newTransaction, paidByCheckout, stripeRefusal, useStripeShop } from './stripe-shop';

// Settlement by Stripe (docs/processors.md "What settles where"), over real HTTP against the
// Stripe double: a sale the merchant's own Stripe account settles carries Stripe's figures
// (`processor_settlement`, from the charge's balance transaction) beside our own `fee`, after
// the payment and after a capture (a partial one: the figures of what was captured); a sale
// the platform settles has none; the daily sweep reads what a failed reading left missing;
// and none of it enters our balance.

const HOUR = 3_600_000;

describe.each(ENGINES)('Settlement by Stripe on %s', (engine) => {
  const shop = useStripeShop(engine);
  const run = (job: string) => shop.t.service.jobs.runOnce(job);
  const sale = async (id: string) => (await shop.api.get(`/sale/${id}/`)).body;
  /** Stripe's balance transaction of a charge at the double. */
  const balanceTransactionOf = (charge: string) => shop.double.books.balanceTransactions.get(shop.double.books.charges.get(charge)!.balance_transaction as string)!;
  const figuresRead = (pi: string) => shop.double.requests.filter((r) => r.method === 'GET' && r.path === `/v1/payment_intents/${pi}` && (r.params.expand as string[] | undefined)?.includes('latest_charge.balance_transaction'));

  it('a payment captured at once: Stripe’s amount, fee and net of its balance transaction, our own fee apart, nothing in our balance', async () => {
    const before = (await shop.api.get('/balance/')).body;
    const { sale: paid, paymentIntent, charge } = await paidByCheckout(shop);
    const bt = balanceTransactionOf(charge);
    expect(bt).toMatchObject({ amount: 1700, fee: stripeFee(1700), net: 1700 - stripeFee(1700), currency: 'eur', source: charge });
    // Read once, with the payment: the PaymentIntent with its charge's balance transaction.
    expect(figuresRead(paymentIntent)).toHaveLength(1);
    expect(paid.processor_settlement).toEqual({
      status: 'known',
      record: bt.id,
      currency: 'EUR',
      amount: 17,
      fee: stripeFee(1700) / 100,
      net: (1700 - stripeFee(1700)) / 100,
      available_on: new Date((bt.created + AVAILABLE_AFTER_SECONDS) * 1000).toISOString(),
    });
    // `fee` stays ours: the platform takes none on a sale it does not settle.
    expect(paid.fee).toBe(0);
    // The payment's page shows Stripe's figures beside the sale's amounts.
    const page = await (await member(shop.t, shop.api, 'viewer')).browser.get(`/dashboard/transactions/${paid.transaction_id}/`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<dt>Stripe(&#39;|')s fee<\/dt><dd data-testid="processor-fee">€0\.51<\/dd>/);
    expect(page.text).toMatch(/<dt>Net from Stripe<\/dt><dd data-testid="processor-net">€16\.49<\/dd>/);
    await run(JOB_NAMES.balance);
    expect((await shop.api.get(`/balance_transaction/?sale=${paid.id}`)).body.results).toEqual([]);
    expect((await shop.api.get('/balance/')).body).toEqual(before);
  });

  it('a hold has none until it is captured; a partial capture has the figures of what was captured, in the capture’s answer', async () => {
    const { sale: held, paymentIntent, charge } = await paidByCheckout(shop, { authorize: true });
    expect(held.processor_settlement).toEqual({ status: 'none', record: null, currency: null, amount: null, fee: null, net: null, available_on: null });
    expect(figuresRead(paymentIntent)).toEqual([]);
    const captured = await shop.api.post(`/sale/${held.id}/capture/`, { amount: 10 });
    expect(captured.status, captured.text).toBe(200);
    const bt = balanceTransactionOf(charge);
    expect(bt.amount).toBe(1000);
    expect(captured.body.processor_settlement).toMatchObject({ status: 'known', record: bt.id, currency: 'EUR', amount: 10, fee: stripeFee(1000) / 100, net: (1000 - stripeFee(1000)) / 100 });
    // The rest, released with the capture (Stripe captures once), changes nothing of it.
    expect(captured.body).toMatchObject({ held: 0, voided: 7 });
    expect((await shop.api.get(`/sale/${held.id}/`)).body.processor_settlement).toEqual(captured.body.processor_settlement);
    expect(figuresRead(paymentIntent)).toHaveLength(1);
  });

  it('a sale the platform settles (the sandbox card) has none', async () => {
    const tx = await newTransaction(shop.api);
    expect(await payToken(shop.api.url, tx.token)).toBe(200);
    const [platform] = (await shop.api.get(`/sale/?transaction_id=${tx.id}`)).body.results;
    expect(platform.gateway).toBe(SANDBOX_CARD);
    expect(platform.processor_settlement).toBeNull();
  });

  it('a reading that failed leaves the figures pending; the daily sweep reads them', async () => {
    // Stripe answers a 500 to the reading after the payment (the payment itself is recorded).
    shop.double.failNext({ method: 'GET', path: /^\/v1\/payment_intents\/pi_/, expand: 'latest_charge.balance_transaction' });
    const { sale: paid, paymentIntent, charge } = await paidByCheckout(shop);
    expect(figuresRead(paymentIntent).map((r) => r.status)).toEqual([500]);
    expect(paid).toMatchObject({ status: 'captured', captured: 17 });
    expect(paid.processor_settlement).toEqual({ status: 'pending', record: null, currency: null, amount: null, fee: null, net: null, available_on: null });
    const page = await (await member(shop.t, shop.api, 'viewer')).browser.get(`/dashboard/transactions/${paid.transaction_id}/`);
    expect(page.text).toContain('<dd data-testid="processor-fee">Not known yet</dd>');
    // The sweep is due a day after the processor was connected.
    shop.clock.advance(25 * HOUR);
    for (let round = 0; round < 100 && (await run(JOB_NAMES.processorSweep)) > 0; round++);
    expect((await sale(paid.id)).processor_settlement).toMatchObject({ status: 'known', record: balanceTransactionOf(charge).id, amount: 17, fee: stripeFee(1700) / 100 });
  });

  it('the double refuses what Stripe refuses: a field of the balance transaction that cannot be expanded, an unknown parameter', async () => {
    const { paymentIntent } = await paidByCheckout(shop);
    const stripe = doubleSdk(shop.double, shop.keys.secret_key);
    const deeper = await stripeRefusal(stripe.paymentIntents.retrieve(paymentIntent, { expand: ['latest_charge.balance_transaction.fee_details'] }));
    expect(deeper).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError', param: 'expand' });
    const unknown = await stripeRefusal(stripe.paymentIntents.retrieve(paymentIntent, { expand: ['latest_charge.balance_transaction'], include_fees: true } as never));
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'include_fees' });
  });
});
