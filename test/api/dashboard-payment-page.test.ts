import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { auditOf } from '../../server/store/audit';
import { mailsOf } from '../../server/store/mails';
import { type Browser, inbox, member } from './dashboard';
import { type Client, ENGINES, type TestService, testClock } from './harness';
import { paidTransaction, payWithCard, priced } from './pay';
import type { Receiver } from './receiver';
import { startWebhookService } from './webhook-service';
import { JOB_NAMES } from '../../server/jobs';

// A payment's page (issue 47) over real HTTP on both engines: the 3-D Secure result in
// words, the timeline (creation, payment, refund with its reason, each event with its
// webhook delivery's HTTP status, a dispute's events, the receipt email) oldest first in the shop's time, and
// "Resend receipt": admins only, CSRF-checked, audited, queued in the mail outbox (the mail
// job sends it), at most once a minute per payment, refused for a payment not paid or
// without a customer email.

const timelineOf = (html: string) => /<h2>Timeline<\/h2><ol class="history">([\s\S]*?)<\/ol>/.exec(html)?.[1] ?? '';
const dd = (html: string, testId: string) => new RegExp(`<dd data-testid="${testId}">([^<]*)</dd>`).exec(html)?.[1];

describe.each(ENGINES)('a payment’s page on %s', (engine) => {
  const clock = testClock();
  let t: TestService;
  let hook: Receiver;
  let close: () => Promise<void>;
  let shop: Client;
  let admin: Browser;
  let viewer: Browser;
  let stranger: Browser;
  const email = `paypage.${Date.now().toString(36)}@customer.example`;
  let txId = '';

  beforeAll(async () => {
    ({ t, hook, close } = await startWebhookService(engine, { now: clock.now, env: { SANDBOX_DISPUTE_DELAY_MS: '0' } }));
    shop = await t.newEnvironment('Payment page shop');
    admin = (await member(t, shop, 'admin')).browser;
    viewer = (await member(t, shop, 'viewer')).browser;
    stranger = (await member(t, await t.newEnvironment('Other shop'), 'owner')).browser;
    const created = await shop.post('/transaction/', priced('EUR', 40, { customer_email: email, notify_url: hook.url }));
    expect(created.status).toBe(201);
    txId = created.body.id;
    expect((await payWithCard(t.url, created.body.token, TEST_CARDS.frictionless)).status).toBe(200);
    const sale = (await shop.get(`/sale/?transaction_id=${txId}`)).body.results[0];
    expect(sale.authentication).toEqual({ status: 'authenticated', method: 'frictionless' });
    // The webhooks delivered (the receiver answers 500 once, then 200) and the receipt sent
    // before the refund: the mail job sends a round's emails at once, so two emails of one
    // round have no order of their own.
    hook.script(500);
    await t.service.jobs.runAll();
    expect((await shop.post(`/sale/${sale.id}/refund/`, { amount: 10, reason: 'requested_by_customer' })).status).toBe(200);
    clock.advance(10 * 60_000);
    await t.service.jobs.runAll();
  });
  afterAll(() => close?.());

  const receipts = async (id: string) => (await mailsOf(t.service.deps.database.db, id)).filter((m) => m.kind === 'payment_receipt');
  const audits = async () => (await auditOf(t.service.deps.database.db, shop.keys.environment_id, { limit: 1000, offset: 0 })).filter((a) => a.action === 'receipt_resent');

  it('shows the 3-D Secure result and a timeline of everything, oldest first, with each webhook’s HTTP status', async () => {
    const page = await viewer.get(`/dashboard/transactions/${txId}/`);
    expect(page.status).toBe(200);
    expect(dd(page.text, 'authentication')).toBe('Authenticated (frictionless)');
    expect(dd(page.text, 'receipt')).toMatch(/^Sent to paypage\.\w+@customer\.example on /);
    const timeline = timelineOf(page.text);
    const events = (await shop.get(`/event/?object_id=${txId}`)).body.results as { id: string; type: string }[];
    const paid = events.find((e) => e.type === 'transaction.paid')!;
    expect(timeline).toContain(`<a href="/dashboard/events/${paid.id}/">Payment succeeded: €40.00 <code class="event-type">transaction.paid</code></a>`);
    // Its notify_url answered 500, then 200 on the retry: the last answer is shown.
    expect(timeline).toContain('Webhook to the payment’s notify_url: Delivered, HTTP 200');
    // In the order it happened: the receipt the mail job sent before the refund, the refund receipt after its event.
    const steps = ['Created, waiting for payment', 'Payment approved', 'transaction.paid', 'Receipt emailed to the customer', 'Refunded €10.00 (Requested by the customer)', 'sale.refunded', 'Refund receipt emailed to the customer'];
    const at = steps.map((s) => timeline.indexOf(s));
    expect(at.every((i) => i >= 0), timeline).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // Each line at its time in the shop's zone (UTC here), with the instant for machines.
    expect(timeline).toMatch(/<li><time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">\w{3} \d{1,2}, \d{4}, [^<]+<\/time>: Created, waiting for payment<\/li>/);
    // A viewer sees the receipt line but not the button.
    expect(page.text).not.toContain('Resend receipt');
    expect((await admin.get(`/dashboard/transactions/${txId}/`)).text).toContain(`action="/dashboard/transactions/${txId}/receipt/"`);
  });

  it('a webhook whose last attempt got no answer says why on the timeline, not its state alone', async () => {
    const refused = await shop.post('/transaction/', priced('EUR', 5, { notify_url: 'http://127.0.0.1:9/hook' }));
    expect((await payWithCard(t.url, refused.body.token, TEST_CARDS.frictionless)).status).toBe(200);
    await t.service.jobs.runOnce(JOB_NAMES.delivery);
    const timeline = timelineOf((await viewer.get(`/dashboard/transactions/${refused.body.id}/`)).text);
    expect(timeline).toMatch(/Webhook to the payment’s notify_url: [^<,]+, no answer \([^)<]*ECONNREFUSED[^<]*\)/);
  });

  it('resends the receipt through the outbox, audited, once a minute at most; viewers, strangers and forged posts cannot', async () => {
    const path = `/dashboard/transactions/${txId}/receipt/`;
    const before = (await receipts(txId)).length;
    expect(before).toBe(1);
    await viewer.get(`/dashboard/transactions/${txId}/`);
    expect((await viewer.post(path, {})).status).toBe(403);
    expect((await stranger.post(path, {})).status).toBe(404);
    await admin.get(`/dashboard/transactions/${txId}/`);
    expect((await admin.post(path, {}, { csrf: null })).status).toBe(403);
    expect((await admin.post(path, {}, { csrf: 'forged' })).status).toBe(403);
    expect(await receipts(txId)).toHaveLength(before);
    expect(await audits()).toHaveLength(0);

    const sent = await admin.post(path, {});
    expect(sent.status).toBe(303);
    expect(sent.location).toBe(`/dashboard/transactions/${txId}/?done=receipt`);
    expect((await admin.get(sent.location!)).text).toContain(`Receipt queued: it goes to ${email} in a moment.`);
    const queued = await receipts(txId);
    expect(queued).toHaveLength(2);
    // Queued, not sent: the mail job sends it, with the same content as the first.
    expect(queued[1]).toMatchObject({ status: 'pending', recipient: email, sent_at: null });
    const [audit] = await audits();
    expect(JSON.parse(audit!.detail!)).toEqual({ transaction: txId });
    expect(audit!.detail).not.toContain(email);

    // Again within the minute: refused, nothing queued or audited.
    const again = await admin.post(path, {});
    expect(again.status).toBe(429);
    expect(again.text).toContain('Not sent: this payment’s receipt was queued less than a minute ago.');
    expect(await receipts(txId)).toHaveLength(2);
    // The service's clock is real time moved on: counted from the receipt queued, not from
    // now, since the requests above take their own time (over a second on a busy machine).
    const sinceQueued = () => clock.now().getTime() - Date.parse(queued[1]!.created_at);
    clock.advance(55_000 - sinceQueued());
    expect((await admin.post(path, {})).status).toBe(429);
    clock.advance(61_000 - sinceQueued());
    expect((await admin.post(path, {})).status).toBe(303);
    expect(await receipts(txId)).toHaveLength(3);
    expect(await audits()).toHaveLength(2);

    // The customer gets the same receipt three times (the reference and total of the first).
    const mails = (await inbox(t, email)).filter((m) => !/refund/i.test(m.subject ?? ''));
    expect(mails).toHaveLength(3);
    expect(new Set(mails.map((m) => m.subject)).size).toBe(1);
    expect(new Set(mails.map((m) => m.text)).size).toBe(1);
    expect(timelineOf((await viewer.get(`/dashboard/transactions/${txId}/`)).text).split('Receipt emailed to the customer')).toHaveLength(4);
  });

  it('shows the events of a dispute of its sale, opened and closed', async () => {
    const created = await shop.post('/transaction/', priced('EUR', 30));
    expect((await payWithCard(t.url, created.body.token, TEST_CARDS.disputedFraudulent)).status).toBe(200);
    // The sandbox bank opens the dispute in a round of its job.
    await t.service.jobs.runAll();
    const sale = (await shop.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    const [dispute] = (await shop.get(`/dispute/?sale=${sale.id}`)).body.results;
    expect((await shop.post(`/dispute/${dispute.id}/accept/`, {})).status).toBe(200);
    const events = (await shop.get(`/event/?object_id=${dispute.id}`)).body.results as { id: string; type: string }[];
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['dispute.created', 'dispute.closed']));
    const timeline = timelineOf((await viewer.get(`/dashboard/transactions/${created.body.id}/`)).text);
    for (const e of events) expect(timeline).toContain(`<a href="/dashboard/events/${e.id}/">${e.type === 'dispute.created' ? 'Dispute opened' : e.type === 'dispute.closed' ? 'Dispute closed' : 'Dispute evidence updated'}: €30.00 <code class="event-type">${e.type}</code></a>`);
    expect(timeline.indexOf('Dispute opened')).toBeLessThan(timeline.indexOf('Dispute closed'));
  });

  it('shows the API object: the JSON GET /v1/transaction/{id}/ and GET /v1/sale/{id}/ answer, as text, in a closed <details>; not to another environment', async () => {
    // Markup in what the merchant's API client sent: shown as JSON text, never run.
    const hostile = `</code></pre><script>alert("x")</script>&amp;`;
    const { transaction, sale } = await paidTransaction(shop, priced('EUR', 12.5, { order_id: `api-${Date.now()}`, note: hostile, customer_email: `o'neil&co@customer.example` }));
    const page = (await viewer.get(`/dashboard/transactions/${transaction.id}/`)).text;
    const details = /<details class="api-object" data-testid="api-object">([\s\S]*?)<\/details>/.exec(page)?.[1];
    expect(details, 'a closed <details>').toBeDefined();
    expect(details).toContain('<summary>API object (for developers)</summary>');
    expect(details).toContain('GET /v1/transaction/{id}/ for the transaction and GET /v1/sale/{id}/ for each of its sales');
    expect(details).toContain(`<h3><code>GET /v1/transaction/${transaction.id}/</code></h3>`);
    expect(details).toContain(`<h3><code>GET /v1/sale/${sale.id}/</code></h3>`);
    expect(details).not.toContain('<script>');
    const unescape = (html: string) => html.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
    const shown = (testId: string) => unescape(new RegExp(`<pre tabindex="0" data-testid="${testId}"><code>([^<]*)</code></pre>`).exec(details!)?.[1] ?? '');
    // Exactly what the API answers, field for field and in its order, pretty-printed.
    const fromApi = async (path: string) => JSON.stringify((await shop.get(path)).body, null, 2);
    expect(shown('api-transaction')).toBe(await fromApi(`/transaction/${transaction.id}/`));
    expect(shown('api-sale')).toBe(await fromApi(`/sale/${sale.id}/`));
    expect(JSON.parse(shown('api-transaction'))).toMatchObject({ id: transaction.id, note: hostile, livemode: false });
    expect((await stranger.get(`/dashboard/transactions/${transaction.id}/`)).status).toBe(404);
  });

  it('refuses politely for a payment without a customer email or not paid, and for an unknown id', async () => {
    clock.advance(2 * 60_000);
    const { transaction: noEmail } = await paidTransaction(shop, priced('EUR', 12));
    let page = await admin.get(`/dashboard/transactions/${noEmail.id}/`);
    expect(page.text).not.toContain('Resend receipt');
    expect(dd(page.text, 'authentication')).toBe('Not asked');
    page = await admin.post(`/dashboard/transactions/${noEmail.id}/receipt/`, {});
    expect(page.status).toBe(409);
    expect(page.text).toContain('Not sent: the payment has no customer email.');

    const open = (await shop.post('/transaction/', priced('EUR', 12, { customer_email: email }))).body;
    page = await admin.get(`/dashboard/transactions/${open.id}/`);
    expect(page.text).not.toContain('Resend receipt');
    page = await admin.post(`/dashboard/transactions/${open.id}/receipt/`, {});
    expect(page.status).toBe(409);
    expect(page.text).toContain('Not sent: only a paid payment has a receipt.');
    expect(await receipts(open.id)).toHaveLength(0);
    expect(await receipts(noEmail.id)).toHaveLength(0);

    expect((await admin.post('/dashboard/transactions/not-an-id/receipt/', {})).status).toBe(404);
    expect((await admin.post(`/dashboard/transactions/${crypto.randomUUID()}/receipt/`, {})).status).toBe(404);
    expect(await audits()).toHaveLength(2);
  });
});
