import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { REDSYS_BIZUM_ID, REDSYS_CARD_ID } from '../../server/payments/redsys/gateway';
import { PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import { listCalls } from '../../server/store/gateway-calls';
import { getAuthorization } from '../../server/store/sales';
import { decideOnPage, signedFields } from '../redsys/helpers';
import type { RedsysDouble } from '../redsys/server';
import { type Client, ENGINES, problemPaths, type TestService, testClock } from './harness';
import { startRedsysService } from './redsys-service';
import { pageCsrf } from './pay';

// Saved cards and merchant-initiated charges with Redsys (docs/processors.md "Stored cards
// and merchant-initiated charges"), end to end over real HTTP on both engines, against the
// Redsys test double on its own port (REDSYS_URL): `POST /v1/authorization/` without a card
// answers the hosted save page, whose post sends the customer to Redsys's page in a
// validation of amount 0 that asks to store the card; the signed notification saves it
// (its identifier and network transaction id as the authorization's reference); then
// charges by REST as merchant-initiated (the API's charge, declined, lost and sent again,
// a subscription's periods), each checked on the double's request log and books. Bizum
// keeps no cards.

const FORM = 'application/x-www-form-urlencoded';
const SAVED = 'https://shop.example/saved';
const DAY = 24 * 3600_000;

describe.each(ENGINES)('Redsys saved cards on %s', (engine) => {
  let t: TestService;
  let double: RedsysDouble;
  let api: Client;
  let processorId: string;
  const clock = testClock();

  beforeAll(async () => {
    ({ t, double, api, processorId } = await startRedsysService(engine, clock, 'Redsys cards shop', '1'));
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  const db = () => t.service.deps.database.db;
  const paramsOf = (fields: Record<string, string>) => JSON.parse(Buffer.from(fields.Ds_MerchantParameters!, 'base64').toString('utf8')) as Record<string, string>;
  const mits = (identifier: string) => double.requests.filter((r) => r.service === 'rest' && r.params.DS_MERCHANT_IDENTIFIER === identifier);

  async function saveRequest() {
    const res = await api.post('/authorization/', { gateway: REDSYS_CARD_ID, return_url: SAVED });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending' });
    return res.body as { id: string; token: string; url: string };
  }

  /** The save page's post without JavaScript, then its challenge route's form that posts the customer to Redsys. */
  async function toRedsys(token: string): Promise<{ url: string; fields: Record<string, string>; reference: string }> {
    const started = await fetch(`${t.url}/pay/${token}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': FORM, origin: t.url },
      body: new URLSearchParams({ action: 'pay', gateway: REDSYS_CARD_ID, csrf: await pageCsrf(t.url, token) }),
    });
    expect(started.status, await started.clone().text()).toBe(303);
    expect(started.headers.get('location')).toBe(`/pay/${token}/challenge/`);
    const page = await fetch(new URL(started.headers.get('location')!, t.url));
    const html = await page.text();
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${double.url}`);
    const url = /<form method="post" action="([^"]+)" id="redirect">/.exec(html)![1]!;
    const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
    const reference = paramsOf(fields).DS_MERCHANT_MERCHANTDATA!;
    return { url, fields, reference };
  }

  /** A card saved on the double's page; the authorization and its stored card at the double. */
  async function saved() {
    const request = await saveRequest();
    const { url, fields } = await toRedsys(request.token);
    await decideOnPage(url, fields, 'approve');
    const authorization = (await api.get(`/authorization/${request.id}/`)).body;
    expect(authorization).toMatchObject({ status: 'active' });
    const [order, currency, identifier, cofTxnid] = (await getAuthorization(db(), null, request.id))!.gateway_reference.split(':');
    return { authorization, order: order!, currency: currency!, identifier: identifier!, cofTxnid: cofTxnid! };
  }

  it('saves a card on Redsys’s page: a validation of amount 0 that asks Redsys to store it, the signed notification saving it once', async () => {
    const request = await saveRequest();
    const { url, fields, reference } = await toRedsys(request.token);
    expect(url).toBe(`${double.url}/sis/realizarPago`);
    const [call] = (await listCalls(db(), request.id)).filter((c) => c.kind === 'store');
    expect(reference).toBe(call!.reference);
    expect(paramsOf(fields)).toMatchObject({
      DS_MERCHANT_AMOUNT: '0',
      DS_MERCHANT_CURRENCY: '978',
      DS_MERCHANT_TRANSACTIONTYPE: '0',
      DS_MERCHANT_PAYMETHODS: 'C',
      DS_MERCHANT_IDENTIFIER: 'REQUIRED',
      DS_MERCHANT_COF_INI: 'S',
      DS_MERCHANT_COF_TYPE: 'C',
      DS_MERCHANT_MERCHANTURL: `${t.url}/processors/${processorId}/events/`,
      DS_MERCHANT_URLOK: `${t.url}/pay/${request.token}/return/${reference}/`,
    });
    expect((await api.get(`/authorization/${request.id}/`)).body).toMatchObject({ status: 'requires_action' });

    const decided = await decideOnPage(url, fields, 'approve');
    expect(double.notifications.at(-1)!.status).toBe(204);
    const order = paramsOf(fields).DS_MERCHANT_ORDER!;
    const stored = double.books.find(double.terminals[0]!, order)!.stored!;
    const authorization = (await api.get(`/authorization/${request.id}/`)).body;
    expect(authorization).toMatchObject({ status: 'active', card: { last4: double.books.find(double.terminals[0]!, order)!.card.slice(-4) } });
    expect((await getAuthorization(db(), null, request.id))!.gateway_reference).toBe(`${order}:978:${stored.identifier}:${stored.cofTxnid}`);
    // The customer's return finds it saved and goes back to the shop; the notification again changes nothing.
    const back = await fetch(decided.headers.get('location')!, { redirect: 'manual' });
    expect(back.headers.get('location')).toBe(SAVED);
    const stores = async () => (await listCalls(db(), request.id)).filter((c) => c.kind === 'store').map((c) => c.state);
    expect(await stores()).toEqual(['failed', 'succeeded']);
    const again = await fetch(`${t.url}/processors/${processorId}/events/`, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams(double.notifications.at(-1)!.fields).toString() });
    expect(again.status).toBe(204);
    expect(await stores()).toEqual(['failed', 'succeeded']);
    // A card number is never taken for Redsys.
    const raw = await api.post('/authorization/', { gateway: REDSYS_CARD_ID, card: { number: '4548 8120 4940 0004', expiry: '12/34', cvc: '123', name: 'Ada' } });
    expect(raw.status).toBe(400);
    expect(problemPaths(raw)).toEqual(['card']);
  });

  it('a card denied on Redsys’s page is not saved: the page takes another, and the next one is saved', async () => {
    const request = await saveRequest();
    const first = await toRedsys(request.token);
    const denied = await decideOnPage(first.url, first.fields, 'deny');
    expect(double.notifications.at(-1)!.status).toBe(204);
    expect((await api.get(`/authorization/${request.id}/`)).body).toMatchObject({ status: 'pending', card: null });
    const back = await fetch(denied.headers.get('location')!, { redirect: 'manual' });
    expect(back.headers.get('location')).toBe(`/pay/${request.token}/?result=error.saveDeclined`);
    const second = await toRedsys(request.token);
    expect(second.reference).not.toBe(first.reference);
    await decideOnPage(second.url, second.fields, 'approve');
    expect((await api.get(`/authorization/${request.id}/`)).body).toMatchObject({ status: 'active' });
  });

  it('a customer back before the notification sees the card being checked; the notification then saves it', async () => {
    const request = await saveRequest();
    const { url, fields } = await toRedsys(request.token);
    // The merchant URL unreachable for now: Redsys's notification is kept back, and posted later.
    const params = paramsOf(fields);
    const held = { ...params, DS_MERCHANT_MERCHANTURL: 'http://127.0.0.1:9/unreachable' };
    const decided = await decideOnPage(url, signedFields(held), 'approve');
    const early = await fetch(decided.headers.get('location')!, { redirect: 'manual' });
    expect(early.status).toBe(200);
    expect(await early.text()).toContain('We are still checking your card with the provider.');
    expect((await api.get(`/authorization/${request.id}/`)).body).toMatchObject({ status: 'requires_action' });
    const note = double.notifications.at(-1)!;
    const posted = await fetch(`${t.url}/processors/${processorId}/events/`, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams(note.fields).toString() });
    expect(posted.status).toBe(204);
    expect((await api.get(`/authorization/${request.id}/`)).body).toMatchObject({ status: 'active' });
  });

  it('charges a saved card twice by REST as merchant-initiated: two payments at Redsys with the MIT fields', async () => {
    const { authorization, identifier, cofTxnid } = await saved();
    const first = await api.post(`/authorization/${authorization.id}/charge/`, { amount: 12.5, currency: 'EUR', description: 'March box' });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ status: 'captured', amount: 12.5, gateway: REDSYS_CARD_ID, authentication: { status: 'exempt', method: 'merchant_initiated' } });
    const second = await api.post(`/authorization/${authorization.id}/charge/`, { amount: 3, currency: 'EUR' });
    expect(second.status, second.text).toBe(201);
    const charges = (await listCalls(db(), authorization.id)).filter((c) => c.kind === 'charge');
    expect(mits(identifier).map((r) => [r.params, r.errorCode])).toEqual(
      charges.map((c, i) => [
        {
          DS_MERCHANT_AMOUNT: ['1250', '300'][i],
          DS_MERCHANT_ORDER: expect.stringMatching(/^\d{4}[A-Za-z0-9]{8}$/),
          DS_MERCHANT_MERCHANTCODE: PUBLIC_TEST_MERCHANT,
          DS_MERCHANT_CURRENCY: '978',
          DS_MERCHANT_TRANSACTIONTYPE: '0',
          DS_MERCHANT_TERMINAL: '1',
          DS_MERCHANT_MERCHANTDATA: c.reference,
          DS_MERCHANT_IDENTIFIER: identifier,
          DS_MERCHANT_COF_INI: 'N',
          DS_MERCHANT_COF_TYPE: 'C',
          DS_MERCHANT_COF_TXNID: cofTxnid,
          DS_MERCHANT_EXCEP_SCA: 'MIT',
          DS_MERCHANT_DIRECTPAYMENT: 'true',
        },
        null,
      ]),
    );
    const payments = [...double.books.orders.values()].filter((o) => charges.some((c) => c.reference === o.payment.merchantData));
    expect(payments.map((o) => [o.payment.type, o.payment.amount, o.payment.response])).toEqual([
      ['0', 1250, '0000'],
      ['0', 300, '0000'],
    ]);
  });

  it('a charge the issuer declines: 402, a declined sale, nothing captured at Redsys', async () => {
    const { authorization, identifier } = await saved();
    double.declineNextCharge();
    const charged = await api.post(`/authorization/${authorization.id}/charge/`, { amount: 20, currency: 'EUR' });
    expect(charged.status, charged.text).toBe(402);
    const [call] = (await listCalls(db(), authorization.id)).filter((c) => c.kind === 'charge');
    expect(call!.state).toBe('failed');
    const sales = (await api.get('/sale/?page_size=100')).body.results as any[];
    expect(sales.filter((s) => s.authorization_id === authorization.id)).toMatchObject([{ status: 'declined', amount: 20 }]);
    expect(mits(identifier)).toHaveLength(1);
    const payment = [...double.books.orders.values()].find((o) => o.payment.merchantData === call!.reference)!.payment;
    expect(payment).toMatchObject({ amount: 2000, response: '0190' });
  });

  it('a charge whose answer is lost: pending, then found by the query service; one payment at Redsys', async () => {
    const { authorization, identifier } = await saved();
    double.loseNext('rest');
    const lost = await api.post(`/authorization/${authorization.id}/charge/`, { amount: 7, currency: 'EUR' });
    expect(lost.status, lost.text).toBe(202);
    expect(lost.body).toMatchObject({ status: 'pending' });
    clock.advance(10 * 60_000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect((await api.get(`/sale/${lost.body.id}/`)).body).toMatchObject({ status: 'captured', amount: 7 });
    const [call] = (await listCalls(db(), authorization.id)).filter((c) => c.kind === 'charge');
    expect(mits(identifier).map((r) => [r.params.DS_MERCHANT_MERCHANTDATA, r.lost])).toEqual([[call!.reference, true]]);
    expect([...double.books.orders.values()].filter((o) => o.payment.merchantData === call!.reference)).toHaveLength(1);
  });

  it('a charge sent again after its answer was lost meets SIS0051, and the query’s same amount and currency makes it paid: one payment at Redsys', async () => {
    const { authorization, identifier } = await saved();
    const key = `redsys-resend-${engine}`;
    const charge = () => api.request('POST', `/authorization/${authorization.id}/charge/`, { body: { amount: 9, currency: 'EUR' }, headers: { 'Idempotency-Key': key } });
    double.loseNext('rest');
    expect((await charge()).status).toBe(202);
    const [call] = (await listCalls(db(), authorization.id)).filter((c) => c.kind === 'charge');
    // As a process killed while the charge was at Redsys leaves it: pending, never marked unknown; its claim then runs out.
    await db().updateTable('gateway_calls').set({ unknown_since: null }).where('id', '=', call!.id).execute();
    clock.advance(10 * 60_000);
    const resent = await charge();
    expect(resent.status, resent.text).toBe(201);
    expect(resent.body).toMatchObject({ status: 'captured', amount: 9 });
    expect(mits(identifier).map((r) => [r.params.DS_MERCHANT_MERCHANTDATA, r.params.DS_MERCHANT_AMOUNT, r.lost, r.errorCode])).toEqual([
      [call!.reference, '900', true, null],
      [call!.reference, '900', false, 'SIS0051'],
    ]);
    const queried = double.requests.filter((r) => r.service === 'query' && r.params.order === mits(identifier)[0]!.params.DS_MERCHANT_ORDER);
    expect(queried.length).toBeGreaterThan(0);
    expect([...double.books.orders.values()].filter((o) => o.payment.merchantData === call!.reference)).toHaveLength(1);
  });

  it('a charge sent again meets SIS0051, but the query shows another amount on its order: not believed, attention; nothing sent a third time', async () => {
    const { authorization, identifier } = await saved();
    const key = `redsys-resend-other-${engine}`;
    const charge = () => api.request('POST', `/authorization/${authorization.id}/charge/`, { body: { amount: 11, currency: 'EUR' }, headers: { 'Idempotency-Key': key } });
    double.loseNext('rest');
    expect((await charge()).status).toBe(202);
    const [call] = (await listCalls(db(), authorization.id)).filter((c) => c.kind === 'charge');
    await db().updateTable('gateway_calls').set({ unknown_since: null }).where('id', '=', call!.id).execute();
    // What Redsys holds on that order is not what we sent (another payment took the number).
    const order = mits(identifier)[0]!.params.DS_MERCHANT_ORDER!;
    double.books.find(double.terminals[0]!, order)!.payment.amount = 1100 - 1;
    clock.advance(10 * 60_000);
    const resent = await charge();
    expect(resent.status, resent.text).toBe(202);
    expect(mits(identifier).map((r) => r.errorCode)).toEqual([null, 'SIS0051']);
    clock.advance(10 * 60_000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect((await listCalls(db(), authorization.id)).filter((c) => c.kind === 'charge').map((c) => c.state)).toEqual(['attention']);
    expect((await api.get(`/sale/${resent.body.id}/`)).body).toMatchObject({ status: 'pending' });
    expect(mits(identifier)).toHaveLength(2);
  });

  it('charges a subscription’s two periods on the saved card, each once, as merchant-initiated', async () => {
    const { authorization, identifier } = await saved();
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
    const renewals = mits(identifier);
    expect(renewals.map((r) => [r.params.DS_MERCHANT_MERCHANTDATA?.replace(/:attempt:\d+$/, ''), r.params.DS_MERCHANT_AMOUNT, r.params.DS_MERCHANT_EXCEP_SCA, r.errorCode])).toEqual([
      [`subscription:${sub.body.id}:period:1`, '999', 'MIT', null],
      [`subscription:${sub.body.id}:period:2`, '999', 'MIT', null],
    ]);
    expect(new Set(renewals.map((r) => r.params.DS_MERCHANT_ORDER)).size).toBe(2);
  });

  it('Bizum keeps no cards: not offered for saving, and refused by the API naming the gateway', async () => {
    const gateways = (await api.get('/gateway/')).body.results as any[];
    expect(gateways.find((g) => g.id === REDSYS_CARD_ID)).toMatchObject({ capabilities: { saved_cards: true } });
    expect(gateways.find((g) => g.id === REDSYS_BIZUM_ID)).toMatchObject({ capabilities: { saved_cards: false } });
    const asked = double.requests.length;
    const refused = await api.post('/authorization/', { gateway: REDSYS_BIZUM_ID, return_url: SAVED });
    expect(refused.status).toBe(400);
    expect(problemPaths(refused)).toEqual(['gateway']);
    expect(double.requests.length).toBe(asked);
  });
});
