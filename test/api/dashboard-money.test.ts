import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { paidTransaction, priced } from './pay';

// Transactions and sales in the dashboard: the list and its filters, a transaction with
// its sale, and capture / refund / void through the API's use case, confirmed once.

describe.each(ENGINES)('dashboard money on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let other: Client;
  let admin: Browser;

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Shop');
    other = await t.newEnvironment('Other shop');
    admin = (await member(t, shop, 'admin')).browser;
  });
  afterAll(() => t?.close());

  const keyOf = (page: { text: string }) => /name="idempotency_key" value="([^"]+)"/.exec(page.text)?.[1];

  it('lists transactions with filters and pages; an empty list shows the first request with the public key', async () => {
    const empty = await admin.get('/dashboard/transactions/');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain(`AppKeys ${shop.keys.public_key}:YOUR_SECRET_KEY`);
    // A filter that finds nothing says so, not the first-run help.
    const none = await admin.get('/dashboard/transactions/?order_id=nothing-like-this');
    expect(none.text).toContain('No payment matches your search and filters.');
    expect(none.text).not.toContain('YOUR_SECRET_KEY');
    const a = (await shop.post('/transaction/', priced('EUR', 10, { order_id: 'dash-a' }))).body;
    await shop.post('/transaction/', priced('USD', 5, { order_id: 'dash-b' }));
    await other.post('/transaction/', priced('EUR', 7, { order_id: 'dash-other' }));
    const all = await admin.get('/dashboard/transactions/');
    expect(all.text).toContain('dash-a');
    expect(all.text).toContain('dash-b');
    expect(all.text).not.toContain('dash-other');
    const eur = await admin.get('/dashboard/transactions/?currency=eur');
    expect(eur.text).toContain('dash-a');
    expect(eur.text).not.toContain('dash-b');
    expect((await admin.get('/dashboard/transactions/?status=paid')).text).not.toContain('dash-a');
    expect((await admin.get('/dashboard/transactions/?order_id=dash-b')).text).not.toContain('dash-a');
    // Nonsense filters are ignored, never a 500.
    expect((await admin.get('/dashboard/transactions/?status=Z&page=-4&currency=%00')).status).toBe(200);
    const detail = await admin.get(`/dashboard/transactions/${a.id}/`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('€10.00');
    expect(detail.text).toContain('No sale yet');
  });

  it('refunds half a sale after a confirmation; the API sees it; a double-submitted confirmation refunds once', async () => {
    const { transaction, sale } = await paidTransaction(shop, priced('EUR', 20, { order_id: 'dash-refund' }));
    const detail = await admin.get(`/dashboard/transactions/${transaction.id}/`);
    expect(detail.text).toContain('•••• 4242');
    // Refund is a step of its own, its amount not filled in (test/api/dashboard-find-payment.test.ts).
    expect(detail.text).toContain(`<form method="get" action="/dashboard/sales/${sale.id}/refund/"`);
    const confirm = await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '10.00' });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Refund €10.00 on');
    expect(confirm.text).toContain('In the environment Shop (sandbox).');
    expect(confirm.text).toContain('4242');
    // Asking is not doing.
    expect((await shop.get(`/sale/${sale.id}/`)).body.refunded).toBe(0);
    const key = keyOf(confirm)!;
    const [first, second] = await Promise.all([
      admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '10.00', idempotency_key: key }),
      admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '10.00', idempotency_key: key }),
    ]);
    // The second waits for the first and shows its result: both land on the same page.
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.location).toBe(first.location);
    const third = await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '10.00', idempotency_key: key });
    expect(third.status).toBe(303);
    expect(third.location).toBe(`/dashboard/transactions/${transaction.id}/?done=refund&amount=1000`);
    const api = (await shop.get(`/sale/${sale.id}/`)).body;
    expect(api.refunded).toBe(10);
    expect(api.operations.filter((o: { kind: string }) => o.kind === 'refund')).toHaveLength(1);
    const after = await admin.get(third.location!);
    expect(after.text).toContain('Done: Refund of €10.00');
    expect(after.text).toMatch(/data-testid="refunded">€10.00/);
    // More than what is left is refused before anything is asked.
    expect((await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '10.01' })).status).toBe(400);
    expect((await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '1.001' })).status).toBe(400);
    expect((await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '0' })).status).toBe(400);
    expect((await shop.get(`/sale/${sale.id}/`)).body.refunded).toBe(10);
    const log = (await (await member(t, shop, 'owner')).browser.get('/dashboard/audit/')).text;
    expect(log).toContain(`Refunded €10.00 of sale ${sale.id}`);
  });

  it('captures and voids a held sale with the same use case', async () => {
    const { transaction, sale } = await paidTransaction(shop, priced('EUR', 30, { authorize: true }));
    const page = await admin.get(`/dashboard/transactions/${transaction.id}/`);
    expect(page.text).toContain(`/dashboard/sales/${sale.id}/capture/`);
    expect(page.text).not.toContain(`/dashboard/sales/${sale.id}/refund/`);
    // The summary's Capture… and Void…: each a button opening its dialog, whose form takes the held amount to the confirmation.
    for (const action of ['capture', 'void']) {
      expect(page.text).toContain(`popovertarget="${action}-dialog"`);
      expect(page.text).toMatch(new RegExp(`<dialog id="${action}-dialog" popover="auto" closedby="any" class="action-dialog" aria-labelledby="${action}-dialog-title">.*?<form method="post" action="/dashboard/sales/${sale.id}/${action}/".*?name="amount"[^>]*value="30.00"`));
    }
    expect(page.text).not.toContain('refund-dialog');
    const confirm = await admin.post(`/dashboard/sales/${sale.id}/capture/`, { amount: '12' });
    expect((await admin.post(`/dashboard/sales/${sale.id}/capture/`, { amount: '12', idempotency_key: keyOf(confirm)! })).status).toBe(303);
    const voidAsk = await admin.post(`/dashboard/sales/${sale.id}/void/`, { amount: '18.00' });
    expect((await admin.post(`/dashboard/sales/${sale.id}/void/`, { amount: '18.00', idempotency_key: keyOf(voidAsk)! })).status).toBe(303);
    expect((await shop.get(`/sale/${sale.id}/`)).body).toMatchObject({ captured: 12, voided: 18, held: 0 });
  });

  it('a viewer sees no action and a direct POST is 403; another environment\'s sale and transaction are 404', async () => {
    const { transaction, sale } = await paidTransaction(shop, priced('EUR', 8));
    const { browser: viewer } = await member(t, shop, 'viewer');
    const page = await viewer.get(`/dashboard/transactions/${transaction.id}/`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('/refund/');
    expect(page.text).not.toContain('<dialog');
    expect((await viewer.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '8.00' })).status).toBe(403);
    expect((await viewer.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '8.00', idempotency_key: 'k'.repeat(43) })).status).toBe(403);
    expect((await shop.get(`/sale/${sale.id}/`)).body.refunded).toBe(0);

    const stranger = (await member(t, other, 'admin')).browser;
    expect((await stranger.get(`/dashboard/transactions/${transaction.id}/`)).status).toBe(404);
    const ask = await stranger.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '8.00' });
    expect(ask.status).toBe(404);
    expect((await stranger.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '8.00', idempotency_key: 'k'.repeat(43) })).status).toBe(404);
    expect((await stranger.get('/dashboard/transactions/')).text).not.toContain(transaction.id);
    expect((await shop.get(`/sale/${sale.id}/`)).body.refunded).toBe(0);
  });
});
