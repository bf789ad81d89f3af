import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { CONTROLLED_ID, withControlled } from './gateways';
import { type Client, ENGINES, transactionBody } from './harness';
import { balanceOf, checkLedger, createWallet, entriesOf, fund, useOwnService } from './ledger';

// The sale of a transaction paid from its `source`: one sale for the whole transaction,
// listing its sources, named by every entry of its movement, and refunded back to its
// sources (the cards first, in the transaction's order, then the wallets), each card's
// part at its gateway as any refund, each wallet's part in the ledger, the destinations
// giving their split back on the sale's running total.

const NIL = '00000000-0000-0000-0000-000000000000';

describe.each(ENGINES)('the sale of a transaction paid from a source on %s', (engine) => {
  const { gateways, controlled } = withControlled();
  // A short timeout: a hanging gateway is given up on quickly.
  const svc = useOwnService(engine, { gateways, env: { GATEWAY_TIMEOUT_MS: '300' } });
  const db = () => svc.t.service.deps.database.db;
  const ledgerHolds = () => checkLedger(db(), svc.api.keys.environment_id);
  const refundsAtGateway = () => controlled.received.filter((r) => r.method === 'refund');
  beforeEach(() => {
    controlled.mode = 'ok';
  });
  afterAll(async () => {
    await controlled.completeHung();
  });

  const storedCard = async (api: Client) => {
    const res = await api.post('/authorization/', { gateway: CONTROLLED_ID, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'Ada' } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };

  /**
   * 17.00 paid from wallet a (6.00), card 1 (4.00), wallet b (3.00) and card 2 (4.00), in
   * that order; 12.75 to the seller and 2.55 to the other, 1.70 left to the merchant.
   */
  async function paid() {
    const { api } = svc;
    const [a, b, seller, other] = [await createWallet(api), await createWallet(api), await createWallet(api), await createWallet(api)];
    await fund(api, a, 10);
    await fund(api, b, 5);
    const [card1, card2] = [await storedCard(api), await storedCard(api)];
    const res = await api.post(
      '/transaction/',
      transactionBody({
        source: [
          { wallet_id: a.id, amount: 6 },
          { authorization_id: card1, amount: 4 },
          { wallet_id: b.id, amount: 3 },
          { authorization_id: card2, amount: 4 },
        ],
        destination: [
          { wallet_id: seller.id, amount: 12.75 },
          { wallet_id: other.id, amount: 2.55 },
        ],
      }),
    );
    expect(res.status, res.text).toBe(201);
    const sales = (await api.get(`/sale/?transaction_id=${res.body.id}`)).body.results;
    expect(sales).toHaveLength(1);
    const charge = async (card: string) => (await api.get(`/sale/?authorization_id=${card}`)).body.results[0];
    return { tx: res.body, sale: sales[0], a, b, seller, other, card1, card2, charge1: await charge(card1), charge2: await charge(card2) };
  }

  const balances = async (...wallets: { id: string }[]) => Promise.all(wallets.map((w) => balanceOf(svc.api, w.id)));

  it('has one sale: the transaction\'s total, its sources in order with each card\'s charge, named by every entry of its movement', async () => {
    const { api } = svc;
    const p = await paid();
    expect(p.sale).toMatchObject({
      status: 'captured',
      transaction_id: p.tx.id,
      authorization_id: null,
      gateway: NIL,
      currency: 'EUR',
      amount: 17,
      captured: 17,
      refunded: 0,
      refundable: 17,
      card: null,
      operations: [{ kind: 'charge', amount: 17 }],
      sources: [
        { wallet_id: p.a.id, authorization_id: null, sale_id: null, amount: 6, refunded: 0 },
        { wallet_id: null, authorization_id: p.card1, sale_id: p.charge1.id, amount: 4, refunded: 0 },
        { wallet_id: p.b.id, authorization_id: null, sale_id: null, amount: 3, refunded: 0 },
        { wallet_id: null, authorization_id: p.card2, sale_id: p.charge2.id, amount: 4, refunded: 0 },
      ],
    });
    expect((await api.get(`/sale/${p.sale.id}/`)).body).toEqual(p.sale);
    // The card charges stay sales of their authorizations, without `sources`.
    expect(p.charge1).toMatchObject({ amount: 4, captured: 4, transaction_id: null });
    expect(p.charge1.sources).toBeUndefined();
    for (const [w, amount] of [[p.a, -6], [p.b, -3], [p.seller, 12.75], [p.other, 2.55]] as const) {
      expect((await entriesOf(api, w.id)).at(-1)).toMatchObject({ amount, with_sale: p.sale.id, with_external: `transaction:${p.tx.id}` });
    }
    expect((await api.get(`/wallet/${p.seller.id}/entry/?with_sale=${p.sale.id}`)).body.count).toBe(1);
    const events = (await api.get(`/event/?object_id=${p.sale.id}`)).body.results as { type: string }[];
    expect(events.map((e) => e.type)).toEqual(['sale.created']);
    await ledgerHolds();
  });

  it('is refunded in parts back to the cards first, in order, then the wallets; the destinations give back their split; a repeat of a key refunds once', async () => {
    const { api } = svc;
    const p = await paid();
    expect(await balances(p.a, p.b, p.seller, p.other)).toEqual([4, 2, 12.75, 2.55]);
    const sent = refundsAtGateway().length;

    // 6.00: card 1's 4.00, then 2.00 of card 2's. The seller gives back floor(1275 × 600 / 1700) = 4.50, the other floor(255 × 600 / 1700) = 0.90.
    const key = { 'idempotency-key': `source-refund-${engine}-${p.sale.id}` };
    const first = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 6 }, key);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ status: 'partially_refunded', refunded: 6, refundable: 11 });
    expect(first.body.sources.map((s: { refunded: number }) => s.refunded)).toEqual([0, 4, 0, 2]);
    expect(refundsAtGateway()).toHaveLength(sent + 2);
    const [r1, r2] = refundsAtGateway().slice(sent);
    expect(r1!.payment).toBeTruthy();
    expect(r2!.payment).toBeTruthy();
    expect(r1!.payment).not.toBe(r2!.payment);
    expect(await balances(p.a, p.b, p.seller, p.other)).toEqual([4, 2, 8.25, 1.65]);
    expect((await entriesOf(api, p.seller.id)).at(-1)).toMatchObject({ with_sale: p.sale.id });

    // The same key again: the same answer, replayed; nothing refunded twice.
    const again = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 6 }, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(refundsAtGateway()).toHaveLength(sent + 2);
    expect((await api.get(`/sale/${p.sale.id}/`)).body.refunded).toBe(6);

    // 5.00: the rest of card 2 (2.00), then wallet a's 3.00; in all 11.00 given back:
    // the seller floor(1275 × 1100 / 1700) = 8.25, the other floor(255 × 1100 / 1700) = 1.65.
    const second = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 5 });
    expect(second.status, second.text).toBe(200);
    expect(second.body.sources.map((s: { refunded: number }) => s.refunded)).toEqual([3, 4, 0, 4]);
    expect(refundsAtGateway()).toHaveLength(sent + 3);
    expect(await balances(p.a, p.b, p.seller, p.other)).toEqual([7, 2, 4.5, 0.9]);
    expect((await entriesOf(api, p.a.id)).at(-1)).toMatchObject({ amount: 3, balance: 7, with_sale: p.sale.id });

    // More than is left: a 409, nothing changed.
    const over = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 6.01 });
    expect(over.status, over.text).toBe(409);
    expect(over.body.detail).toMatch(/refundable now: 6 EUR/);

    // The rest, 6.00: wallet a's last 3.00, then wallet b's 3.00; every destination gives back its whole share.
    const rest = await api.post(`/sale/${p.sale.id}/refund/`, {});
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toMatchObject({ status: 'refunded', refunded: 17, refundable: 0 });
    expect(rest.body.sources.map((s: { refunded: number }) => s.refunded)).toEqual([6, 4, 3, 4]);
    expect(refundsAtGateway()).toHaveLength(sent + 3);
    expect(await balances(p.a, p.b, p.seller, p.other)).toEqual([10, 5, 0, 0]);
    const refunds = rest.body.operations.filter((o: { kind: string }) => o.kind === 'refund').map((o: { amount: number }) => o.amount);
    expect(refunds.reduce((a: number, b: number) => a + b, 0)).toBe(17);
    expect((await api.get(`/sale/${p.charge1.id}/`)).body).toMatchObject({ refunded: 4, refundable: 0, status: 'refunded' });
    expect((await api.get(`/sale/${p.charge2.id}/`)).body).toMatchObject({ refunded: 4, refundable: 0, status: 'refunded' });
    expect((await api.post(`/sale/${p.sale.id}/refund/`, {})).status).toBe(409);

    // The merchant's 1.70 came in with the payment and went back with the refunds; so did the cards' 8.00.
    const sums = await db()
      .selectFrom('ledger_entries')
      .select(['account', (eb) => eb.fn.sum<number>('amount').as('total')])
      .where('with_sale', '=', p.sale.id)
      .where('account', 'in', ['merchant', 'card_payments'])
      .groupBy('account')
      .execute();
    expect(sums.map((s) => [s.account, Number(s.total)]).sort()).toEqual([
      ['card_payments', 0],
      ['merchant', 0],
    ]);
    const events = (await api.get(`/event/?object_id=${p.sale.id}&type=sale.refunded`)).body.count;
    expect(events).toBe(refunds.length);
    await ledgerHolds();
  });

  it('its card charges are refunded only through it (409 naming it); it takes no capture or void', async () => {
    const { api } = svc;
    const p = await paid();
    const refused = await api.post(`/sale/${p.charge1.id}/refund/`, { amount: 1 });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.detail).toContain(`/v1/sale/${p.sale.id}/refund/`);
    expect((await api.get(`/sale/${p.charge1.id}/`)).body).toMatchObject({ refunded: 0, refundable: 4 });
    expect((await api.post(`/sale/${p.sale.id}/capture/`, {})).status).toBe(409);
    expect((await api.post(`/sale/${p.sale.id}/void/`, { amount: 1 })).status).toBe(409);
    expect((await api.get(`/sale/${p.sale.id}/`)).body).toMatchObject({ status: 'captured', refunded: 0 });
  });

  it('a card part its gateway refuses is released: 502 saying what was refunded, the other parts stand, replayed for its key', async () => {
    const { api } = svc;
    const p = await paid();
    controlled.mode = 'refuse';
    const key = { 'idempotency-key': `source-refused-${engine}-${p.sale.id}` };
    // 10.00: both cards' 8.00 (refused), then wallet a's 2.00 (made).
    const res = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 10 }, key);
    expect(res.status, res.text).toBe(502);
    expect(res.body.detail).toMatch(/^Refunded 2 EUR of 10 EUR/);
    expect(res.body.detail).toContain('source.1 (4 EUR)');
    const sent = refundsAtGateway().length;
    const again = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 10 }, key);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([502, 'true']);
    expect(refundsAtGateway()).toHaveLength(sent);
    const after = (await api.get(`/sale/${p.sale.id}/`)).body;
    expect(after).toMatchObject({ refunded: 2, refundable: 15 });
    expect(after.sources.map((s: { refunded: number }) => s.refunded)).toEqual([2, 0, 0, 0]);
    // floor(1275 × 200 / 1700) = 1.50 from the seller; the cards' take-backs were given back.
    expect(await balances(p.a, p.seller)).toEqual([6, 11.25]);

    // Refused whole: nothing changed.
    const whole = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 3 });
    expect(whole.status, whole.text).toBe(502);
    expect(whole.body.detail).toMatch(/nothing was changed/);
    expect((await api.get(`/sale/${p.sale.id}/`)).body).toMatchObject({ refunded: 2, refundable: 15 });

    // The gateway back: the card's part is refundable again, first in line.
    controlled.mode = 'ok';
    const retried = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 4 });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.sources.map((s: { refunded: number }) => s.refunded)).toEqual([2, 4, 0, 0]);
    await ledgerHolds();
  });

  it('a card part of unknown outcome is pending (202) until reconciliation proves it; a repeat of the key asks the gateway nothing', async () => {
    const { api } = svc;
    const p = await paid();
    controlled.mode = 'hang';
    const key = { 'idempotency-key': `source-unknown-${engine}-${p.sale.id}` };
    const res = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 4 }, key);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ status: 'pending', refunded: 0, refundable: 13 });
    // Taken back from the destinations as it was reserved: floor(1275 × 400 / 1700) = 3.00.
    expect(await balances(p.seller)).toEqual([9.75]);
    controlled.mode = 'ok';
    const sent = refundsAtGateway().length;
    const again = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 4 }, key);
    expect([again.status, again.body.status]).toEqual([202, 'pending']);
    expect(refundsAtGateway()).toHaveLength(sent);

    // The processor made it after all; reconciliation finds it and records it on the charge and the sale.
    await controlled.completeHung();
    await svc.t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    const settled = await api.post(`/sale/${p.sale.id}/refund/`, { amount: 4 }, key);
    expect(settled.status, settled.text).toBe(200);
    expect(settled.body).toMatchObject({ status: 'partially_refunded', refunded: 4, refundable: 13 });
    expect(settled.body.sources.map((s: { refunded: number }) => s.refunded)).toEqual([0, 4, 0, 0]);
    expect((await api.get(`/sale/${p.charge1.id}/`)).body).toMatchObject({ status: 'refunded', refunded: 4 });
    expect(refundsAtGateway()).toHaveLength(sent);
    expect(await balances(p.seller)).toEqual([9.75]);
    await ledgerHolds();
  });
});
