import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { type Client, ENGINES, problemPaths, transactionBody } from './harness';
import { balanceOf, checkLedger, createWallet, entriesOf, fund, useOwnService } from './ledger';
import { SANDBOX_CARD } from './pay';

// A transaction with a `source` is paid at creation from wallets and stored cards, all or
// nothing: a source that fails leaves no money moved and no charge standing.

const storedCard = async (api: Client, number: string) => {
  const res = await api.post('/authorization/', { gateway: SANDBOX_CARD, card: { number, expiry: '12/34', cvc: '123', name: 'Ada' } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
};

/** 2 × 8.50 = 17.00 EUR. */
const seventeen = (over: Record<string, unknown>) => transactionBody(over);

describe.each(ENGINES)('transactions paid from a source on %s', (engine) => {
  const svc = useOwnService(engine);
  const ledgerHolds = () => checkLedger(svc.t.service.deps.database.db, svc.api.keys.environment_id);

  it('pays from two wallets and a card at creation, crediting the destinations in the same movement', async () => {
    const { api } = svc;
    const [a, b, seller] = [await createWallet(api), await createWallet(api), await createWallet(api)];
    await fund(api, a, 10);
    await fund(api, b, 10);
    const card = await storedCard(api, TEST_CARDS.approved);
    const res = await api.post(
      '/transaction/',
      seventeen({
        source: [
          { wallet_id: a.id, amount: 8 },
          { wallet_id: b.id, amount: 4 },
          { authorization_id: card, amount: 5 },
        ],
        destination: [{ wallet_id: seller.id, amount: 15 }],
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe('D');
    expect([await balanceOf(api, a.id), await balanceOf(api, b.id), await balanceOf(api, seller.id)]).toEqual([2, 6, 15]);
    const [sale] = (await api.get(`/sale/?transaction_id=${res.body.id}`)).body.results;
    expect((await entriesOf(api, a.id)).at(-1)).toMatchObject({ amount: -8, balance: 2, with_external: `transaction:${res.body.id}`, with_sale: sale.id });
    // The card was charged its part.
    const sales = (await api.get(`/sale/?authorization_id=${card}`)).body.results;
    expect(sales).toMatchObject([{ amount: 5, captured: 5, refunded: 0 }]);
    expect((await api.get(`/transaction/${res.body.id}/`)).body.status).toBe('D');
    await ledgerHolds();
  });

  it('a refund of the transaction\'s sale takes the destinations back in proportion to the transaction, the card first, then the wallet', async () => {
    const { api } = svc;
    const [payer, seller, other] = [await createWallet(api), await createWallet(api), await createWallet(api)];
    await fund(api, payer, 7);
    const card = await storedCard(api, TEST_CARDS.approved);
    // 17.00: 7.00 from the wallet, 10.00 from the card; 8.50 to the seller, 3.40 to the other.
    const res = await api.post(
      '/transaction/',
      seventeen({
        source: [{ wallet_id: payer.id, amount: 7 }, { authorization_id: card, amount: 10 }],
        destination: [{ wallet_id: seller.id, amount: 8.5 }, { wallet_id: other.id, amount: 3.4 }],
      }),
    );
    expect(res.status, res.text).toBe(201);
    const [sale] = (await api.get(`/sale/?transaction_id=${res.body.id}`)).body.results;
    // Refunds of 4.00 (all from the card) then the rest, 13.00 (6.00 from the card, then
    // the wallet's 7.00): on the running total, the seller gives back
    // floor(850 × 400 / 1700) = 2.00, then the rest of its 8.50; the other
    // floor(340 × 400 / 1700) = 0.80, then the rest of its 3.40.
    expect((await api.post(`/sale/${sale.id}/refund/`, { amount: 4 })).status).toBe(200);
    expect([await balanceOf(api, seller.id), await balanceOf(api, other.id)]).toEqual([6.5, 2.6]);
    expect((await entriesOf(api, seller.id)).at(-1)).toMatchObject({ amount: -2, balance: 6.5, with_sale: sale.id });
    expect(await balanceOf(api, payer.id)).toBe(0);
    const rest = await api.post(`/sale/${sale.id}/refund/`, {});
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toMatchObject({ status: 'refunded', refunded: 17, refundable: 0 });
    expect([await balanceOf(api, seller.id), await balanceOf(api, other.id), await balanceOf(api, payer.id)]).toEqual([0, 0, 7]);
    expect((await entriesOf(api, payer.id)).at(-1)).toMatchObject({ amount: 7, balance: 7, with_sale: sale.id });
    expect((await api.get(`/sale/?authorization_id=${card}`)).body.results).toMatchObject([{ amount: 10, refunded: 10, refundable: 0 }]);
    await ledgerHolds();
  });

  it('a refund whose destination has spent its share is covered by the platform, as a receivable the wallet\'s next credits pay back first', async () => {
    const { api } = svc;
    const [seller, elsewhere] = [await createWallet(api), await createWallet(api)];
    const card = await storedCard(api, TEST_CARDS.approved);
    const res = await api.post(
      '/transaction/',
      seventeen({ source: [{ authorization_id: card, amount: 17 }], destination: [{ wallet_id: seller.id, amount: 17 }] }),
    );
    expect(res.status, res.text).toBe(201);
    expect((await api.post('/transfer/', { source_wallet: seller.id, destination_wallet: elsewhere.id, amount: 10 })).status).toBe(201);
    const [charge] = (await api.get(`/sale/?transaction_id=${res.body.id}`)).body.results;
    // The seller owes 8.00 back and holds 7.00: it gives 7.00, the platform covers 1.00.
    const refund = await api.post(`/sale/${charge.id}/refund/`, { amount: 8 });
    expect(refund.status, refund.text).toBe(200);
    expect(refund.body).toMatchObject({ refunded: 8, refundable: 9 });
    expect((await api.get(`/wallet/${seller.id}/`)).body).toMatchObject({ balance: 0, receivable: 1 });
    expect((await entriesOf(api, seller.id)).at(-1)).toMatchObject({ amount: -7, balance: 0, with_sale: charge.id });
    await ledgerHolds();

    // Money coming in pays the platform back first: of 5.00, 1.00 goes to the receivable.
    expect((await api.post('/transfer/', { source_wallet: elsewhere.id, destination_wallet: seller.id, amount: 5 })).status).toBe(201);
    expect((await api.get(`/wallet/${seller.id}/`)).body).toMatchObject({ balance: 4, receivable: 0 });
    expect((await entriesOf(api, seller.id)).slice(-2)).toMatchObject([
      { amount: 5, balance: 5 },
      { amount: -1, balance: 4, concept: 'repays the receivable' },
    ]);
    // Refunded in full: the seller gives back the rest of its share it holds, 4.00 of 9.00; the platform covers 5.00.
    expect((await api.post(`/sale/${charge.id}/refund/`, {})).status).toBe(200);
    expect((await api.get(`/wallet/${seller.id}/`)).body).toMatchObject({ balance: 0, receivable: 5 });
    await ledgerHolds();
  });

  it('a failing second source moves no money and leaves no charge on the first: 402 naming it, the reserved transaction not paid', async () => {
    const { api } = svc;
    const w = await createWallet(api);
    await fund(api, w, 10);
    const good = await storedCard(api, TEST_CARDS.approved);
    const poor = await storedCard(api, TEST_CARDS.insufficientFunds);
    const before = await api.count('/transaction/');
    const res = await api.post(
      '/transaction/',
      seventeen({
        source: [
          { authorization_id: good, amount: 7 },
          { authorization_id: poor, amount: 5 },
          { wallet_id: w.id, amount: 5 },
        ],
      }),
    );
    expect(res.status, res.text).toBe(402);
    expect(problemPaths(res)).toEqual(['source.1']);
    // The first card's charge was refunded in full; the wallet kept its money; the
    // transaction, stored before the first charge, is not paid (C) and moved nothing.
    const [charge] = (await api.get(`/sale/?authorization_id=${good}`)).body.results;
    expect(charge).toMatchObject({ amount: 7, captured: 7, refunded: 7, refundable: 0 });
    expect((await api.get(`/sale/?authorization_id=${poor}`)).body.results).toMatchObject([{ status: 'declined', amount: 5 }]);
    expect(await balanceOf(api, w.id)).toBe(10);
    expect(await api.count('/transaction/')).toBe(before + 1);
    const [reserved] = (await api.get('/transaction/?page_size=1')).body.results;
    expect(reserved).toMatchObject({ status: 'C', total_price: 17 });
    expect(await api.count(`/sale/?transaction_id=${reserved.id}`)).toBe(0);
    await ledgerHolds();
  });

  it('a wallet that cannot pay fails before any card is charged', async () => {
    const { api } = svc;
    const w = await createWallet(api);
    await fund(api, w, 1);
    const card = await storedCard(api, TEST_CARDS.approved);
    const res = await api.post('/transaction/', seventeen({ source: [{ authorization_id: card, amount: 15 }, { wallet_id: w.id, amount: 2 }] }));
    expect(res.status, res.text).toBe(402);
    expect(problemPaths(res)).toEqual(['source.1']);
    expect((await api.get(`/sale/?authorization_id=${card}`)).body.count).toBe(0);
    expect(await balanceOf(api, w.id)).toBe(1);
  });

  it('refuses sources that do not add up to total_price, name no or two payers, or are unknown (400)', async () => {
    const { api } = svc;
    const w = await createWallet(api);
    const usd = await createWallet(api, { currency: 'USD' });
    const cases: [unknown, string, RegExp?][] = [
      [[{ wallet_id: w.id, amount: 16.99 }], 'source', /difference -0\.01/],
      [[{ wallet_id: w.id, amount: 17.01 }], 'source', /difference 0\.01/],
      [[{ amount: 17 }], 'source.0.wallet_id'],
      [[{ amount: 17, wallet_id: w.id, authorization_id: w.id }], 'source.0.wallet_id'],
      [[{ wallet_id: '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e', amount: 17 }], 'source.0.wallet_id'],
      [[{ wallet_id: usd.id, amount: 17 }], 'source.0.wallet_id'],
      [[{ authorization_id: '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e', amount: 17 }], 'source.0.authorization_id'],
    ];
    for (const [source, path, detail] of cases) {
      const res = await api.post('/transaction/', seventeen({ source }));
      expect(res.status, res.text).toBe(400);
      expect(problemPaths(res)).toContain(path);
      if (detail) expect(res.body.detail).toMatch(detail);
    }
    const held = await api.post('/transaction/', seventeen({ authorize: true, source: [{ wallet_id: w.id, amount: 17 }] }));
    expect(held.status).toBe(400);
  });

  it('an empty source names nothing to pay from: the transaction is created as without one, to be paid through a gateway', async () => {
    const res = await svc.api.post('/transaction/', seventeen({ source: [] }));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'N', source: null, total_price: 17 });
    expect((await svc.api.get(`/transaction/${res.body.id}/`)).body.source).toBeNull();
  });
});
