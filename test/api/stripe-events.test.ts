import { describe, expect, it } from 'vitest';
import { member } from './dashboard';
import { ENGINES } from './harness';
import { back, newTransaction, onCheckout, paidByCheckout, redeliver, toCheckout, useStripeShop } from './stripe-shop';

// Stripe's events at a connected processor's webhook_url (docs/processors.md "Webhooks"),
// over real HTTP against the Stripe double: nothing Stripe tells us is dropped. A verified
// event for a reference we do not know, or whose object does not match what we asked,
// becomes an attention item of the environment (once per object, however often it is
// delivered), shown on the dashboard's Overview under "Needs attention".

const FORM = 'application/x-www-form-urlencoded';
const STRANGER = 'gc_00000000-0000-7000-8000-0000000000aa';

describe.each(ENGINES)('Stripe events on %s', (engine) => {
  const shop = useStripeShop(engine);
  const attention = async (subject: string) =>
    shop.t.service.deps.database.db.selectFrom('processor_attention').selectAll().where('subject', '=', subject).execute();

  /** A Checkout Session made at the double by someone else with our key (not by this service): its id. */
  async function strangersSession(reference: string): Promise<string> {
    const made = await fetch(`${shop.double.url}/v1/checkout/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.keys.secret_key}`, 'content-type': FORM },
      body: `mode=payment&success_url=https%3A%2F%2Fshop.example%2F&client_reference_id=${reference}&line_items[0][quantity]=1&line_items[0][price_data][currency]=eur&line_items[0][price_data][unit_amount]=900&line_items[0][price_data][product_data][name]=X&metadata[reference]=${reference}&payment_intent_data[metadata][reference]=${reference}`,
    });
    expect(made.status).toBe(200);
    return ((await made.json()) as { id: string }).id;
  }

  it('an event for a payment we do not know is an attention item, once however often it is delivered, on the Overview of its environment only', async () => {
    const session = await strangersSession(STRANGER);
    const before = shop.double.deliveries.length;
    await shop.double.payLate(session);
    const completed = shop.double.deliveries.slice(before).find((d) => d.type === 'checkout.session.completed')!;
    expect(completed.status).toBe(204);
    const [item, ...more] = await attention(session);
    expect(more).toHaveLength(0);
    expect(item).toMatchObject({
      environment_id: shop.api.keys.environment_id,
      processor_id: shop.processorId,
      event_id: JSON.parse(completed.payload).id,
      event_type: 'checkout.session.completed',
      reference: STRANGER,
    });
    expect(item!.why).toContain('a payment we do not know');

    // Delivered again (Stripe retries): 204, still one item.
    expect((await redeliver(completed)).status).toBe(204);
    expect((await redeliver(completed)).status).toBe(204);
    expect(await attention(session)).toHaveLength(1);

    const { browser } = await member(shop.t, shop.api, 'viewer');
    const html = (await browser.get('/dashboard/')).text;
    const section = /data-testid="attention">([\s\S]*?)<\/section>/.exec(html)![1]!;
    expect(section.match(/data-testid="attention-processor"/g)).toHaveLength(1);
    expect(section).toContain(`checkout.session.completed about ${session}`);
    expect(section).toContain('a payment we do not know');

    // Another environment of the same service sees nothing of it.
    const other = await shop.t.newEnvironment('Another shop');
    const theirs = (await (await member(shop.t, other, 'viewer')).browser.get('/dashboard/')).text;
    expect(theirs).not.toContain('attention-processor');
  });

  it('an event whose object does not match what we asked is an attention item, and records nothing', async () => {
    const tx = await newTransaction(shop.api);
    const page = await toCheckout(shop, tx.token);
    shop.double.holdEvents = true;
    const paid = await onCheckout(page, 'pay');
    // The webhook's read of the session comes back with another amount than the one we asked.
    shop.double.rewriteNext({ method: 'GET', path: /^\/v1\/checkout\/sessions\/cs_/ }, (body) => ({ ...body, amount_total: 1 }));
    const delivered = await shop.double.deliverEvents();
    const completed = delivered.find((d) => d.type === 'checkout.session.completed')!;
    expect(completed.status).toBe(204);
    const session = JSON.parse(completed.payload).data.object.id as string;
    const [item] = await attention(session);
    expect(item).toMatchObject({ event_type: 'checkout.session.completed', processor_id: shop.processorId });
    expect(item!.why).toContain('amount_total');
    expect((await shop.api.get(`/transaction/${tx.id}/`)).body.status).toBe('N');
    // The customer's return reads the session again, as Stripe holds it: the payment is recorded then.
    expect((await back(paid)).headers.get('location')).toMatch(/status=D/);
    expect(await attention(session)).toHaveLength(1);
  });

  const saleNow = async (id: string) => (await shop.api.get(`/sale/${id}/`)).body;
  const refundsAtStripe = (paymentIntent: string) => [...shop.double.books.refunds.values()].filter((r) => r.payment_intent === paymentIntent);
  const eventsOf = async (type: string, sale: string) =>
    ((await shop.api.get(`/event/?type=${type}&page_size=100`)).body.results as { data: { id: string } }[]).filter((e) => e.data.id === sale);

  it('a refund Stripe accepted as pending, then failed: undone in our books once, the merchant told by sale.refund_failed; replayed, out of order, nothing twice', async () => {
    const { sale, paymentIntent } = await paidByCheckout(shop);
    shop.double.holdEvents = true;
    shop.double.books.refundsGoPending = true;
    const refunded = await shop.api.post(`/sale/${sale.id}/refund/`, { amount: 10 });
    shop.double.books.refundsGoPending = false;
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body).toMatchObject({ refunded: 10, refundable: 7 });
    const [refund] = refundsAtStripe(paymentIntent);
    expect(refund).toMatchObject({ status: 'pending', amount: 1000 });

    // The bank returns it. Stripe's events come in the reverse order, after the older charge.refunded.
    expect(await shop.double.failRefund(refund!.id)).toEqual([]);
    const held = await shop.double.deliverEvents();
    expect(held.map((d) => d.type)).toEqual(['refund.created', 'charge.refunded', 'refund.updated', 'refund.failed']);
    for (const d of [...held].reverse()) expect((await redeliver(d)).status).toBe(204);
    let now = await saleNow(sale.id);
    expect(now).toMatchObject({ status: 'captured', refunded: 0, refundable: 17 });
    expect(now.operations.map((o: { kind: string; amount: number }) => [o.kind, o.amount])).toEqual([
      ['capture', 17],
      ['refund', 10],
      ['refund_failed', 10],
    ]);
    expect(await eventsOf('sale.refund_failed', sale.id)).toHaveLength(1);
    // Read again by id at Stripe, never from the event's body.
    expect(shop.double.requests.some((r) => r.method === 'GET' && r.path === `/v1/refunds/${refund!.id}`)).toBe(true);

    // Every delivery again, in order and out of it: nothing twice.
    for (const d of [...held, ...held.reverse()]) expect((await redeliver(d)).status).toBe(204);
    now = await saleNow(sale.id);
    expect(now).toMatchObject({ refunded: 0, refundable: 17 });
    expect(now.operations.filter((o: { kind: string }) => o.kind === 'refund_failed')).toHaveLength(1);
    expect(await eventsOf('sale.refund_failed', sale.id)).toHaveLength(1);
    // A tampered body is refused (400), whatever it claims.
    const failed = held.find((d) => d.type === 'refund.failed')!;
    expect((await redeliver(failed, { payload: failed.payload.replace('"failed"', '"succeeded"') })).status).toBe(400);

    // Refundable again: a new refund goes through at Stripe.
    const again = await shop.api.post(`/sale/${sale.id}/refund/`, { amount: 17 });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ refunded: 17, refundable: 0, status: 'refunded' });
    expect(refundsAtStripe(paymentIntent).map((r) => [r.status, r.amount])).toEqual([
      ['failed', 1000],
      ['succeeded', 1700],
    ]);

    // The dashboard's refunds export says which refund failed later, and when.
    const { browser } = await member(shop.t, shop.api, 'viewer');
    const day = shop.t.service.deps.now().toISOString().slice(0, 10);
    const [header, ...rows] = (await browser.get(`/dashboard/export/csv?kind=refunds&from=${day}&to=${day}`)).text.trim().split(/\r?\n/).map((l) => l.split(','));
    const column = (name: string) => header!.indexOf(name);
    const failedAt = (stripeId: string) => rows.find((r) => r[column('gateway_reference')] === stripeId)?.[column('failed_at')];
    const [first, second] = refundsAtStripe(paymentIntent);
    expect(failedAt(first!.id)).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(failedAt(second!.id)).toBe('');
  });

  it('a pending refund that goes through changes nothing; a refund whose answer was lost is settled by charge.refunded', async () => {
    const { sale, paymentIntent } = await paidByCheckout(shop);
    shop.double.books.refundsGoPending = true;
    expect((await shop.api.post(`/sale/${sale.id}/refund/`, { amount: 5 })).status).toBe(200);
    shop.double.books.refundsGoPending = false;
    const settled = await shop.double.settleRefund(refundsAtStripe(paymentIntent)[0]!.id);
    expect(settled.map((d) => [d.type, d.status])).toEqual([['refund.updated', 204]]);
    expect(await saleNow(sale.id)).toMatchObject({ refunded: 5, refundable: 12 });

    // Stripe makes the refund, and its answer is lost (a 500 after acting): the outcome is unknown (202).
    shop.double.holdEvents = true;
    shop.double.failNext({ method: 'POST', path: /^\/v1\/refunds$/ }, { acted: true });
    const lost = await shop.api.post(`/sale/${sale.id}/refund/`, { amount: 3 });
    expect(lost.status, lost.text).toBe(202);
    expect(lost.body).toMatchObject({ status: 'pending', refunded: 5 });
    const delivered = await shop.double.deliverEvents();
    expect(delivered.find((d) => d.type === 'charge.refunded')!.status).toBe(204);
    const now = await saleNow(sale.id);
    expect(now).toMatchObject({ refunded: 8, refundable: 9 });
    expect(now.status).not.toBe('pending');
    expect(now.operations.filter((o: { kind: string }) => o.kind === 'refund')).toHaveLength(2);
  });

  it('a refund made at Stripe, not through us (its Dashboard), is an attention item; our books do not move', async () => {
    const { sale, paymentIntent } = await paidByCheckout(shop);
    const made = await fetch(`${shop.double.url}/v1/refunds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.keys.secret_key}`, 'content-type': FORM },
      body: `payment_intent=${paymentIntent}&amount=700`,
    });
    expect(made.status).toBe(200);
    const refund = (await made.json()) as { id: string };
    const [item, ...more] = await attention(refund.id);
    expect(more).toHaveLength(0);
    expect(item).toMatchObject({ processor_id: shop.processorId, reference: null });
    expect(['refund.created', 'charge.refunded']).toContain(item!.event_type);
    expect(item!.why).toContain('a refund we do not know');
    expect(await saleNow(sale.id)).toMatchObject({ refunded: 0, refundable: 17 });
  });

  it('the double refuses what Stripe refuses: a session that does not exist is a 404, and an unknown parameter a 400', async () => {
    const missing = await fetch(`${shop.double.url}/v1/checkout/sessions/cs_test_a1nothere`, { headers: { authorization: `Bearer ${shop.keys.secret_key}` } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('resource_missing');
    const unknown = await fetch(`${shop.double.url}/v1/checkout/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.keys.secret_key}`, 'content-type': FORM },
      body: 'mode=payment&success_url=https%3A%2F%2Fshop.example%2F&surprise=1',
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'parameter_unknown', param: 'surprise' });
  });
});
