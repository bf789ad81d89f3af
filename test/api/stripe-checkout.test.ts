import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { REDIRECT_WAIT_MS } from '../../server/payments/redirect';
import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { listCalls } from '../../server/store/gateway-calls';
import { sendEvent, signedEvent } from '../stripe/events';
import type { StripeDouble } from '../stripe/server';
import { type Client, ENGINES, type TestService, testClock, transactionBody } from './harness';
import { pageCsrf } from './pay';
import { back, onCheckout, redeliver, startStripeShop, type StartedStripeShop, toCheckout as toStripePage } from './stripe-shop';

// Card entry by Stripe Checkout, by redirect (docs/processors.md "Checkout by redirect"),
// end to end over real HTTP: a sandbox environment connects the Stripe double through the
// processors API; the payment page's form post (no JavaScript) sends the customer to the
// double's hosted page, whose buttons pay (approved, declined, 3-D Secure completed or
// failed) or go back to the shop; the return route reads the session again from the double.
// Then the sale's actions (partial capture, the rest released, refund) on the same
// PaymentIntent, the reconciliation of a customer who never came back, and a session left
// open ended before the next attempt.

const FORM = 'application/x-www-form-urlencoded';

describe.each(ENGINES)('Stripe Checkout by redirect on %s', (engine) => {
  let t: TestService;
  let double: StripeDouble;
  let api: Client;
  let keys: StartedStripeShop['keys'];
  let webhookUrl: string;
  let shop: StartedStripeShop;
  const clock = testClock();

  beforeAll(async () => {
    shop = await startStripeShop(engine, clock, 'Stripe shop');
    ({ t, double, api, keys } = shop);
    webhookUrl = shop.webhookUrl;
    expect(webhookUrl).toBe(`${t.url}/processors/${shop.processorId}/events/`);
  });
  afterAll(() => shop?.close());

  const created = async (over: Record<string, unknown> = {}) => {
    const res = await api.post('/transaction/', transactionBody({ gateway_selected: false, return_url: 'https://shop.example/return', ...over }));
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; token: string };
  };
  const calls = (id: string) => listCalls(t.service.deps.database.db, id);
  const statusOf = async (id: string) => (await api.get(`/transaction/${id}/`)).body.status as string;
  const salesOf = async (id: string) => (await api.get(`/sale/?transaction_id=${id}`)).body.results as any[];

  const toCheckout = (token: string) => toStripePage(shop, token);

  it('approved: the session is made as documented, the customer comes back, and one sale is recorded from what Stripe says', async () => {
    const tx = await created();
    const page = await toCheckout(tx.token);
    const [call] = await calls(tx.id);
    expect(call).toMatchObject({ kind: 'pay', state: 'pending', gateway_id: STRIPE_CARD_ID });
    expect(call!.processor_id).toBe(page.split('/').pop());
    const create = double.requests.find((r) => r.path === '/v1/checkout/sessions' && r.idempotencyKey === call!.reference)!;
    expect(create.params).toMatchObject({
      mode: 'payment',
      client_reference_id: call!.reference,
      metadata: { reference: call!.reference },
      payment_intent_data: { metadata: { reference: call!.reference } },
      line_items: [{ quantity: '1', price_data: { currency: 'eur', unit_amount: '1700' } }],
      success_url: `${t.url}/pay/${tx.token}/return/${call!.reference}/`,
      cancel_url: `${t.url}/pay/${tx.token}/return/${call!.reference}/?checkout=cancelled`,
    });
    expect((create.params.payment_intent_data as Record<string, unknown>).capture_method).toBeUndefined();

    // The query says nothing we believe: before paying, a return is only "checking".
    const early = await fetch(`${t.url}/pay/${tx.token}/return/${call!.reference}/?payment_status=paid`, { redirect: 'manual' });
    expect(early.headers.get('location')).toBe(`/pay/${tx.token}/`);
    expect(await statusOf(tx.id)).toBe('N');

    const returned = await back(await onCheckout(page, 'pay'));
    expect(returned.headers.get('location')).toMatch(/^https:\/\/shop\.example\/return.*status=D/);
    const [sale] = await salesOf(tx.id);
    expect(sale).toMatchObject({ status: 'captured', amount: 17, card: { brand: 'visa', last4: '4242' }, authentication: null });
    expect((await calls(tx.id)).map((c) => c.state)).toEqual(['succeeded']);
    const pi = double.books.checkoutSessions.get(call!.processor_id!)!.payment_intent as string;
    expect(double.books.paymentIntents.get(pi)).toMatchObject({ status: 'succeeded', amount_received: 1700, metadata: { reference: call!.reference } });
    // Back again: the same answer, nothing new; Stripe's page takes no second payment.
    const again = await fetch(`${t.url}/pay/${tx.token}/return/${call!.reference}/`, { redirect: 'manual' });
    expect(again.headers.get('location')).toMatch(/status=D/);
    expect(await (await onCheckout(page, 'pay')).text()).toContain('This Checkout Session is complete.');
    expect(await salesOf(tx.id)).toHaveLength(1);
  });

  it('the processor’s statement descriptor reaches Stripe as the session’s payment_intent_data[statement_descriptor_suffix], and its PaymentIntent carries it', async () => {
    const set = await api.patch(`/processor/${shop.processorId}/`, { statement_descriptor: 'ORDER SHOP' });
    expect(set.status, set.text).toBe(200);
    try {
      const tx = await created();
      const page = await toCheckout(tx.token);
      const [call] = await calls(tx.id);
      const create = double.requests.find((r) => r.path === '/v1/checkout/sessions' && r.idempotencyKey === call!.reference)!;
      expect(create.params.payment_intent_data).toEqual({ metadata: { reference: call!.reference }, statement_descriptor_suffix: 'ORDER SHOP' });
      expect((await back(await onCheckout(page, 'pay'))).headers.get('location')).toMatch(/status=D/);
      const pi = double.books.checkoutSessions.get(call!.processor_id!)!.payment_intent as string;
      expect(double.books.paymentIntents.get(pi)).toMatchObject({ status: 'succeeded', statement_descriptor_suffix: 'ORDER SHOP' });
    } finally {
      expect((await api.patch(`/processor/${shop.processorId}/`, { statement_descriptor: null })).status).toBe(200);
    }
  });

  it('card fields posted without JavaScript are refused: the page again with the error and a 400, nothing recorded, nothing asked of Stripe', async () => {
    const tx = await created();
    const before = double.requests.length;
    const posted = await fetch(`${t.url}/pay/${tx.token}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': FORM, origin: t.url },
      body: new URLSearchParams({ action: 'pay', gateway: STRIPE_CARD_ID, csrf: await pageCsrf(t.url, tx.token), card_number: '4242 4242 4242 4242', card_expiry: '12/34', card_cvc: '123' }),
    });
    expect(posted.status).toBe(400);
    expect(posted.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await posted.text()).toContain('This payment method takes your card on the payment provider');
    expect(await calls(tx.id)).toEqual([]);
    expect(double.requests.length).toBe(before);
    expect(await statusOf(tx.id)).toBe('N');
    // Card inputs left empty (another method's, shown before this one was chosen) are no card: Stripe's page as usual.
    const empty = await fetch(`${t.url}/pay/${tx.token}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': FORM, origin: t.url },
      body: new URLSearchParams({ action: 'pay', gateway: STRIPE_CARD_ID, csrf: await pageCsrf(t.url, tx.token), card_number: '', card_cvc: '' }),
    });
    expect(empty.status).toBe(303);
    expect(empty.headers.get('location')).toMatch(new RegExp(`^${double.url}/c/pay/cs_`));
    // Paid, so that no open session is left for the other tests' jobs and webhooks.
    expect((await back(await onCheckout(empty.headers.get('location')!, 'pay'))).headers.get('location')).toMatch(/status=D/);
    await double.settled();
  });

  it('3-D Secure completed on Stripe’s page: the sale records the challenge Stripe reports', async () => {
    const tx = await created();
    const returned = await back(await onCheckout(await toCheckout(tx.token), '3ds_complete'));
    expect(returned.headers.get('location')).toMatch(/status=D/);
    expect((await salesOf(tx.id))[0]).toMatchObject({ authentication: { status: 'authenticated', method: 'challenge' }, card: { last4: '3220' } });
  });

  for (const [action, message] of [
    ['decline', 'Your card was declined.'],
    ['3ds_fail', 'We are unable to authenticate your payment method.'],
  ] as const) {
    it(`${action}: the customer stays on Stripe’s page; back at the shop the session is ended, nothing is paid, and another attempt may pay`, async () => {
      const tx = await created();
      const page = await toCheckout(tx.token);
      const refused = await onCheckout(page, action);
      expect(refused.status).toBe(200);
      expect(await refused.text()).toContain(message);
      const [call] = await calls(tx.id);
      const returned = await back(await onCheckout(page, 'cancel'));
      expect(returned.headers.get('location')).toBe(`/pay/${tx.token}/?declined=1&gateway=${STRIPE_CARD_ID}`);
      expect(double.books.checkoutSessions.get(call!.processor_id!)).toMatchObject({ status: 'expired' });
      expect(double.requests.some((r) => r.path === `/v1/checkout/sessions/${call!.processor_id}/expire` && r.status === 200)).toBe(true);
      expect(await statusOf(tx.id)).toBe('N');
      expect(await salesOf(tx.id)).toHaveLength(0);
      // The ended session can no longer be paid; a new attempt makes a new one.
      expect(await (await onCheckout(page, 'pay')).text()).toContain('expired');
      expect((await back(await onCheckout(await toCheckout(tx.token), 'pay'))).headers.get('location')).toMatch(/status=D/);
      expect(await salesOf(tx.id)).toHaveLength(1);
    });
  }

  it('a hold: manual capture at Stripe, then a partial capture that releases the rest, a second capture refused, then a refund', async () => {
    const tx = await created({ authorize: true });
    const page = await toCheckout(tx.token);
    const [call] = await calls(tx.id);
    expect(double.requests.find((r) => r.idempotencyKey === call!.reference)!.params).toMatchObject({ payment_intent_data: { capture_method: 'manual' } });
    expect((await back(await onCheckout(page, 'pay'))).headers.get('location')).toMatch(/status=D/);
    const [sale] = await salesOf(tx.id);
    expect(sale).toMatchObject({ status: 'held', held: 17 });

    // Stripe captures once: the rest was released there with the capture, and in our books with its record.
    const captured = await api.post(`/sale/${sale.id}/capture/`, { amount: 10 });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'captured', captured: 10, held: 0, voided: 7 });
    expect(double.requests.filter((r) => /\/capture$/.test(r.path))).toHaveLength(1);
    // A second capture is refused before Stripe is asked; there is nothing left to void, and nothing was sent for the rest.
    const again = await api.post(`/sale/${sale.id}/capture/`, { amount: 1 });
    expect(again.status, again.text).toBe(409);
    expect(again.body.detail).toContain('captures a hold once');
    expect((await api.post(`/sale/${sale.id}/void/`, {})).status).toBe(409);
    expect(double.requests.filter((r) => /\/(capture|cancel)$/.test(r.path))).toHaveLength(1);

    const refunded = await api.post(`/sale/${sale.id}/refund/`, { amount: 4 });
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body).toMatchObject({ refunded: 4, refundable: 6 });
    const pi = double.books.checkoutSessions.get(call!.processor_id!)!.payment_intent as string;
    expect([...double.books.refunds.values()].filter((r) => r.payment_intent === pi).map((r) => r.amount)).toEqual([400]);
  });

  it('a hold voided whole: its PaymentIntent cancelled at Stripe, once, and nothing left to capture or refund', async () => {
    const tx = await created({ authorize: true });
    const page = await toCheckout(tx.token);
    const [call] = await calls(tx.id);
    expect((await back(await onCheckout(page, 'pay'))).headers.get('location')).toMatch(/status=D/);
    const [sale] = await salesOf(tx.id);
    const pi = double.books.checkoutSessions.get(call!.processor_id!)!.payment_intent as string;
    const voided = await api.post(`/sale/${sale.id}/void/`, {});
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body).toMatchObject({ status: 'voided', held: 0, voided: 17, captured: 0 });
    expect(double.books.paymentIntents.get(pi)!.status).toBe('canceled');
    expect(double.requests.filter((r) => r.path === `/v1/payment_intents/${pi}/cancel`)).toHaveLength(1);
    expect((await api.post(`/sale/${sale.id}/capture/`, {})).status).toBe(409);
    expect((await api.post(`/sale/${sale.id}/refund/`, {})).status).toBe(409);
    expect(double.requests.filter((r) => r.path.startsWith(`/v1/payment_intents/${pi}/`) && r.method === 'POST')).toHaveLength(1);
  });

  it('a hold expires when Stripe says (the charge’s capture_before), not after a fixed 7 days', async () => {
    const DAY = 86_400_000;
    // Two days from the service's clock (which earlier tests moved on) on the double's.
    double.books.holdSeconds = Math.ceil((clock.now().getTime() - Date.now()) / 1000) + 2 * 86_400;
    const tx = await created({ authorize: true });
    const page = await toCheckout(tx.token);
    const [call] = await calls(tx.id);
    try {
      expect((await back(await onCheckout(page, 'pay'))).headers.get('location')).toMatch(/status=D/);
    } finally {
      double.books.holdSeconds = 7 * 86_400;
    }
    const [sale] = await salesOf(tx.id);
    const pi = double.books.checkoutSessions.get(call!.processor_id!)!.payment_intent as string;
    const charge = double.books.charges.get(double.books.paymentIntents.get(pi)!.latest_charge as string)!;
    const expiresAt = (charge.payment_method_details as { card: { capture_before: number } }).card.capture_before * 1000;
    expect(expiresAt - clock.now().getTime()).toBeLessThan(2 * DAY + 60_000);
    const expire = () => t.service.jobs.runOnce(JOB_NAMES.holdExpiry);
    const cancels = () => double.requests.filter((r) => r.path === `/v1/payment_intents/${pi}/cancel`).length;
    // Asked once it is held, and put off until then.
    await expire();
    clock.advance(expiresAt - clock.now().getTime() - 60_000);
    await expire();
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ status: 'held', hold_expired: null });
    expect(cancels()).toBe(0);
    clock.advance(120_000);
    await expire();
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ status: 'voided', held: 0, voided: 17, hold_expired: expect.any(String) });
    expect(cancels()).toBe(1);
  });

  it('a customer who pays and never comes back: the reconciliation reads the session after its wait and records the payment', async () => {
    const tx = await created();
    // No webhook either (held): only the reconciliation can tell.
    double.holdEvents = true;
    const paid = await onCheckout(await toCheckout(tx.token), 'pay');
    expect(paid.status).toBe(303);
    expect(await statusOf(tx.id)).toBe('N');
    clock.advance(REDIRECT_WAIT_MS + 1000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect(await statusOf(tx.id)).toBe('D');
    expect(await salesOf(tx.id)).toHaveLength(1);
    // The events arriving after it change nothing.
    expect((await double.deliverEvents()).map((d) => d.status)).toEqual([204, 204]);
    expect(await salesOf(tx.id)).toHaveLength(1);
  });

  it('back from Stripe’s page without paying (the browser’s Back), another attempt: the open session is expired first, and only the new one pays', async () => {
    const tx = await created();
    const first = await toCheckout(tx.token);
    const second = await toCheckout(tx.token);
    expect(second).not.toBe(first);
    const [old, current] = await calls(tx.id);
    expect(double.books.checkoutSessions.get(old!.processor_id!)).toMatchObject({ status: 'expired' });
    expect(old!.state).not.toBe('pending');
    expect(await (await onCheckout(first, 'pay')).text()).toContain('This Checkout Session is expired.');
    expect((await back(await onCheckout(second, 'pay'))).headers.get('location')).toMatch(/status=D/);
    expect(await salesOf(tx.id)).toHaveLength(1);
    expect(current!.processor_id).toBe(second.split('/').pop());
  });

  it('a customer who never pays: after its wait the session is expired at Stripe and the attempt ends unpaid', async () => {
    const tx = await created();
    const page = await toCheckout(tx.token);
    const [call] = await calls(tx.id);
    clock.advance(REDIRECT_WAIT_MS + 1000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect(double.books.checkoutSessions.get(call!.processor_id!)).toMatchObject({ status: 'expired' });
    expect((await calls(tx.id)).map((c) => c.state)).toEqual(['failed']);
    expect(await (await onCheckout(page, 'pay')).text()).toContain('expired');
    expect(await salesOf(tx.id)).toHaveLength(0);
  });

  it('webhooks: checkout.session.completed settles the payment; a replay changes nothing; tampered, unsigned, another secret or API version are 400 with nothing recorded', async () => {
    const tx = await created();
    const page = await toCheckout(tx.token);
    double.holdEvents = true;
    const paid = await onCheckout(page, 'pay');
    const held = await double.deliverEvents();
    const completed = held.find((d) => d.type === 'checkout.session.completed')!;
    expect(held.map((d) => d.status)).toEqual(held.map(() => 204));
    expect(await statusOf(tx.id)).toBe('D');
    expect(await salesOf(tx.id)).toHaveLength(1);

    expect((await redeliver(completed)).status).toBe(204);
    const tampered = completed.payload.replace('"status": "complete"', '"status": "expired"');
    expect(tampered).not.toBe(completed.payload);
    expect((await redeliver(completed, { payload: tampered })).status).toBe(400);
    expect((await redeliver(completed, { signature: '' })).status).toBe(400);
    const other = signedEvent({ type: completed.type, object: JSON.parse(completed.payload).data.object, secret: 'whsec_another', apiVersion: '2026-10-28.endive' });
    expect(await sendEvent(webhookUrl, other)).toBe(400);
    const oldVersion = signedEvent({ type: completed.type, object: JSON.parse(completed.payload).data.object, secret: keys.webhook_secret, apiVersion: '2024-06-20' });
    expect(await sendEvent(webhookUrl, oldVersion)).toBe(400);
    expect(await sendEvent(`${t.url}/processors/0190f5a0-0000-7000-8000-00000000dead/events/`, completed as never)).toBe(400);
    expect(await sendEvent(`${t.url}/processors/not-a-uuid/events/`, completed as never)).toBe(400);
    expect((await redeliver(completed, { payload: '' })).status).toBe(400);
    expect(await salesOf(tx.id)).toHaveLength(1);
    expect((await back(paid)).headers.get('location')).toMatch(/status=D/);
  });

  it('webhooks: a verified event for a session we never started is taken (204) and records nothing', async () => {
    const made = await fetch(`${double.url}/v1/checkout/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.secret_key}`, 'content-type': FORM },
      body: 'mode=payment&success_url=https%3A%2F%2Fshop.example%2F&client_reference_id=gc_00000000-0000-7000-8000-000000000000&line_items[0][quantity]=1&line_items[0][price_data][currency]=eur&line_items[0][price_data][unit_amount]=900&line_items[0][price_data][product_data][name]=X&metadata[reference]=gc_00000000-0000-7000-8000-000000000000&payment_intent_data[metadata][reference]=gc_00000000-0000-7000-8000-000000000000',
    });
    expect(made.status).toBe(200);
    const session = (await made.json()) as { id: string };
    const before = double.deliveries.length;
    await double.payLate(session.id);
    const mine = double.deliveries.slice(before).filter((d) => d.type === 'checkout.session.completed');
    expect(mine.map((d) => d.status)).toEqual([204]);
  });

  it('the return racing the webhook (and itself): one payment', async () => {
    const tx = await created();
    const page = await toCheckout(tx.token);
    double.holdEvents = true;
    const paid = await onCheckout(page, 'pay');
    const location = paid.headers.get('location')!;
    const [deliveries, ...returns] = await Promise.all([double.deliverEvents(), ...Array.from({ length: 5 }, () => fetch(location, { redirect: 'manual' }))]);
    expect(deliveries.map((d) => d.status)).toEqual(deliveries.map(() => 204));
    for (const r of returns) expect(r.headers.get('location')).toMatch(/status=D/);
    expect(await salesOf(tx.id)).toHaveLength(1);
    expect((await calls(tx.id)).map((c) => c.state)).toEqual(['succeeded']);
  });

  it('an abandoned session is expired; its late success, told by the webhook after another attempt paid, is reversed at Stripe', async () => {
    const tx = await created();
    await toCheckout(tx.token);
    const [first] = await calls(tx.id);
    clock.advance(REDIRECT_WAIT_MS + 1000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect(double.books.checkoutSessions.get(first!.processor_id!)).toMatchObject({ status: 'expired' });
    expect((await back(await onCheckout(await toCheckout(tx.token), 'pay'))).headers.get('location')).toMatch(/status=D/);

    const before = double.deliveries.length;
    await double.payLate(first!.processor_id!);
    expect(double.deliveries.slice(before).map((d) => d.status)).toEqual(double.deliveries.slice(before).map(() => 204));
    const latePi = double.books.checkoutSessions.get(first!.processor_id!)!.payment_intent as string;
    await expect.poll(() => [...double.books.refunds.values()].filter((r) => r.payment_intent === latePi).map((r) => r.amount)).toEqual([1700]);
    const sales = await salesOf(tx.id);
    expect(sales.filter((s) => s.status === 'captured')).toHaveLength(1);
    const all = (await api.get('/sale/?page_size=100')).body.results as any[];
    expect(all.find((s) => s.late_for_transaction === tx.id)).toMatchObject({ refunded: 17 });
  });
});
