import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { CONTROLLED_ID, type ControlledGateway, withControlled } from './gateways';
import { type Client, ENGINES, type TestService } from './harness';
import { checkLedger, createWallet } from './ledger';
import { startIsolatedService } from './database';
import { payWithCard, priced } from './pay';

// A refund the gateway refuses after its take-back was covered by the platform: the
// reversing movement gives the wallet back what it gave and takes the receivable away.

describe.each(ENGINES)('a refused refund of a spent share, on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let gw: ControlledGateway;

  beforeAll(async () => {
    const g = withControlled();
    gw = g.controlled;
    t = await startIsolatedService(engine, { gateways: g.gateways });
    api = await t.newEnvironment('Marketplace');
  });
  afterAll(() => t?.close());

  it('undoes the receivable with the rest of the take-back', async () => {
    const [seller, elsewhere] = [await createWallet(api), await createWallet(api)];
    const tx = await api.post('/transaction/', priced('EUR', 10, { destination: [{ wallet_id: seller.id, amount: 10 }] }));
    expect((await payWithCard(t.url, tx.body.token, TEST_CARDS.approved, CONTROLLED_ID)).status).toBe(200);
    const [sale] = (await api.get(`/sale/?transaction_id=${tx.body.id}`)).body.results;
    expect((await api.post('/transfer/', { source_wallet: seller.id, destination_wallet: elsewhere.id, amount: 7 })).status).toBe(201);

    gw.mode = 'decline';
    const refused = await api.post(`/sale/${sale.id}/refund/`, { amount: 5 });
    gw.mode = 'ok';
    expect(refused.status, refused.text).toBe(502);
    // It gave 3.00 and was owed 2.00 while the refund was reserved; both are back as they were.
    expect((await api.get(`/wallet/${seller.id}/`)).body).toMatchObject({ balance: 3, receivable: 0 });
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ refunded: 0, refundable: 10 });
    await checkLedger(t.service.deps.database.db, api.keys.environment_id);
  });
});
