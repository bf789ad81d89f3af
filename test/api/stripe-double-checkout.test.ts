import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StripeDouble, startStripeDouble } from '../stripe/server';

// Contract tests of the double's Checkout Sessions and its hosted page, through the official
// SDK and plain HTTP as a browser sends it: each with a request the double must refuse as
// Stripe refuses it (an unknown parameter, a reused Idempotency-Key with another body,
// expiring a session that is complete), so that a connector passing against the double
// passes for a reason.

const API_VERSION = '2026-10-28.endive';
const FORM = 'application/x-www-form-urlencoded';
let double: StripeDouble;
let stripe: Stripe;

/** The SDK's error of a call the double must refuse. */
async function refusal(call: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(Stripe.errors.StripeError);
    return error as Stripe.errors.StripeError;
  }
  return expect.unreachable('the double must refuse it');
}

const params = (reference: string, over: Partial<Stripe.Checkout.SessionCreateParams> = {}): Stripe.Checkout.SessionCreateParams => ({
  mode: 'payment',
  line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: 1250, product_data: { name: 'Payment' } } }],
  allowed_payment_method_types: ['card'],
  payment_intent_data: { metadata: { reference } },
  metadata: { reference },
  client_reference_id: reference,
  success_url: 'https://shop.example/back',
  cancel_url: 'https://shop.example/back?checkout=cancelled',
  ...over,
});

const press = (url: string, action: string) => fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM }, body: new URLSearchParams({ action }) });

beforeAll(async () => {
  double = await startStripeDouble();
  const url = new URL(double.url);
  stripe = new Stripe('sk_test_checkout', { apiVersion: API_VERSION, host: url.hostname, port: url.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
});
afterAll(() => double.close());

describe('the Stripe double: Checkout Sessions', () => {
  it('creates an open session on its own page, with the total and our reference; refuses an unknown parameter and a missing line', async () => {
    const session = await stripe.checkout.sessions.create(params('gc_contract_1'), { idempotencyKey: 'gc_contract_1' });
    expect(session).toMatchObject({ object: 'checkout.session', status: 'open', payment_status: 'unpaid', amount_total: 1250, currency: 'eur', client_reference_id: 'gc_contract_1', payment_intent: null });
    expect(session.url).toBe(`${double.url}/c/pay/${session.id}`);
    expect((await stripe.checkout.sessions.retrieve(session.id)).id).toBe(session.id);
    expect((await stripe.checkout.sessions.list({ status: 'open', limit: 100 })).data.map((s) => s.id)).toContain(session.id);

    const unknown = await refusal(stripe.checkout.sessions.create({ ...params('gc_contract_2'), payment_method_types: ['card'] } as Stripe.Checkout.SessionCreateParams));
    expect(unknown).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError', code: 'parameter_unknown', param: 'payment_method_types' });
    const nested = await refusal(stripe.checkout.sessions.create(params('gc_contract_2', { payment_intent_data: { metadata: { reference: 'x' }, capture_method: 'manual', transfer_group: 'g' } })));
    expect(nested).toMatchObject({ code: 'parameter_unknown', param: 'payment_intent_data[transfer_group]' });
    const empty = await refusal(stripe.checkout.sessions.create(params('gc_contract_2', { line_items: [] })));
    expect(empty.statusCode).toBe(400);
  });

  it('a reused Idempotency-Key: the same body replays the session, another body is refused', async () => {
    const first = await stripe.checkout.sessions.create(params('gc_contract_3'), { idempotencyKey: 'gc_contract_3' });
    const again = await stripe.checkout.sessions.create(params('gc_contract_3'), { idempotencyKey: 'gc_contract_3' });
    expect(again.id).toBe(first.id);
    const other = await refusal(stripe.checkout.sessions.create(params('gc_contract_3', { success_url: 'https://elsewhere.example/' }), { idempotencyKey: 'gc_contract_3' }));
    expect(other).toMatchObject({ statusCode: 400, type: 'StripeIdempotencyError' });
  });

  it('the hosted page: approved pays and sends the customer to success_url; a decline stays; an expired session takes nothing; a complete one cannot be expired', async () => {
    const session = await stripe.checkout.sessions.create(params('gc_contract_4', { payment_intent_data: { metadata: { reference: 'gc_contract_4' }, capture_method: 'manual' } }));
    const page = await fetch(session.url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Pay 12.50 EUR');
    const declined = await press(session.url!, 'decline');
    expect(declined.status).toBe(200);
    expect(await declined.text()).toContain('Your card was declined.');
    const paid = await press(session.url!, 'pay');
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('https://shop.example/back');
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent.latest_charge'] });
    // A manual capture only holds the funds: complete, not paid yet.
    expect(done).toMatchObject({ status: 'complete', payment_status: 'unpaid' });
    expect(done.payment_intent).toMatchObject({ status: 'requires_capture', amount_capturable: 1250, metadata: { reference: 'gc_contract_4' } });

    const expire = await refusal(stripe.checkout.sessions.expire(session.id));
    expect(expire).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' });
    expect(expire.message).toMatch(/status of "complete"/);

    const open = await stripe.checkout.sessions.create(params('gc_contract_5'));
    expect(await stripe.checkout.sessions.expire(open.id)).toMatchObject({ status: 'expired', url: null });
    expect(await (await press(open.url!, 'pay')).text()).toContain('This Checkout Session is expired.');
    expect((await press(open.url!, 'nonsense')).status).toBe(400);
  });

  it('a card session takes the statement descriptor as payment_intent_data[statement_descriptor_suffix] and its PaymentIntent carries it; statement_descriptor and a bad suffix are refused', async () => {
    const data = (over: Stripe.Checkout.SessionCreateParams.PaymentIntentData) => params('gc_contract_6', { payment_intent_data: { metadata: { reference: 'gc_contract_6' }, ...over } });
    const session = await stripe.checkout.sessions.create(data({ statement_descriptor_suffix: 'ORDER 42' }));
    expect((await press(session.url!, 'pay')).status).toBe(303);
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent'] });
    expect(done.payment_intent).toMatchObject({ status: 'succeeded', statement_descriptor_suffix: 'ORDER 42' });

    const card = await refusal(stripe.checkout.sessions.create(data({ statement_descriptor: 'SHOP EXAMPLE' })));
    expect(card).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError', param: 'payment_intent_data[statement_descriptor]' });
    for (const suffix of ['A'.repeat(23), 'SHOP "QUOTED"', '12345']) {
      expect(await refusal(stripe.checkout.sessions.create(data({ statement_descriptor_suffix: suffix }))), suffix).toMatchObject({ statusCode: 400, param: 'payment_intent_data[statement_descriptor_suffix]' });
    }
  });

  it('signed events to a registered endpoint: checkout.session.completed and the PaymentIntent’s, held until delivered when asked', async () => {
    const received: { type: string; signature: string }[] = [];
    const endpoint = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ type: (JSON.parse(body) as { type: string }).type, signature: String(req.headers['stripe-signature']) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      const secret = 'whsec_contract';
      double.addWebhookEndpoint(`http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/`, secret);
      const session = await stripe.checkout.sessions.create(params('gc_contract_6'));
      double.holdEvents = true;
      expect((await press(session.url!, '3ds_complete')).status).toBe(303);
      expect(received).toHaveLength(0);
      const delivered = await double.deliverEvents();
      expect(delivered.map((d) => [d.type, d.status])).toEqual([
        ['checkout.session.completed', 204],
        ['payment_intent.succeeded', 204],
      ]);
      const event = stripe.webhooks.constructEvent(delivered[0]!.payload, received[0]!.signature, secret);
      expect(event).toMatchObject({ type: 'checkout.session.completed', api_version: API_VERSION, data: { object: { id: session.id, status: 'complete', payment_status: 'paid' } } });
      expect(() => stripe.webhooks.constructEvent(delivered[0]!.payload, received[0]!.signature, 'whsec_other')).toThrow();
      const charge = (await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent.latest_charge'] })).payment_intent as Stripe.PaymentIntent;
      expect((charge.latest_charge as Stripe.Charge).payment_method_details?.card?.three_d_secure).toMatchObject({ result: 'authenticated', authentication_flow: 'challenge' });
      // An event's session read again by an id Stripe does not know is a 404.
      expect(await refusal(stripe.checkout.sessions.retrieve('cs_test_unknown'))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    } finally {
      endpoint.close();
    }
  });
});
