import { describe, expect, it } from 'vitest';
import type { Db } from '../../server/store/db';
import { postBalanceTransactions } from '../../server/payments/balance';
import { DEFAULT_SETTLEMENT_DELAY_DAYS, dueOperationsQuery, setPricing } from '../../server/store/balance';
import { ENGINES, problemPaths, testClock } from './harness';
import { HELD_ID, withHeld } from './held-gateway';
import { checkLedger, createWallet, useOwnService } from './ledger';
import { paidTransaction, payWithCard, priced } from './pay';
import { queryPlan } from './query-plan';

// The merchant's balance: each capture, charge and refund becomes a balance transaction
// with its fee and its ledger movement; the balance is available after the settlement
// delay; a destination's share is not the merchant's. After every step the ledger adds up
// to zero and the `merchant` account holds exactly the balance transactions' net.

const DAY = 86_400_000;

/** The `merchant` and `fees` accounts against the balance transactions, per currency. */
async function merchantHolds(db: Db, environmentId: string) {
  await checkLedger(db, environmentId);
  const accounts = await db
    .selectFrom('ledger_entries')
    .select(['account', 'currency', (eb) => eb.fn.sum<number | string>('amount').as('total')])
    .where('environment_id', '=', environmentId)
    .where('account', 'in', ['merchant', 'fees'])
    .groupBy(['account', 'currency'])
    .execute();
  const bts = await db
    .selectFrom('balance_transactions')
    .select(['currency', (eb) => eb.fn.sum<number | string>('net').as('net'), (eb) => eb.fn.sum<number | string>('fee').as('fee')])
    .where('environment_id', '=', environmentId)
    .groupBy('currency')
    .execute();
  for (const b of bts) {
    const of = (account: string) => Number(accounts.find((a) => a.account === account && a.currency === b.currency)?.total ?? 0);
    expect(of('merchant'), `merchant account in ${b.currency}`).toBe(Number(b.net));
    expect(of('fees'), `fees account in ${b.currency}`).toBe(Number(b.fee));
  }
  expect(accounts.every((a) => bts.some((b) => b.currency === a.currency))).toBe(true);
}

describe.each(ENGINES)('the merchant balance on %s', (engine) => {
  const clock = testClock();
  const { gateways, held } = withHeld();
  const svc = useOwnService(engine, { now: clock.now, gateways });
  const db = () => svc.t.service.deps.database.db;
  const env = () => svc.api.keys.environment_id;
  const post = () => svc.t.service.jobs.runOnce('balance');
  const holds = () => merchantHolds(db(), env());
  const balance = async () => {
    const { livemode, ...amounts } = (await svc.api.get('/balance/')).body;
    expect(livemode).toBe(false);
    return amounts;
  };
  const ofSale = async (sale: string) => (await svc.api.get(`/balance_transaction/?sale=${sale}`)).body.results.reverse();

  it('a sale is a pending charge until the settlement delay has passed, then available', async () => {
    const { api } = svc;
    expect(await balance()).toEqual({ available: [], pending: [] });
    const { sale } = await paidTransaction(api, priced('EUR', 100));
    expect(await post()).toBe(1);
    expect(await post()).toBe(0);
    await holds();
    const [charge] = await ofSale(sale.id);
    expect(charge).toMatchObject({ type: 'charge', source: { object: 'sale', id: sale.id }, currency: 'EUR', amount: 100, fee: 0, net: 100, status: 'pending' });
    expect(Date.parse(charge.available_on) - Date.parse(charge.created)).toBe(DEFAULT_SETTLEMENT_DELAY_DAYS * DAY);
    expect((await api.get(`/balance_transaction/${charge.id}/`)).body).toEqual(charge);
    expect(await balance()).toEqual({ available: [{ currency: 'EUR', amount: 0 }], pending: [{ currency: 'EUR', amount: 100 }] });

    clock.advance(DEFAULT_SETTLEMENT_DELAY_DAYS * DAY);
    expect(await balance()).toEqual({ available: [{ currency: 'EUR', amount: 100 }], pending: [{ currency: 'EUR', amount: 0 }] });
    expect((await api.get(`/balance_transaction/${charge.id}/`)).body.status).toBe('available');

    // A refund leaves the available balance at once.
    expect((await api.post(`/sale/${sale.id}/refund/`, { amount: 40 })).status).toBe(200);
    expect(await post()).toBe(1);
    await holds();
    const [, refund] = await ofSale(sale.id);
    expect(refund).toMatchObject({ type: 'refund', amount: -40, fee: 0, net: -40, status: 'available' });
    expect(await balance()).toEqual({ available: [{ currency: 'EUR', amount: 60 }], pending: [{ currency: 'EUR', amount: 0 }] });
  });

  it('takes the pricing as fees, rounded half up on the percentage, never losing a cent', async () => {
    const { api, t } = svc;
    const other = await t.newEnvironment('Priced');
    const now = new Date();
    const price = { percentE2: 290n, fixed: 25n };
    await setPricing(db(), other.keys.environment_id, { charge: price, refund: { percentE2: 100n, fixed: 0n }, settlementDelayDays: 0 }, now);
    // 2.9 % of 12.50 € = 36.25 ct → 36, + 25 → 0.61 €; 2.9 % of 1.25 € = 3.625 ct → 4, + 25 → 0.29 €.
    const a = await paidTransaction(other, priced('EUR', 12.5));
    const b = await paidTransaction(other, priced('EUR', 1.25));
    // JPY has no minor unit: 2.9 % of 1000 ¥ = 29 ¥, + 25 → 54 ¥.
    const c = await paidTransaction(other, priced('JPY', 1000));
    expect(await post()).toBe(3);
    const charge = async (sale: string) => (await other.get(`/balance_transaction/?sale=${sale}`)).body.results[0];
    expect(await charge(a.sale.id)).toMatchObject({ amount: 12.5, fee: 0.61, net: 11.89, status: 'available' });
    expect(await charge(b.sale.id)).toMatchObject({ amount: 1.25, fee: 0.29, net: 0.96 });
    expect(await charge(c.sale.id)).toMatchObject({ currency: 'JPY', amount: 1000, fee: 54, net: 946 });
    // 1 % of 0.50 € = 0.5 ct → 1 ct (half up).
    expect((await other.post(`/sale/${a.sale.id}/refund/`, { amount: 0.5 })).status).toBe(200);
    expect(await post()).toBe(1);
    expect((await other.get(`/balance_transaction/?sale=${a.sale.id}&type=refund`)).body.results[0]).toMatchObject({ amount: -0.5, fee: 0.01, net: -0.51 });
    await merchantHolds(db(), other.keys.environment_id);
    // The sale shows what its balance transactions took.
    expect((await other.get(`/sale/${a.sale.id}/`)).body.fee).toBe(0.62);
    expect((await other.get(`/sale/?transaction_id=${c.transaction.id}`)).body.results[0].fee).toBe(54);
    expect(a.sale.fee).toBe(0);
    expect((await other.get('/balance/')).body).toEqual({
      livemode: false,
      available: [
        { currency: 'EUR', amount: 12.34 },
        { currency: 'JPY', amount: 946 },
      ],
      pending: [
        { currency: 'EUR', amount: 0 },
        { currency: 'JPY', amount: 0 },
      ],
    });
    // The first environment's pricing did not change.
    expect((await api.get('/balance/')).body.available).toEqual([{ currency: 'EUR', amount: 60 }]);
  });

  it("leaves a destination's share out: the merchant's part of the sale and of each refund", async () => {
    const { api } = svc;
    const wallet = await createWallet(api);
    const { sale } = await paidTransaction(api, priced('EUR', 100, { destination: [{ wallet_id: wallet.id, amount: 30 }] }));
    expect(await post()).toBe(1);
    await holds();
    expect((await ofSale(sale.id))[0]).toMatchObject({ type: 'charge', amount: 70, net: 70 });
    // Refunds take the split back proportionally: 30 % from the wallet, 70 % from the merchant.
    expect((await api.post(`/sale/${sale.id}/refund/`, { amount: 50 })).status).toBe(200);
    expect((await api.post(`/sale/${sale.id}/refund/`, { amount: 0.01 })).status).toBe(200);
    expect(await post()).toBe(2);
    await holds();
    const [, first, second] = await ofSale(sale.id);
    expect(first).toMatchObject({ type: 'refund', amount: -35, net: -35 });
    expect(second).toMatchObject({ type: 'refund', amount: -0.01, net: -0.01 });
    expect((await api.get(`/wallet/${wallet.id}/`)).body.balance).toBe(30 - 15);
  });

  // A refund of 0.01 from a sale split half to a wallet, refused by the processor while a
  // second one was reserved: the second's take-back counted the first (in flight then), so
  // the balance job, which counts only confirmed refunds, made its part one cent apart from
  // what the ledger took from the merchant.
  it("a refund reserved while another is refused: the merchant's part is what the ledger took", async () => {
    const api = await svc.t.newEnvironment('Split refunds');
    const wallet = await createWallet(api);
    const created = await api.post('/transaction/', priced('EUR', 10, { destination: [{ wallet_id: wallet.id, amount: 5 }] }));
    expect((await payWithCard(api.url, created.body.token, undefined, HELD_ID)).status).toBe(200);
    const sale = (await api.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    const first = held.hold('refund');
    const refused = api.post(`/sale/${sale.id}/refund/`, { amount: 0.01 });
    await first.arrived;
    expect((await api.post(`/sale/${sale.id}/refund/`, { amount: 0.01 })).status).toBe(200);
    first.release('refused by the test');
    expect((await refused).status).toBe(502);
    while ((await post()) > 0);
    await merchantHolds(db(), api.keys.environment_id);
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ refunded: 0.01, refundable: 9.99 });
  });

  it('reads its work by the index of the operations not dealt with, however long the history (the plan, as prepared statements run it)', async () => {
    expect(await queryPlan(db(), engine, dueOperationsQuery(db(), 50).compile())).toContain('sale_operations_balance_due');
  });

  it('marks each operation it dealt with; a hold, which moves no money of the merchant, is born marked', async () => {
    const { sale } = await paidTransaction(svc.api, priced('EUR', 30, { authorize: true }));
    expect(await post()).toBe(0);
    expect(await db().selectFrom('sale_operations').select('balance_checked_at').where('sale_id', '=', sale.id).execute()).toEqual([{ balance_checked_at: expect.any(String) }]);
    expect((await svc.api.post(`/sale/${sale.id}/capture/`, { amount: 30 })).status).toBe(200);
    expect(await post()).toBe(1);
    const ops = await db().selectFrom('sale_operations').select(['kind', 'balance_checked_at']).where('sale_id', '=', sale.id).orderBy('id').execute();
    expect(ops).toEqual([
      { kind: 'authorize', balance_checked_at: expect.any(String) },
      { kind: 'capture', balance_checked_at: expect.any(String) },
    ]);
    await holds();
  });

  it('counts what was captured of a hold, not the hold', async () => {
    const { api } = svc;
    const { sale } = await paidTransaction(api, priced('GBP', 100, { authorize: true }));
    expect(await post()).toBe(0);
    expect((await api.post(`/sale/${sale.id}/capture/`, { amount: 60 })).status).toBe(200);
    expect(await post()).toBe(1);
    await holds();
    expect(await ofSale(sale.id)).toMatchObject([{ type: 'charge', amount: 60, currency: 'GBP' }]);
    expect((await balance()).pending).toContainEqual({ currency: 'GBP', amount: 60 });
  });

  it('makes one balance transaction per operation when rounds run at once', async () => {
    const { api, t } = svc;
    const sales = await Promise.all([1, 2, 3].map(() => paidTransaction(api, priced('CHF', 10))));
    const made = await Promise.all([1, 2, 3].map(() => postBalanceTransactions(t.service.deps, 50)));
    expect(made.reduce((a, b) => a + b, 0)).toBe(3);
    for (const { sale } of sales) expect(await ofSale(sale.id)).toHaveLength(1);
    await holds();
  });

  it('lists with filters and pages, scoped to the environment', async () => {
    const { api, t } = svc;
    const all = (await api.get('/balance_transaction/?page_size=2')).body;
    expect(all.results).toHaveLength(2);
    expect(all.next).toContain('page=2');
    const refunds = (await api.get('/balance_transaction/?type=refund')).body;
    expect(refunds.count).toBe(3);
    expect((await api.get('/balance_transaction/?currency=GBP')).body.count).toBe(1);
    for (const query of ['type=payment', 'sale=nope', 'page_size=101']) {
      const res = await api.get(`/balance_transaction/?${query}`);
      expect(res.status, query).toBe(400);
      expect(problemPaths(res)).toHaveLength(1);
    }
    const stranger = await t.newEnvironment('Stranger');
    expect((await stranger.get(`/balance_transaction/${all.results[0].id}/`)).status).toBe(404);
    expect((await stranger.get('/balance_transaction/')).body.count).toBe(0);
    expect((await stranger.get('/balance/')).body).toEqual({ livemode: false, available: [], pending: [] });
  });
});
