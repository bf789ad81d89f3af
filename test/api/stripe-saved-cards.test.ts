import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { getAuthorization } from '../../server/store/sales';
import { listCalls } from '../../server/store/gateway-calls';
import type { StripeDouble } from '../stripe/server';
import { type Client, ENGINES, type TestService, testClock } from './harness';
import { back, doubleSdk, onCheckout, startStripeShop, type StartedStripeShop, stripeRefusal, toCheckout as toStripePage } from './stripe-shop';

// Saved cards and off-session charges with Stripe (docs/processors.md "Saved cards"), end
// to end over real HTTP: a sandbox environment connects the Stripe double through the
// processors API; `POST /v1/authorization/` without a card answers the hosted save page,
// whose form post (no JavaScript) makes the client's Customer (once per client and
// account) and sends the customer to the double's Checkout page in `mode=setup`; back on
// our return route the session is read again and the card (a PaymentMethod attached to
// the Customer) is saved. Then charges of it, off-session: the API's charge (paid,
// declined) and a subscription's periods. Each with a request the double must refuse.

const SAVED = 'https://shop.example/saved';
const DAY = 24 * 3600_000;

let serial = 0;

describe.each(ENGINES)('Stripe saved cards on %s', (engine) => {
  let t: TestService;
  let double: StripeDouble;
  let api: Client;
  let keys: StartedStripeShop['keys'];
  let processorId: string;
  let shop: StartedStripeShop;
  const clock = testClock();

  beforeAll(async () => {
    shop = await startStripeShop(engine, clock, 'Stripe cards shop');
    ({ t, double, api, keys } = shop);
    processorId = shop.processorId;
  });
  afterAll(() => shop?.close());

  const sdk = () => doubleSdk(double, keys.secret_key);
  const refusal = stripeRefusal;

  async function newClient(name: string): Promise<string> {
    const res = await api.post('/client/', { name, id_country: 'ES', id_number: `X${++serial}` });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  }

  /** The save page for `client`: the authorization `pending`, with its page. */
  async function saveRequest(client?: string) {
    const res = await api.post('/authorization/', { gateway: STRIPE_CARD_ID, return_url: SAVED, ...(client ? { client } : {}) });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', client: client ?? null });
    return res.body as { id: string; token: string; url: string };
  }

  const toCheckout = (token: string) => toStripePage(shop, token);
  /** A card saved on the double's page with `action`; the authorization as the API shows it. */
  async function saved(action = 'pay', client?: string) {
    const request = await saveRequest(client);
    const returned = await back(await onCheckout(await toCheckout(request.token), action));
    expect(returned.headers.get('location')).toBe(SAVED);
    return (await api.get(`/authorization/${request.id}/`)).body;
  }
  const stored = async (id: string) => (await getAuthorization(t.service.deps.database.db, null, id))!;

  it('saves a card: a Customer once per client, a setup session on Stripe’s page, the PaymentMethod attached to it and stored with its card', async () => {
    const client = await newClient('Ada');
    const request = await saveRequest(client);
    const customersBefore = double.books.customers.size;
    const page = await toCheckout(request.token);
    expect(double.books.customers.size).toBe(customersBefore + 1);
    const [call] = (await listCalls(t.service.deps.database.db, request.id)).filter((c) => c.kind === 'store');
    const create = double.requests.find((r) => r.path === '/v1/checkout/sessions' && r.idempotencyKey === call!.reference)!;
    const customer = create.params.customer as string;
    expect(double.books.customers.get(customer)).toMatchObject({ metadata: { client } });
    expect(create.params).toMatchObject({
      mode: 'setup',
      client_reference_id: call!.reference,
      metadata: { reference: call!.reference },
      setup_intent_data: { metadata: { reference: call!.reference } },
      success_url: `${t.url}/pay/${request.token}/return/${call!.reference}/`,
      cancel_url: `${t.url}/pay/${request.token}/return/${call!.reference}/?checkout=cancelled`,
    });
    expect((await api.get(`/authorization/${request.id}/`)).body).toMatchObject({ status: 'requires_action' });

    const returned = await back(await onCheckout(page, 'pay'));
    expect(returned.headers.get('location')).toBe(SAVED);
    const authorization = (await api.get(`/authorization/${request.id}/`)).body;
    expect(authorization).toMatchObject({ status: 'active', client, card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 } });
    const pm = (await stored(request.id)).gateway_reference;
    expect(double.books.paymentMethods.get(pm)).toMatchObject({ customer });
    // Back again: nothing more (the page says it is saved).
    const again = await fetch(`${t.url}/pay/${request.token}/return/${call!.reference}/`, { redirect: 'manual' });
    expect(again.headers.get('location')).toBe(`/pay/${request.token}/`);

    // The same client's next card: the same Customer, none made.
    const second = await saved('pay', client);
    expect(double.books.customers.size).toBe(customersBefore + 1);
    expect(double.books.paymentMethods.get((await stored(second.id)).gateway_reference)).toMatchObject({ customer });
    const kept = await t.service.deps.database.db.selectFrom('processor_customers').selectAll().where('client_id', '=', client).execute();
    expect(kept).toMatchObject([{ processor_id: processorId, customer }]);

    // Refused by the double as by Stripe: a setup session with lines, and a card number posted to us is never sent.
    expect(await refusal(sdk().checkout.sessions.create({ mode: 'setup', customer, success_url: SAVED, line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: 100, product_data: { name: 'X' } } }] }))).toMatchObject({
      statusCode: 400,
      param: 'line_items',
    });
    const raw = await api.post('/authorization/', { gateway: STRIPE_CARD_ID, card: { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'Ada' } });
    expect(raw.status).toBe(400);
    expect(raw.body.errors).toMatchObject([{ path: 'card' }]);
  });

  it('while the customer is on Stripe’s page, reconciliation has nothing to take: the store call never waits pending with its claim over', async () => {
    // Every state of the store calls, as the database commits them (a trigger of this test's,
    // dropped after it): one pending with its claim over is a call reconciliation takes and
    // looks up, which expires a setup session still open, under the customer.
    const db = t.service.deps.database.db;
    const ddl =
      engine === 'postgres'
        ? [
            'create table test_store_states (state text, claimed_until text)',
            "create function test_store_state() returns trigger language plpgsql as $$ begin if new.kind = 'store' then insert into test_store_states values (new.state, new.claimed_until::text); end if; return new; end $$",
            'create trigger test_store_state after insert or update on gateway_calls for each row execute function test_store_state()',
          ]
        : [
            'create table test_store_states (state text, claimed_until text)',
            "create trigger test_store_inserted after insert on gateway_calls when new.kind = 'store' begin insert into test_store_states values (new.state, new.claimed_until); end",
            "create trigger test_store_updated after update on gateway_calls when new.kind = 'store' begin insert into test_store_states values (new.state, new.claimed_until); end",
          ];
    const undo = engine === 'postgres' ? ['drop trigger test_store_state on gateway_calls', 'drop function test_store_state', 'drop table test_store_states'] : ['drop trigger test_store_inserted', 'drop trigger test_store_updated', 'drop table test_store_states'];
    for (const statement of ddl) await sql.raw(statement).execute(db);
    try {
      const request = await saveRequest();
      const page = await toCheckout(request.token);
      const sent = clock.now().toISOString();
      const states = (await sql<{ state: string; claimed_until: string | null }>`select state, claimed_until from test_store_states`.execute(db)).rows;
      expect(states.length).toBeGreaterThan(0);
      expect(states.filter((s) => s.state === 'pending' && (s.claimed_until === null || new Date(s.claimed_until).toISOString() <= sent))).toEqual([]);
      // The call ended with the challenge, and keeps what the processor started and where the customer was sent.
      const [call] = (await listCalls(db, request.id)).filter((c) => c.kind === 'store');
      expect(call).toMatchObject({ state: 'failed', processor_id: expect.stringMatching(/^cs_/), request: { redirect: { url: page, method: 'GET' } } });
      await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
      expect(double.books.checkoutSessions.get(call!.processor_id!)).toMatchObject({ status: 'open' });
      expect((await back(await onCheckout(page, 'pay'))).headers.get('location')).toBe(SAVED);
    } finally {
      for (const statement of undo) await sql.raw(statement).execute(db);
    }
  });

  it('leaving Stripe’s page without saving: the session is expired, nothing saved, and the page takes a card again', async () => {
    const request = await saveRequest();
    const page = await toCheckout(request.token);
    const [call] = (await listCalls(t.service.deps.database.db, request.id)).filter((c) => c.kind === 'store');
    const declined = await onCheckout(page, 'decline');
    expect(await declined.text()).toContain('Your card was declined.');
    const returned = await back(await onCheckout(page, 'cancel'));
    expect(returned.headers.get('location')).toBe(`/pay/${request.token}/?result=error.saveIncomplete`);
    expect(double.books.checkoutSessions.get(call!.processor_id!)).toMatchObject({ status: 'expired' });
    expect((await api.get(`/authorization/${request.id}/`)).body).toMatchObject({ status: 'pending', card: null });
    expect((await back(await onCheckout(await toCheckout(request.token), 'pay'))).headers.get('location')).toBe(SAVED);
  });

  it('the return’s read of the session lost (no webhook either): the page says it is being checked; reconciliation saves the card, once', async () => {
    const request = await saveRequest();
    const page = await toCheckout(request.token);
    double.holdEvents = true;
    const paid = await onCheckout(page, 'pay');
    double.loseNext({ method: 'GET', path: /^\/v1\/checkout\/sessions\/cs_/ });
    const returned = await fetch(paid.headers.get('location')!, { redirect: 'manual' });
    // The save page says the card is being checked.
    expect(returned.headers.get('location')).toBe(`/pay/${request.token}/?result=error.saveChecking`);
    // In a card's words, not a payment's: nothing is being paid here.
    const shown = await (await fetch(`${t.url}${returned.headers.get('location')}`)).text();
    expect(shown).toContain('We are checking your card');
    expect(shown).not.toContain('checking your payment');
    expect(shown).not.toContain('Processing your payment');
    expect((await api.get(`/authorization/${request.id}/`)).body).toMatchObject({ card: null });
    clock.advance(11 * 60_000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect((await api.get(`/authorization/${request.id}/`)).body).toMatchObject({ status: 'active', card: { last4: '4242' } });
    expect((await api.get(`/event/?type=authorization.created&object_id=${request.id}`)).body.results).toHaveLength(1);
    double.holdEvents = false;
  });

  it('charges a saved card off-session: a PaymentIntent on its Customer, our reference as its key and in metadata; and a reused PaymentMethod without a Customer is refused', async () => {
    const authorization = await saved('pay', await newClient('Grace'));
    const pm = (await stored(authorization.id)).gateway_reference;
    const charged = await api.post(`/authorization/${authorization.id}/charge/`, { amount: 12.5, currency: 'EUR', description: 'March box' });
    expect(charged.status, charged.text).toBe(201);
    expect(charged.body).toMatchObject({ status: 'captured', amount: 12.5, card: { brand: 'visa', last4: '4242' }, authentication: { status: 'exempt', method: 'merchant_initiated' } });
    const [call] = (await listCalls(t.service.deps.database.db, authorization.id)).filter((c) => c.kind === 'charge');
    const create = double.requests.find((r) => r.path === '/v1/payment_intents' && r.idempotencyKey === call!.reference)!;
    const customer = double.books.paymentMethods.get(pm)!.customer;
    expect(create.params).toEqual({
      amount: '1250',
      currency: 'eur',
      customer,
      payment_method: pm,
      off_session: 'true',
      confirm: 'true',
      allowed_payment_method_types: ['card'],
      metadata: { reference: call!.reference },
      expand: ['latest_charge'],
    });
    const pi = [...double.books.paymentIntents.values()].find((p) => p.metadata.reference === call!.reference)!;
    expect(pi).toMatchObject({ status: 'succeeded', amount_received: 1250, customer, payment_method: pm });
    // Settled by the shop's Stripe account: Stripe's figures of the charge, in the charge's answer (docs/processors.md "What settles where").
    const bt = double.books.balanceTransactions.get(double.books.charges.get(pi.latest_charge)!.balance_transaction)!;
    expect(charged.body.processor_settlement).toMatchObject({ status: 'known', record: bt.id, currency: 'EUR', amount: 12.5, fee: bt.fee / 100, net: bt.net / 100 });
    // Charged again: the Customer keeps the card usable.
    expect((await api.post(`/authorization/${authorization.id}/charge/`, { amount: 3, currency: 'EUR' })).status).toBe(201);

    // Without its Customer Stripe refuses the PaymentMethod once it was used (the double as Stripe).
    const loose = double.paymentMethod('pm_card_visa');
    const stripe = sdk();
    const pay = () => stripe.paymentIntents.create({ amount: 1000, currency: 'eur', payment_method: loose, confirm: true, allowed_payment_method_types: ['card'] });
    await pay();
    expect(await refusal(pay())).toMatchObject({ statusCode: 400, code: 'payment_method_unexpected_state', param: 'payment_method' });
    // And a saved card charged without its Customer is refused as well.
    expect(await refusal(stripe.paymentIntents.create({ amount: 1000, currency: 'eur', payment_method: pm, confirm: true, off_session: true, allowed_payment_method_types: ['card'] }))).toMatchObject({
      statusCode: 400,
      param: 'customer',
    });
  });

  it('a declined off-session charge: 402, recorded as a declined sale, nothing captured at Stripe', async () => {
    const authorization = await saved('charge_fail');
    expect(authorization).toMatchObject({ status: 'active', card: { last4: '0341' } });
    const charged = await api.post(`/authorization/${authorization.id}/charge/`, { amount: 20, currency: 'EUR' });
    expect(charged.status, charged.text).toBe(402);
    const sales = (await api.get(`/sale/?page_size=100`)).body.results as any[];
    expect(sales.filter((s) => s.authorization_id === authorization.id)).toMatchObject([{ status: 'declined', amount: 20 }]);
    const [call] = (await listCalls(t.service.deps.database.db, authorization.id)).filter((c) => c.kind === 'charge');
    expect(call!.state).toBe('failed');
    const pi = [...double.books.paymentIntents.values()].find((p) => p.metadata.reference === call!.reference)!;
    expect(pi).toMatchObject({ status: 'requires_payment_method', amount_received: 0, last_payment_error: { code: 'card_declined' } });
  });

  it('renews a subscription off-session on the saved card, each period once', async () => {
    const authorization = await saved('pay', await newClient('Hedy'));
    const plan = await api.post('/plan/', { name: 'Box', amount: 9.99, currency: 'EUR', interval: 'month' });
    expect(plan.status, plan.text).toBe(201);
    const sub = await api.post('/subscription/', { plan: plan.body.id, authorization: authorization.id });
    expect(sub.status, sub.text).toBe(201);
    expect((await api.post(`/subscription/${sub.body.id}/start/`, undefined)).status).toBe(200);
    while ((await t.service.jobs.runOnce(JOB_NAMES.subscriptions)) > 0);
    clock.advance(32 * DAY);
    while ((await t.service.jobs.runOnce(JOB_NAMES.subscriptions)) > 0);
    const charges = (await api.get(`/subscription/${sub.body.id}/`)).body.charges as any[];
    expect(charges.map((c) => [c.period, c.status])).toEqual([
      [1, 'charged'],
      [2, 'charged'],
    ]);
    const pm = (await stored(authorization.id)).gateway_reference;
    const renewals = double.requests.filter((r) => r.path === '/v1/payment_intents' && r.params.payment_method === pm && String(r.idempotencyKey).startsWith(`subscription:${sub.body.id}:`));
    expect(renewals.map((r) => [r.params.off_session, r.params.amount, r.status])).toEqual([
      ['true', '999', 200],
      ['true', '999', 200],
    ]);
  });
});
