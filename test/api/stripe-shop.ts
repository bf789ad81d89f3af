import Stripe from 'stripe';
import { afterAll, beforeAll, expect } from 'vitest';
import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { listCalls } from '../../server/store/gateway-calls';
import { type Delivery, type StripeDouble, startStripeDouble } from '../stripe/server';
import { startIsolatedService } from './database';
import { type Client, type EngineName, type TestClock, type TestService, testClock, transactionBody } from './harness';
import { pageCsrf } from './pay';

// A sandbox environment with the Stripe double connected through the processors API (its
// webhook endpoint registered at the double), and the steps of a Checkout payment without
// JavaScript: the payment page's pay post, a button on the double's hosted page, the way
// back to our return route; the official SDK against the double for the refusals each test
// asserts. Shared by the Stripe tests of the service (stripe-*.test.ts). On a database of
// its own: the tests run the jobs, which take every due row, and another file's renewal
// sent to this double (or theirs to a port since reused) hangs a job run for the gateway timeout.

const FORM = 'application/x-www-form-urlencoded';

let serial = 0;
/** Keys shaped as Stripe's test keys and plainly fake, unique per call and per test worker (PostgreSQL's tests share one database). */
export const stripeTestKeys = () => {
  const n = `${process.pid}${String(++serial).padStart(4, '0')}`;
  return { secret_key: `sk_test_FAKE${'s'.repeat(40)}S${n}`, webhook_secret: `whsec_FAKE${'w'.repeat(24)}${n}`, publishable_key: `pk_test_FAKE${'p'.repeat(40)}P${n}` };
};

export interface StripeShop {
  t: TestService;
  double: StripeDouble;
  api: Client;
  keys: ReturnType<typeof stripeTestKeys>;
  processorId: string;
  webhookUrl: string;
  clock: TestClock;
}

/** Connects the double to a new environment of `t`; its events go to the processor's webhook_url. */
async function connectStripe(t: TestService, double: StripeDouble, name = 'Stripe shop'): Promise<Omit<StripeShop, 't' | 'double' | 'clock'>> {
  const api = await t.newEnvironment(name);
  const keys = stripeTestKeys();
  const connected = await api.post('/processor/', { type: 'stripe', ...keys });
  expect(connected.status, connected.text).toBe(201);
  const webhookUrl = connected.body.webhook_url as string;
  double.addWebhookEndpoint(webhookUrl, keys.webhook_secret);
  return { api, keys, processorId: connected.body.id, webhookUrl };
}

/** A service on `engine` for the enclosing describe block, with the double standing in for Stripe and one shop connected. */
export function useStripeShop(engine: EngineName, env: Record<string, string> = {}): StripeShop {
  const shop = { clock: testClock() } as StripeShop;
  beforeAll(async () => {
    shop.double = await startStripeDouble();
    shop.t = await startIsolatedService(engine, { now: shop.clock.now, env: { STRIPE_API_URL: shop.double.url, STRIPE_FILES_URL: shop.double.filesUrl, ...env } });
    Object.assign(shop, await connectStripe(shop.t, shop.double));
  });
  afterAll(async () => {
    await shop.t?.close();
    await shop.double?.close();
  });
  return shop;
}

/** A shop started by a test on its own clock rather than for a describe block: closed by `close`. */
export interface StartedStripeShop extends StripeShop {
  close(): Promise<void>;
}

export async function startStripeShop(engine: EngineName, clock: TestClock, name: string): Promise<StartedStripeShop> {
  const double = await startStripeDouble();
  const t = await startIsolatedService(engine, { now: clock.now, env: { STRIPE_API_URL: double.url, STRIPE_FILES_URL: double.filesUrl } });
  return {
    t,
    double,
    clock,
    ...(await connectStripe(t, double, name)),
    close: async () => {
      await t.close();
      await double.close();
    },
  };
}

/** The official SDK on the double, under `key`. */
export function doubleSdk(double: StripeDouble, key: string): Stripe {
  const url = new URL(double.url);
  return new Stripe(key, { apiVersion: '2026-10-28.endive', host: url.hostname, port: url.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
}

/** The SDK's error of a call that must fail. */
export async function stripeRefusal(call: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Stripe.errors.StripeError);
  return error as Stripe.errors.StripeError;
}

/** A new transaction of the shop's. */
export async function newTransaction(api: Client, over: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const res = await api.post('/transaction/', transactionBody({ gateway_selected: false, return_url: 'https://shop.example/return', ...over }));
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** The pay post without JavaScript, choosing the Stripe card: the 303 to the double's Checkout page; its URL. */
export async function toCheckout(shop: { t: { url: string }; double: { url: string } }, token: string): Promise<string> {
  const started = await fetch(`${shop.t.url}/pay/${token}/`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': FORM, origin: shop.t.url },
    body: new URLSearchParams({ action: 'pay', gateway: STRIPE_CARD_ID, csrf: await pageCsrf(shop.t.url, token) }),
  });
  expect(started.status, await started.clone().text()).toBe(303);
  const location = started.headers.get('location')!;
  expect(location).toMatch(new RegExp(`^${shop.double.url}/c/pay/cs_test_[A-Za-z0-9]+$`));
  return location;
}

/** A button on the double's Checkout page: its answer (a 303 back to us, or the page again). */
export const onCheckout = (page: string, action: string) =>
  fetch(page, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM }, body: new URLSearchParams({ action }) });

/** Follows the double's 303 to our return route; its answer. */
export async function back(answer: Response): Promise<Response> {
  expect(answer.status).toBe(303);
  return fetch(answer.headers.get('location')!, { redirect: 'manual' });
}

/** What Stripe.js does on confirmPayment, under the publishable `key`: a card PaymentMethod from the typed number, then the confirmation of the PaymentIntent of `secret`. */
export async function publishableConfirm(double: { url: string }, key: string, secret: string, number: string, returnUrl: string) {
  const post = async (path: string, fields: Record<string, string>) => {
    const res = await fetch(`${double.url}${path}`, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams({ key, ...fields }) });
    return { status: res.status, body: (await res.json()) as any, cors: res.headers.get('access-control-allow-origin') };
  };
  const method = await post('/v1/payment_methods', { type: 'card', 'card[number]': number });
  expect(method.status, JSON.stringify(method.body)).toBe(200);
  return post(`/v1/payment_intents/${secret.split('_secret_')[0]}/confirm`, { client_secret: secret, payment_method: method.body.id, return_url: returnUrl });
}

/** Posts a delivery again, as Stripe retries one (or with its body or signature changed). */
export const redeliver = (d: Delivery, over: { payload?: string; signature?: string } = {}) =>
  fetch(d.url, { method: 'POST', headers: { ...d.headers, ...(over.signature !== undefined ? { 'stripe-signature': over.signature } : {}) }, body: over.payload ?? d.payload });

/** A sale paid through Stripe Checkout (a hold with `authorize`), with its transaction, pay call and PaymentIntent at the double. */
export async function paidByCheckout(shop: StripeShop, over: Record<string, unknown> = {}) {
  const tx = await newTransaction(shop.api, over);
  const page = await toCheckout(shop, tx.token);
  expect((await back(await onCheckout(page, 'pay'))).headers.get('location')).toMatch(/status=D/);
  // Stripe's event races the customer's return; both have their answer before the sale is read.
  await shop.double.settled();
  const [call] = await listCalls(shop.t.service.deps.database.db, tx.id);
  const sale = (await shop.api.get(`/sale/?transaction_id=${tx.id}`)).body.results[0];
  const paymentIntent = shop.double.books.checkoutSessions.get(page.split('/').pop()!)!.payment_intent as string;
  const charge = shop.double.books.paymentIntents.get(paymentIntent)!.latest_charge as string;
  return { tx, sale, call: call!, paymentIntent, charge };
}
