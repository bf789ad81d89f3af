import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { createWallet, fund } from './ledger';

// Wallets in the dashboard, read-only: the list with balances, and a wallet with its
// entries and the transfers it sent, the same as the API shows; another environment's is 404.

describe.each(ENGINES)('dashboard wallets on %s', (engine) => {
  let t: TestService;
  let shop: Client;

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Wallet shop');
  });
  afterAll(() => t?.close());

  it('lists wallets with their balances; a wallet shows its entries and transfers; a viewer reads, a stranger gets 404', async () => {
    const seller = await createWallet(shop, { wallet_id: 'seller-one', name: 'Ada Seller' });
    const buyer = await createWallet(shop, { wallet_id: 'seller-two', name: 'Bob Seller' });
    await fund(shop, seller, 12.5);
    const api = (await shop.get(`/wallet/${seller.id}/`)).body;
    expect(api.balance).toBe(12.5);
    const { browser: viewer } = await member(t, shop, 'viewer');
    const list = await viewer.get('/dashboard/wallets/');
    expect(list.status).toBe(200);
    expect(list.text).toContain('Ada Seller · seller-one');
    expect(list.text).toContain('€12.50');
    expect(list.text).toContain(`/dashboard/wallets/${buyer.id}/`);

    const page = await viewer.get(`/dashboard/wallets/${seller.id}/`);
    expect(page.status).toBe(200);
    const entries = (await shop.get(`/wallet/${seller.id}/entry/`)).body.results as { id: string }[];
    expect(entries.length).toBeGreaterThan(0);
    expect(page.text).toContain('€12.50');
    expect(page.text).toContain('This wallet has sent nothing.');

    const { browser: stranger } = await member(t, await t.newEnvironment('Stranger'), 'owner');
    expect((await stranger.get(`/dashboard/wallets/${seller.id}/`)).status).toBe(404);
    expect((await stranger.get('/dashboard/wallets/')).text).not.toContain('seller-one');
    expect((await viewer.get('/dashboard/wallets/not-an-id/')).status).toBe(404);
  });
});
