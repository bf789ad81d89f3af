import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, inbox, member } from './dashboard';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { cancelToken, freshCard, payToken, priced } from './pay';

// The dashboard's Payments job (issue 47): one customer-facing reference on the paid screen,
// the receipt, the dashboard and the API; a payment found by email, reference, last four,
// amount, the two together, order id and token in both search boxes; its status in words;
// and a refund with a reason, stored, in the API's operation and its event, on both engines.

/** A Mastercard ending 4444 of this run's own (freshCard). */
const MASTERCARD = freshCard('5555', '4444');
const DECLINED = '4000 0000 0000 0002';

describe.each(ENGINES)('finding and refunding a payment on %s', (engine) => {
  let t: TestService;
  let shop: Client;
  let other: Client;
  let admin: Browser;
  /** Texts of this run: the PostgreSQL database is shared with earlier runs. */
  const run = randomUUID().slice(0, 8);
  const email = `ana.${run}@customer.example`;
  /** An amount no other payment of this run has: 37.xx, the cents from the run's id. */
  const amount = 37 + (parseInt(run.slice(0, 2), 16) % 100) / 100;
  const amountText = amount.toFixed(2);
  let paid: { transaction: any; sale: any };

  beforeAll(async () => {
    t = await startTestService(engine);
    shop = await t.newEnvironment('Find payments shop');
    other = await t.newEnvironment('Another shop');
    admin = (await member(t, shop, 'admin')).browser;
    const created = await shop.post('/transaction/', priced('EUR', amount, { order_id: `order-${run}`, customer_email: email }));
    expect(created.status).toBe(201);
    expect(await payToken(shop.url, created.body.token, MASTERCARD)).toBe(200);
    const sales = await shop.get(`/sale/?transaction_id=${created.body.id}`);
    paid = { transaction: (await shop.get(`/transaction/${created.body.id}/`)).body, sale: sales.body.results[0] };
    // Another environment's payment with the same card and amount is never found.
    const theirs = await other.post('/transaction/', priced('EUR', amount, { order_id: `order-${run}-theirs`, customer_email: email }));
    await payToken(other.url, theirs.body.token, MASTERCARD);
  });
  afterAll(() => t?.close());

  const list = async (q: string, extra = '') => {
    const page = await admin.get(`/dashboard/transactions/?q=${encodeURIComponent(q)}${extra}`);
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    return page.text;
  };
  /** The transactions a list page links to. */
  const listed = (html: string) => [...html.matchAll(/<tr data-payment="([^"]+)"/g)].map((m) => m[1]);
  const search = async (q: string) => admin.get(`/dashboard/search/?q=${encodeURIComponent(q)}`);
  const link = () => `/dashboard/transactions/${paid.transaction.id}/`;

  it('one reference: the API sale, the paid screen, the receipt email, the list and the payment page say the same', async () => {
    const { sale } = paid;
    const reference = `${sale.id.slice(-8, -4)}-${sale.id.slice(-4)}`.toUpperCase();
    expect(sale.reference).toBe(reference);
    expect(sale.card).toEqual({ brand: 'mastercard', last4: '4444' });
    const screen = await (await fetch(`${shop.url}/pay/${paid.transaction.token}/`)).text();
    expect(screen).toContain(reference);
    const [receipt] = await inbox(t, email);
    expect(receipt?.text).toContain(`Reference: ${reference}`);
    expect(receipt?.text).not.toContain(paid.transaction.id);
    expect(await list('')).toContain(reference);
    expect((await admin.get(link())).text).toContain(`<code data-testid="reference">${reference}</code>`);
  });

  it('the list box finds it by email, reference, last four, amount, last four with amount, order id and token; another environment never', async () => {
    const { sale, transaction } = paid;
    const queries = [email, email.toUpperCase(), `ana.${run}@`, sale.reference, sale.reference.toLowerCase(), `Reference ${sale.reference}`, '4444', amountText, `4444 ${amountText}`, `${amountText} 4444`, `order-${run}`, transaction.token];
    for (const q of queries) expect(listed(await list(q)), q).toEqual([transaction.id]);
    // Each word of a statement line must match: the right card with another amount is not it.
    expect(listed(await list(`4242 ${amountText}`))).toEqual([]);
    expect(listed(await list(`4444 ${(amount + 1).toFixed(2)}`))).toEqual([]);
  });

  it('the header search finds it the same ways; a token opens its page', async () => {
    const { sale, transaction } = paid;
    for (const q of [email, sale.reference, '4444', amountText, `4444 ${amountText}`, `order-${run}`]) {
      const page = await search(q);
      expect(page.status, q).toBe(200);
      expect(page.text, q).toContain(link());
      expect(page.text).not.toContain(`order-${run}-theirs`);
    }
    // The reference and the statement line find the card payment itself too.
    for (const q of [sale.reference, `4444 ${amountText}`]) expect((await search(q)).text).toMatch(new RegExp(`<section aria-labelledby="found-sales">[\\s\\S]*?${link()}`));
    const byToken = await search(transaction.token);
    expect([byToken.status, byToken.location]).toEqual([303, link()]);
  });

  it('a search with no match says so, not the first-run help; bad input is never a 500', async () => {
    const none = await list(`nobody-${run}@nowhere.example`);
    expect(none).toContain('No payment matches your search and filters.');
    expect(none).not.toContain('YOUR_SECRET_KEY');
    expect((await search(`nobody-${run}@nowhere.example`)).text).toContain('Nothing in this environment matches');
    for (const q of ['%', '_', '\\', "' or 1=1 --", 'ffff-ffff', '9999 99999999999999.99', 'a'.repeat(200), '4444 37.50 2026-02-30 x y']) {
      expect((await admin.get(`/dashboard/transactions/?q=${encodeURIComponent(q)}`)).status, q).toBe(200);
      expect((await search(q)).status, q).toBeLessThan(500);
    }
  });

  it('statuses in words: Paid, Incomplete, Failed, Cancelled, Partially refunded, Refunded', async () => {
    const words = async (order: string) => {
      const html = await list(order);
      return [...html.matchAll(/<td data-status="[^"]+">([^<]+)<\/td>/g)].map((m) => m[1]);
    };
    expect(await words(`order-${run}`)).toEqual(['Paid']);
    const waiting = await shop.post('/transaction/', priced('EUR', 5, { order_id: `waiting-${run}` }));
    expect(await words(`waiting-${run}`)).toEqual(['Incomplete']);
    const declined = await shop.post('/transaction/', priced('EUR', 5, { order_id: `declined-${run}` }));
    await payToken(shop.url, declined.body.token, DECLINED);
    expect(await words(`declined-${run}`)).toEqual(['Failed']);
    expect(await cancelToken(shop.url, waiting.body.token)).toBeLessThan(400);
    expect(await words(`waiting-${run}`)).toEqual(['Cancelled']);

    const refunded = await shop.post('/transaction/', priced('EUR', 8, { order_id: `refunded-${run}` }));
    await payToken(shop.url, refunded.body.token);
    const sale = (await shop.get(`/sale/?transaction_id=${refunded.body.id}`)).body.results[0];
    expect((await shop.post(`/sale/${sale.id}/refund/`, { amount: 3 })).status).toBe(200);
    expect(await words(`refunded-${run}`)).toEqual(['Partially refunded']);
    expect((await admin.get(`/dashboard/transactions/${refunded.body.id}/`)).text).toContain('<span data-status="partially_refunded">Partially refunded</span>');
    expect((await shop.post(`/sale/${sale.id}/refund/`, {})).status).toBe(200);
    expect(await words(`refunded-${run}`)).toEqual(['Refunded']);
  });

  it('the API refunds with a reason: stored, in the operation and in the sale.refunded event; a bad reason is a 400 naming the field', async () => {
    const created = await shop.post('/transaction/', priced('EUR', 30, { order_id: `api-reason-${run}` }));
    await payToken(shop.url, created.body.token);
    const sale = (await shop.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    for (const body of [{ amount: 1, reason: 'mistake' }, { reason: 7 }, { reason: null }, { amount: 1, reason: 'DUPLICATE' }]) {
      const bad = await shop.post(`/sale/${sale.id}/refund/`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.headers.get('content-type')).toContain('application/problem+json');
      expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('reason');
    }
    const refunded = await shop.post(`/sale/${sale.id}/refund/`, { amount: 10, reason: 'requested_by_customer' });
    expect(refunded.status).toBe(200);
    const op = refunded.body.operations.at(-1);
    expect(op).toMatchObject({ kind: 'refund', amount: 10, reason: 'requested_by_customer' });
    expect(refunded.body.operations[0].reason).toBeNull();
    const stored = await t.service.deps.database.db.selectFrom('sale_operations').select(['reason']).where('id', '=', op.id).executeTakeFirstOrThrow();
    expect(stored.reason).toBe('requested_by_customer');
    const events = await shop.get(`/event/?object_id=${sale.id}&type=sale.refunded`);
    expect(events.body.results[0].data.operations.at(-1)).toMatchObject({ id: op.id, reason: 'requested_by_customer' });
    // Without a reason: null, as before.
    const plain = await shop.post(`/sale/${sale.id}/refund/`, { amount: 1 });
    expect(plain.body.operations.at(-1)).toMatchObject({ kind: 'refund', reason: null });
  });

  it('the API captures and voids with a reason too: stored, in the operation and in the sale.captured / sale.voided event; a bad one is a 400', async () => {
    const created = await shop.post('/transaction/', priced('EUR', 30, { order_id: `api-hold-${run}`, authorize: true }));
    await payToken(shop.url, created.body.token);
    const sale = (await shop.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    expect(sale.status).toBe('held');
    for (const action of ['capture', 'void']) {
      const bad = await shop.post(`/sale/${sale.id}/${action}/`, { amount: 1, reason: 'mistake' });
      expect(bad.status, action).toBe(400);
      expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('reason');
    }
    const captured = await shop.post(`/sale/${sale.id}/capture/`, { amount: 10, reason: 'requested_by_customer' });
    expect(captured.status).toBe(200);
    const capture = captured.body.operations.at(-1);
    expect(capture).toMatchObject({ kind: 'capture', amount: 10, reason: 'requested_by_customer' });
    const voided = await shop.post(`/sale/${sale.id}/void/`, { reason: 'fraudulent' });
    expect(voided.status).toBe(200);
    const voidOp = voided.body.operations.at(-1);
    expect(voidOp).toMatchObject({ kind: 'void', amount: 20, reason: 'fraudulent' });
    const stored = await t.service.deps.database.db.selectFrom('sale_operations').select(['id', 'reason']).where('sale_id', '=', sale.id).execute();
    expect(stored.filter((o) => o.reason).sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      { id: capture.id, reason: 'requested_by_customer' },
      { id: voidOp.id, reason: 'fraudulent' },
    ]);
    for (const [type, op] of [['sale.captured', capture], ['sale.voided', voidOp]]) {
      const events = await shop.get(`/event/?object_id=${sale.id}&type=${type}`);
      expect(events.body.results[0].data.operations.at(-1), type).toMatchObject({ id: op.id, reason: op.reason });
    }
  });

  it('the dashboard captures and voids with an optional reason from their dialogs: confirmed, stored, shown in the history', async () => {
    const created = await shop.post('/transaction/', priced('EUR', 30, { order_id: `dash-hold-${run}`, authorize: true }));
    await payToken(shop.url, created.body.token);
    const sale = (await shop.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    const pageOf = (await admin.get(`/dashboard/transactions/${created.body.id}/`)).text;
    for (const action of ['capture', 'void']) {
      expect(pageOf).toMatch(new RegExp(`<dialog id="${action}-dialog".*?<label for="dialog-${action}-reason">Reason \\(optional\\)</label><select id="dialog-${action}-reason" name="reason"><option value>No reason given</option>.*?<option value="duplicate">Duplicate payment</option>.*?</dialog>`));
    }
    const bad = await admin.post(`/dashboard/sales/${sale.id}/capture/`, { amount: '5.00', reason: 'mistake' });
    expect([bad.status, bad.text.includes('Choose one of the reasons in the list, or none.')]).toEqual([400, true]);
    const act = async (action: string, amount: string, reason: string) => {
      const confirm = await admin.post(`/dashboard/sales/${sale.id}/${action}/`, { amount, reason });
      expect(confirm.status).toBe(200);
      const key = /name="idempotency_key" value="([^"]+)"/.exec(confirm.text)![1]!;
      expect((await admin.post(`/dashboard/sales/${sale.id}/${action}/`, { amount, reason, idempotency_key: key })).status).toBe(303);
      return confirm.text;
    };
    expect(await act('capture', '10.00', 'other')).toContain('Reason: Other.');
    // No reason is none: the confirmation says nothing of one, the operation keeps null.
    expect(await act('void', '20.00', '')).not.toContain('Reason:');
    const after = (await shop.get(`/sale/${sale.id}/`)).body;
    expect(after.operations.slice(-2)).toMatchObject([
      { kind: 'capture', amount: 10, reason: 'other' },
      { kind: 'void', amount: 20, reason: null },
    ]);
    expect((await admin.get(`/dashboard/transactions/${created.body.id}/`)).text).toContain('Captured €10.00 (Other)');
  });

  it('the dashboard refunds part with a reason in its dialog or own step: amount not prefilled, confirmed, then Partially refunded', async () => {
    const created = await shop.post('/transaction/', priced('EUR', 40, { order_id: `dash-reason-${run}`, customer_email: email }));
    await payToken(shop.url, created.body.token);
    const sale = (await shop.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    const pageOf = await admin.get(`/dashboard/transactions/${created.body.id}/`);
    // The summary's Refund… opens a dialog with the step's form (amount empty, the reasons); the sale's block links the step's own page.
    // Opened modal by an invoker command, as a popover where those are not known.
    expect(pageOf.text).toContain(
      '<button type="button" class="primary action-open" commandfor="refund-dialog" command="show-modal" popovertarget="refund-dialog">Refund…</button><dialog id="refund-dialog" popover="auto" closedby="any"',
    );
    expect(pageOf.text).toMatch(new RegExp(`<dialog id="refund-dialog"[^>]*>.*?<form method="post" action="/dashboard/sales/${sale.id}/refund/".*?<input id="dialog-refund-amount" name="amount"[^>]* value aria-describedby.*?<option value="fraudulent">Fraudulent</option>.*?</dialog>`));
    expect(pageOf.text).toContain(`<form method="get" action="/dashboard/sales/${sale.id}/refund/" class="row-actions"><button type="submit">Refund…</button>`);
    const step = await admin.get(`/dashboard/sales/${sale.id}/refund/`);
    expect(step.status).toBe(200);
    // Not prefilled with everything: the merchant types how much.
    expect(step.text).toMatch(/<input id="refund-amount" name="amount"[^>]* value aria-describedby="refund-amount-hint"/);
    expect(step.text).not.toMatch(/id="refund-amount"[^>]*value="\d/);
    expect(step.text).toContain('<option value="fraudulent">Fraudulent</option>');
    // A bad reason or amount: the step again, saying why, nothing refunded.
    const badReason = await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '5.00', reason: 'mistake' });
    expect([badReason.status, badReason.text.includes('Choose a reason for the refund.')]).toEqual([400, true]);
    const badAmount = await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '40.01', reason: 'duplicate' });
    expect([badAmount.status, badAmount.text.includes('at most €40.00')]).toEqual([400, true]);
    // Too many decimals says so, rather than a range 5.001 is inside; what was typed stays.
    const decimals = await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '5.001', reason: 'duplicate' });
    expect(decimals.status).toBe(400);
    expect(decimals.text).toContain('Too many decimals for EUR: write the amount like 40.00.');
    expect(decimals.text).toMatch(/<input id="refund-amount" name="amount"[^>]* value="5.001"/);
    const confirm = await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '12.50', reason: 'duplicate' });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Reason: Duplicate payment.');
    const key = /name="idempotency_key" value="([^"]+)"/.exec(confirm.text)![1]!;
    const done = await admin.post(`/dashboard/sales/${sale.id}/refund/`, { amount: '12.50', reason: 'duplicate', idempotency_key: key });
    expect(done.status).toBe(303);
    const after = (await shop.get(`/sale/${sale.id}/`)).body;
    expect(after.operations.at(-1)).toMatchObject({ kind: 'refund', amount: 12.5, reason: 'duplicate' });
    expect(after.status).toBe('partially_refunded');
    expect((await admin.get(`/dashboard/transactions/${created.body.id}/`)).text).toContain('Refunded €12.50 (Duplicate payment)');
    expect(await list(`dash-reason-${run}`)).toContain('Partially refunded');
  });

  it('hides the demo shop’s and trigger’s payments unless asked; a viewer gets no Refund', async () => {
    await shop.post('/transaction/', priced('EUR', 1, { order_id: `demo-${run}` }));
    await shop.post('/transaction/', priced('EUR', 1, { order_id: `trigger-${run}` }));
    const hidden = await list(run);
    expect(hidden).not.toContain(`demo-${run}`);
    expect(hidden).not.toContain(`trigger-${run}`);
    expect(hidden).toContain(`order-${run}`);
    const shown = await list(run, '&all=1');
    expect(shown).toContain(`demo-${run}`);
    expect(shown).toContain(`trigger-${run}`);
    expect(shown).toMatch(/<input id="f-all" name="all" type="checkbox" value="1" checked/);
    const viewer = (await member(t, shop, 'viewer')).browser;
    expect((await viewer.get(link())).text).not.toContain('/refund/');
    expect((await viewer.get(`/dashboard/sales/${paid.sale.id}/refund/`)).status).toBe(403);
    // Another environment's sale: as if it did not exist.
    const theirs = (await other.get('/sale/')).body.results[0];
    expect((await admin.get(`/dashboard/sales/${theirs.id}/refund/`)).status).toBe(404);
  });
});
