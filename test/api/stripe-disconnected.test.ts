import { describe, expect, it } from 'vitest';
import { ENGINES } from './harness';
import { paidByCheckout, stripeTestKeys, useStripeShop } from './stripe-shop';

// A disconnected Stripe account keeps its payments (docs/processors.md "Rows of a disconnected
// account"): gateway ids are per type, so after account A is disconnected and account B
// connected in the same environment, A's payment names the same gateway as B's. Its refund
// must still reach A, with A's key; B's payments are B's. Over real HTTP against the Stripe
// double, which takes any test key and logs the key of each request: the account asked.

describe.each(ENGINES)('Payments of a disconnected Stripe account on %s', (engine) => {
  const shop = useStripeShop(engine);
  /** The key of each refund request the double received for the PaymentIntent. */
  const refundKeys = (paymentIntent: string) => shop.double.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds' && r.params.payment_intent === paymentIntent).map((r) => r.key);

  it('a payment of account A refunds at A after A is disconnected and B connected; B’s payment refunds at B', async () => {
    const a = shop.keys;
    const ofA = await paidByCheckout(shop);
    expect((await shop.api.delete(`/processor/${shop.processorId}/`)).status).toBe(204);
    const b = stripeTestKeys();
    const connected = await shop.api.post('/processor/', { type: 'stripe', ...b });
    expect(connected.status, connected.text).toBe(201);
    shop.double.addWebhookEndpoint(connected.body.webhook_url, b.webhook_secret);
    const ofB = await paidByCheckout(shop);
    expect(ofB.sale.gateway).toBe(ofA.sale.gateway);

    const refundedA = await shop.api.post(`/sale/${ofA.sale.id}/refund/`, { amount: 5 });
    expect(refundedA.status, refundedA.text).toBe(200);
    expect(refundKeys(ofA.paymentIntent)).toEqual([a.secret_key]);
    const refundedB = await shop.api.post(`/sale/${ofB.sale.id}/refund/`, { amount: 5 });
    expect(refundedB.status, refundedB.text).toBe(200);
    expect(refundKeys(ofB.paymentIntent)).toEqual([b.secret_key]);
  });
});
