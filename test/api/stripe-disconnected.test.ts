import { describe, expect, it } from 'vitest';
import { listCalls } from '../../server/store/gateway-calls';
import { signedEvent, stripeSignature } from '../stripe/events';
import { ENGINES } from './harness';
import { paidByCheckout, stripeTestKeys, useStripeShop } from './stripe-shop';

// A disconnected Stripe account keeps its payments (docs/processors.md "Rows of a disconnected
// account"): gateway ids are per type, so after account A is disconnected and account B
// connected in the same environment, A's payment names the same gateway as B's. Its refund
// must still reach A, with A's key; B's payments are B's. Over real HTTP against the Stripe
// double, which takes any test key and logs the key of each request: the account asked.
// A refund told by webhook settles a call of the sending account only, whichever route it
// reaches: the double shares its books between keys (Stripe never would), so one account's
// endpoint can be told of the other's refund, and must change nothing.

describe.each(ENGINES)('Payments of a disconnected Stripe account on %s', (engine) => {
  const shop = useStripeShop(engine);
  /** The key of each refund request the double received for the PaymentIntent. */
  const refundKeys = (paymentIntent: string) => shop.double.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds' && r.params.payment_intent === paymentIntent).map((r) => r.key);

  /** Account B, connected by the first test after A's disconnect, with its webhook URL; each account's sale. */
  const b = stripeTestKeys();
  let bWebhookUrl = '';
  let ofA: Awaited<ReturnType<typeof paidByCheckout>>;
  let ofB: typeof ofA;

  it('a payment of account A refunds at A after A is disconnected and B connected; B’s payment refunds at B', async () => {
    const a = shop.keys;
    ofA = await paidByCheckout(shop);
    expect((await shop.api.delete(`/processor/${shop.processorId}/`)).status).toBe(204);
    const connected = await shop.api.post('/processor/', { type: 'stripe', ...b });
    expect(connected.status, connected.text).toBe(201);
    bWebhookUrl = connected.body.webhook_url;
    shop.double.addWebhookEndpoint(bWebhookUrl, b.webhook_secret);
    ofB = await paidByCheckout(shop);
    expect(ofB.sale.gateway).toBe(ofA.sale.gateway);

    const refundedA = await shop.api.post(`/sale/${ofA.sale.id}/refund/`, { amount: 5 });
    expect(refundedA.status, refundedA.text).toBe(200);
    expect(refundKeys(ofA.paymentIntent)).toEqual([a.secret_key]);
    const refundedB = await shop.api.post(`/sale/${ofB.sale.id}/refund/`, { amount: 5 });
    expect(refundedB.status, refundedB.text).toBe(200);
    expect(refundKeys(ofB.paymentIntent)).toEqual([b.secret_key]);
  });

  /** A refund of the sale made at Stripe whose answer was lost (202): its call pending until an event or a lookup settles it. */
  async function lostRefund(sale: string) {
    shop.double.failNext({ method: 'POST', path: /^\/v1\/refunds$/ }, { acted: true });
    const lost = await shop.api.post(`/sale/${sale}/refund/`, { amount: 3 });
    expect(lost.status, lost.text).toBe(202);
    return (await listCalls(shop.t.service.deps.database.db, sale)).find((c) => c.kind === 'refund' && c.state === 'pending')!;
  }
  /** One `charge.refunded` body, posted to a route signed with that route's secret, as Stripe signs each endpoint's deliveries. */
  const deliver = async (url: string, secret: string, payload: string) => {
    const signature = stripeSignature(payload, secret, Math.floor(Date.now() / 1000));
    return (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload })).status;
  };
  const chargeRefunded = (charge: string) => signedEvent({ type: 'charge.refunded', object: shop.double.books.charges.get(charge)!, secret: 'unused', apiVersion: '2026-10-28.endive' }).payload;
  const callState = async (id: string) => (await shop.t.service.deps.database.db.selectFrom('gateway_calls').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;
  const refunded = async (sale: string) => (await shop.api.get(`/sale/${sale}/`)).body.refunded;

  it('a refund event settles the sending account’s call only: A’s on A’s route, never on B’s; B’s on B’s route, never on A’s', async () => {
    const routes = { a: { url: shop.webhookUrl, secret: shop.keys.webhook_secret }, b: { url: bWebhookUrl, secret: b.webhook_secret } };
    shop.double.holdEvents = true;
    for (const [sale, own, other] of [
      [ofA, routes.a, routes.b],
      [ofB, routes.b, routes.a],
    ] as const) {
      const call = await lostRefund(sale.sale.id);
      const payload = chargeRefunded(sale.charge);
      // The other account's route: verified (its secret) and read again at Stripe, yet not its call.
      expect(await deliver(other.url, other.secret, payload)).toBe(204);
      expect(await callState(call.id)).toBe('pending');
      expect(await refunded(sale.sale.id)).toBe(5);
      // Its own route, the disconnected account's included: settled, once.
      expect(await deliver(own.url, own.secret, payload)).toBe(204);
      expect(await callState(call.id)).toBe('succeeded');
      expect(await refunded(sale.sale.id)).toBe(8);
    }
    // The double's own deliveries of those events, to both routes: nothing twice.
    await shop.double.deliverEvents();
    expect([await refunded(ofA.sale.id), await refunded(ofB.sale.id)]).toEqual([8, 8]);
  });

  it('a refund call that names no account (made before migration 138) is settled by the account it reaches, the connected one, B', async () => {
    shop.double.holdEvents = true;
    const call = await lostRefund(ofA.sale.id);
    await shop.t.service.deps.database.db.updateTable('gateway_calls').set({ gateway_account: null }).where('id', '=', call.id).execute();
    const payload = chargeRefunded(ofA.charge);
    expect(await deliver(shop.webhookUrl, shop.keys.webhook_secret, payload)).toBe(204);
    expect(await callState(call.id)).toBe('pending');
    expect(await deliver(bWebhookUrl, b.webhook_secret, payload)).toBe(204);
    expect(await callState(call.id)).toBe('succeeded');
    expect(await refunded(ofA.sale.id)).toBe(11);
    await shop.double.deliverEvents();
    expect(await refunded(ofA.sale.id)).toBe(11);
  });
});
