import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { REDIRECT_WAIT_MS } from '../../server/payments/redirect';
import { listCalls } from '../../server/store/gateway-calls';
import { ENGINES } from './harness';
import { newTransaction, onCheckout, toCheckout, useStripeShop } from './stripe-shop';

// Stripe down altogether (the double's `unreachable`: every connection to its API cut before
// anything is carried out), then back: what was decided at Stripe before the outage is
// recorded once by reconciliation when Stripe answers again, and nothing is decided from
// the silence meanwhile (issue 45: "reconciliation after the double stops answering").

describe.each(ENGINES)('Stripe unreachable, then back, on %s', (engine) => {
  const shop = useStripeShop(engine);
  const statusOf = async (id: string) => (await shop.api.get(`/transaction/${id}/`)).body.status as string;
  const salesOf = async (id: string) => (await shop.api.get(`/sale/?transaction_id=${id}`)).body.results as { id: string; amount: number; status: string }[];
  const reconcile = () => shop.t.service.jobs.runOnce(JOB_NAMES.reconciliation);

  it('a customer who paid on Stripe’s page just before it went down: nothing is decided while it is down, and the payment is recorded once when it answers again', async () => {
    const tx = await newTransaction(shop.api);
    shop.double.holdEvents = true;
    const paid = await onCheckout(await toCheckout(shop, tx.token), 'pay');
    expect(paid.status).toBe(303);
    shop.double.unreachable = true;

    // The return cannot read the session: the page is "being checked", the payment open and unpaid.
    const returned = await fetch(paid.headers.get('location')!, { redirect: 'manual' });
    expect(returned.status).toBe(303);
    expect(returned.headers.get('location')).toBe(`/pay/${tx.token}/`);
    expect(await (await fetch(`${shop.t.url}/pay/${tx.token}/`)).text()).toContain('checking');
    expect(await statusOf(tx.id)).toBe('N');

    // Reconciliation while Stripe is down: its lookups are cut too, and nothing is recorded.
    const before = shop.double.requests.length;
    shop.clock.advance(REDIRECT_WAIT_MS + 1000);
    await reconcile();
    expect(shop.double.requests.length).toBeGreaterThan(before);
    expect(shop.double.requests.slice(before).every((r) => r.status === 0)).toBe(true);
    expect(await statusOf(tx.id)).toBe('N');
    expect(await salesOf(tx.id)).toEqual([]);
    expect((await listCalls(shop.t.service.deps.database.db, tx.id)).map((c) => c.state)).toEqual(['pending']);

    // Back: the next pass reads the completed session and records one sale; the late events change nothing.
    shop.double.unreachable = false;
    shop.clock.advance(60 * 60_000);
    await reconcile();
    expect(await statusOf(tx.id)).toBe('D');
    expect(await salesOf(tx.id)).toMatchObject([{ amount: 17, status: 'captured' }]);
    expect((await shop.double.deliverEvents()).every((d) => d.status === 204)).toBe(true);
    expect(await salesOf(tx.id)).toHaveLength(1);
  });

  it('a refund asked while Stripe is down: 202 with the sale pending and the amount held; once Stripe answers, reconciliation finds no refund and releases it, and the next refund goes through once', async () => {
    const tx = await newTransaction(shop.api);
    await fetch((await onCheckout(await toCheckout(shop, tx.token), 'pay')).headers.get('location')!, { redirect: 'manual' });
    const [sale] = await salesOf(tx.id);
    shop.double.unreachable = true;
    const asked = await shop.api.post(`/sale/${sale!.id}/refund/`, { amount: 5 }, { 'Idempotency-Key': `outage-${tx.id}` });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ status: 'pending', refunded: 0, refundable: 12 });
    shop.double.unreachable = false;
    expect([...shop.double.books.refunds.values()]).toHaveLength(0);

    shop.clock.advance(60 * 60_000);
    await reconcile();
    expect((await shop.api.get(`/sale/${sale!.id}/`)).body).toMatchObject({ status: 'captured', refunded: 0, refundable: 17 });
    const refunded = await shop.api.post(`/sale/${sale!.id}/refund/`, { amount: 5 });
    expect(refunded.status).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'partially_refunded', refunded: 5, refundable: 12 });
    expect([...shop.double.books.refunds.values()].map((r) => r.amount)).toEqual([500]);
  });

  it('down for longer than the settle window and every recheck: the call goes to attention, for a person, never decided by itself', async () => {
    const tx = await newTransaction(shop.api);
    shop.double.holdEvents = true;
    const paid = await onCheckout(await toCheckout(shop, tx.token), 'pay');
    shop.double.unreachable = true;
    await fetch(paid.headers.get('location')!, { redirect: 'manual' });
    const states = async () => (await listCalls(shop.t.service.deps.database.db, tx.id)).map((c) => c.state);
    shop.clock.advance(REDIRECT_WAIT_MS + 1000);
    let passes = 0;
    while ((await states())[0] === 'pending' && passes < 20) {
      await reconcile();
      shop.clock.advance(5 * 60_000);
      passes++;
    }
    // Asked at each recheck (six of them) before a person is called.
    expect(passes).toBeGreaterThanOrEqual(6);
    expect(await states()).toEqual(['attention']);
    expect(await statusOf(tx.id)).toBe('N');
    expect(await salesOf(tx.id)).toEqual([]);
    shop.double.unreachable = false;
    shop.double.holdEvents = false;
  });
});
