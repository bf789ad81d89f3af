import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../server/payments/gateway';
import { type PayoutGateway, sandboxPayouts } from '../../server/payments/payout-gateway';
import { createGateways } from '../../server/payments/registry';
import { createSandboxCard, sandboxGateways } from '../../server/payments/sandbox';
import { setPricing } from '../../server/store/balance';
import { createEnvironment } from '../../server/store/environments';
import { createTransaction } from '../../server/transactions/create';
import { member } from './dashboard';
import { freshDatabase } from './database';
import { IBANS } from './documents';
import { Client, ENGINES, problemPaths, startTestService, type TestService, transactionBody } from './harness';
import { compliantClient, createWallet } from './ledger';
import { checkoutPost, payWithCard, priced, SANDBOX_CARD } from './pay';

// Issue 44: sandbox and live never cross (docs/api.md#sandbox-and-live). A sandbox is
// offered no real gateway and pays out through the sandbox provider even when a real one
// is configured; a live environment is offered no sandbox gateway, and with no real
// gateway for a currency or no real payout provider it refuses rather than pretends.

const REAL_ID = '0190f5a0-0000-7000-8000-0000000000aa';
/** A real card (not one of the sandbox's published numbers): the stand-in acquirer approves it. */
const REAL_CARD = '5555 5555 5555 4444';

/** A processor for real money: the sandbox card's behaviour, counted, not a sandbox. */
function acquirer(currencies: string[] | null): Gateway & { calls: number } {
  const inner = createSandboxCard();
  const counted = { ...inner, id: REAL_ID, code: 'acquirer', name: 'Acquirer', sandbox: false, currencies, calls: 0 };
  counted.pay = (input) => (counted.calls++, inner.pay(input));
  counted.store = (input) => (counted.calls++, inner.store!(input));
  return counted;
}

/** A payout provider for real money (no `sandbox`): it keeps the references it was asked to pay. */
function realBank(): PayoutGateway & { references: string[] } {
  const inner = sandboxPayouts();
  const bank = { code: 'real-bank', references: [] as string[], payout: (r: Parameters<PayoutGateway['payout']>[0]) => (bank.references.push(r.reference), inner.payout(r)) };
  return bank;
}

async function liveEnvironment(t: TestService, name: string): Promise<Client> {
  return new Client(t.url, await createEnvironment(t.service.deps.database.db, { name, mode: 'live', now: t.service.deps.now() }));
}

/** A live sale of `price` paid on the page with a real card through the acquirer, its whole amount to `wallet` when given. */
async function paidLive(t: TestService, api: Client, currency: string, price: number, wallet?: string) {
  const created = await api.post('/transaction/', priced(currency, price, wallet ? { destination: [{ wallet_id: wallet, amount: price }] } : {}));
  expect(created.status, created.text).toBe(201);
  expect((await payWithCard(t.url, created.body.token, REAL_CARD, REAL_ID)).status).toBe(200);
}

/** A transaction made straight in the store, as one made before its currency lost its gateway. */
const olderLink = (t: TestService, api: Client, over: Record<string, unknown>) =>
  createTransaction(t.service.deps.database.db, api.keys.environment_id, { ...transactionBody(over), gateway_selected: false, authorize: false }, t.service.deps.now());

const stateGateways = (html: string) => {
  const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!;
  return (JSON.parse(state) as { view: { gateways: { id: string }[] } }).view.gateways.map((g) => g.id);
};

describe.each(ENGINES)('sandbox and live never cross, on %s', (engine) => {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  /** A real gateway and a real payout provider configured. */
  let full: TestService;
  /** A real gateway for USD only, and no real payout provider. */
  let bare: TestService;
  const real = acquirer(null);
  const bank = realBank();

  beforeAll(async () => {
    if (engine === 'postgres') database = await freshDatabase();
    const env: Record<string, string> = database ? { DATABASE_URL: database.url } : {};
    full = await startTestService(engine, { gateways: createGateways([...sandboxGateways(), real]), payouts: bank, env });
    bare = await startTestService(engine, { gateways: createGateways([...sandboxGateways(), acquirer(['USD'])]), env });
  });
  afterAll(async () => {
    await full?.close();
    await bare?.close();
    await database?.drop();
  });

  it('offers a sandbox no real gateway: not listed, not on the page, not taken by the API or the page', async () => {
    const sandbox = await full.newEnvironment('Sandbox shop');
    const listed = (await sandbox.get('/gateway/')).body.results.map((g: { id: string }) => g.id);
    expect(listed).toContain(SANDBOX_CARD);
    expect(listed).not.toContain(REAL_ID);
    expect((await sandbox.get(`/gateway/${REAL_ID}/`)).status).toBe(404);
    const stored = await sandbox.post('/authorization/', { gateway: REAL_ID, card: { number: REAL_CARD, expiry: '12/34', cvc: '123', name: 'Ada' } });
    expect(stored.status, stored.text).toBe(400);
    expect(problemPaths(stored)).toEqual(['gateway']);
    const tx = (await sandbox.post('/transaction/', transactionBody())).body as { id: string; token: string };
    expect(stateGateways(await (await fetch(`${full.url}/pay/${tx.token}/`)).text())).not.toContain(REAL_ID);
    const before = real.calls;
    const paid = await payWithCard(full.url, tx.token, REAL_CARD, REAL_ID);
    expect(paid.status).toBe(400);
    expect(real.calls).toBe(before);
    expect((await sandbox.get(`/transaction/${tx.id}/`)).body.status).toBe('N');
    expect((await sandbox.get(`/sale/?transaction_id=${tx.id}`)).body.count).toBe(0);
  });

  it("pays a sandbox wallet's payout through the sandbox provider, a live one's through the real one", async () => {
    for (const [api, fund] of [
      [await full.newEnvironment('Sandbox payouts'), (a: Client, w: string) => payInto(full, a, w, false)],
      [await liveEnvironment(full, 'Live payouts'), (a: Client, w: string) => payInto(full, a, w, true)],
    ] as const) {
      const client = await compliantClient(full, api, IBANS.ES);
      const wallet = await createWallet(api, { client_id: client.id });
      await fund(api, wallet.id);
      const payout = await api.post('/transfer/', { source_wallet: wallet.id, destination_iban: client.iban, amount: 4 });
      expect(payout.status, payout.text).toBe(201);
      await full.service.jobs.runOnce('payouts');
      expect((await api.get(`/transfer/${payout.body.id}/`)).body.status).toBe('paid');
      expect(bank.references.includes(payout.body.id)).toBe(payout.body.livemode);
    }
  });

  it('refuses a live transaction no gateway can pay (409 naming the currency); one paid from a source is not refused for that', async () => {
    const live = await liveEnvironment(bare, 'Live without EUR');
    const refused = await live.post('/transaction/', transactionBody({ currency: 'EUR' }));
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.detail).toContain('no payment method accepts EUR');
    expect(problemPaths(refused)).toEqual(['currency']);
    expect((await live.get('/transaction/')).body.count).toBe(0);
    expect((await live.post('/transaction/', transactionBody({ currency: 'USD' }))).status).toBe(201);
    // A source pays at creation: an empty wallet declines it (402), never the 409 of the page.
    const wallet = await createWallet(live, { currency: 'EUR' });
    const fromWallet = await live.post('/transaction/', transactionBody({ currency: 'EUR', source: [{ wallet_id: wallet.id, amount: 17 }] }));
    expect(fromWallet.status, fromWallet.text).not.toBe(409);
    // A sign-up through the hosted page is not refused for it either.
    expect((await live.post('/authorization/', { gateway: REAL_ID })).status).not.toBe(409);
  });

  it('shows a customer holding an older link "This shop cannot take payments right now" with the way back', async () => {
    const live = await liveEnvironment(bare, 'Live old link');
    const { row } = await olderLink(bare, live, { currency: 'EUR', cancel_url: 'https://shop.example/basket' });
    const page = await fetch(`${bare.url}/pay/${row.token}/`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('This shop cannot take payments right now');
    expect(html).toContain('href="https://shop.example/basket"');
    expect(html).not.toContain('checkout-state');
    expect(html).not.toContain('name="gateway"');
    expect(await (await fetch(`${bare.url}/pay/${row.token}/?lang=es`)).text()).toContain('Esta tienda no puede aceptar pagos en este momento');
    // In the widget, the merchant's page hears why.
    const framed = await (await fetch(`${bare.url}/pay/${row.token}/?embed=1&origin=${encodeURIComponent('https://shop.example')}`)).text();
    expect(framed).toContain('"code":"no_payment_method"');
    // Nothing can be paid there.
    const pay = await fetch(`${bare.url}/pay/${row.token}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'pay', gateway: REAL_ID }) });
    expect(pay.status).toBeGreaterThanOrEqual(400);
    expect((await live.get(`/transaction/${row.id}/`)).body.status).toBe('N');
  });

  it('a sign-up page no method of the mode can store a card for says so too, and takes nothing', async () => {
    const live = await liveEnvironment(bare, 'Live sign-up without EUR');
    const plan = await live.post('/plan/', { name: 'Beans', amount: 9.5, currency: 'EUR', interval: 'month' });
    const sub = await live.post('/subscription/', { plan: plan.body.id, cancel_url: 'https://shop.example/plans' });
    expect(sub.status, sub.text).toBe(201);
    const html = await (await fetch(sub.body.payment_url)).text();
    expect(html).toContain('This shop cannot take payments right now');
    expect(html).toContain('href="https://shop.example/plans"');
    expect(html).not.toContain('checkout-state');
    const framed = await (await fetch(`${sub.body.payment_url}?embed=1&origin=${encodeURIComponent('https://shop.example')}`)).text();
    expect(framed).toContain('"code":"no_payment_method"');
    expect((await live.get(`/subscription/${sub.body.id}/`)).body.status).toBe('waiting');
  });

  it('refuses live payouts with no real payout provider (409), skips the scheduled ones and says so under Needs attention', async () => {
    const live = await liveEnvironment(bare, 'Live no payouts');
    const db = bare.service.deps.database.db;
    await setPricing(db, live.keys.environment_id, { charge: { percentE2: 0n, fixed: 0n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 0 }, bare.service.deps.now());
    const client = await compliantClient(bare, live, IBANS.ES);
    const wallet = await createWallet(live, { client_id: client.id, currency: 'USD' });
    await paidLive(bare, live, 'USD', 30, wallet.id);
    const toIban = await live.post('/transfer/', { source_wallet: wallet.id, destination_iban: client.iban, amount: 4 });
    expect(toIban.status, toIban.text).toBe(409);
    expect(toIban.body.detail).toContain('No payout provider for real money');
    expect((await live.get('/transfer/')).body.count).toBe(0);

    await paidLive(bare, live, 'USD', 20);
    await bare.service.jobs.runOnce('balance');
    expect((await live.get('/balance/')).body.available).toEqual([{ currency: 'USD', amount: 20 }]);
    expect((await live.patch('/payout_settings/', { iban: IBANS.ES })).status).toBe(200);
    const manual = await live.post('/merchant_payout/', { currency: 'USD' });
    expect(manual.status, manual.text).toBe(409);
    expect(manual.body.detail).toContain('No payout provider for real money');
    expect((await live.patch('/payout_settings/', { schedule: 'daily' })).status).toBe(200);
    await bare.service.jobs.runOnce('merchant-payouts');
    expect((await live.get('/merchant_payout/')).body.count).toBe(0);
    expect((await live.get('/balance/')).body.available).toEqual([{ currency: 'USD', amount: 20 }]);

    // An older EUR link no gateway takes, and the paused schedule: both under Needs attention.
    await olderLink(bare, live, { currency: 'EUR' });
    const { browser } = await member(bare, live, 'viewer');
    const overview = (await browser.get('/dashboard/')).text;
    expect(overview).toContain('No payment method accepts EUR');
    expect(overview).not.toContain('No payment method accepts USD');
    expect(overview).toContain('Scheduled payouts are paused');
    expect(overview).not.toContain('Nothing needs your attention');
  });
});

/** Pays a transaction whose whole amount goes to `wallet`: with the test card in a sandbox, a real card through the acquirer live. */
async function payInto(t: TestService, api: Client, wallet: string, live: boolean) {
  if (live) return paidLive(t, api, 'EUR', 10, wallet);
  const created = await api.post('/transaction/', priced('EUR', 10, { destination: [{ wallet_id: wallet, amount: 10 }] }));
  expect((await checkoutPost(t.url, created.body.token, { action: 'pay', gateway: SANDBOX_CARD, fields: { card_number: '4242 4242 4242 4242', card_expiry: '12/34', card_cvc: '123', card_name: 'A' } })).status).toBe(200);
}
