import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import type { Terminal } from '../redsys/books';
import { decideOnPage } from '../redsys/helpers';
import { signAnswer } from '../redsys/params';
import { DEFAULT_TERMINALS, type RedsysDouble, startRedsysDouble } from '../redsys/server';
import { startIsolatedService } from './database';
import { type Client, ENGINES, type TestService, testClock, transactionBody } from './harness';
import { redsysTerminal } from './redsys-service';
import { paramsOf, toRedsys } from './redsys-shop';

// A disconnected Redsys terminal keeps its payments (docs/processors.md "Rows of a
// disconnected account"), as a Stripe account does (stripe-disconnected.test.ts): after
// terminal A is disconnected and terminal B (another merchant code, terminal and key)
// connected, both gateways share an id. A's payment's notification is verified with A's key
// at A's route, B's key refused there; its refund is a REST operation signed with A's key
// and sent with A's merchant code and terminal. Over real HTTP against the Redsys double,
// which refuses a request whose signature does not verify under the terminal it names.

const FORM = 'application/x-www-form-urlencoded';
/** Terminal B: the double's own, of another merchant, under another key. */
const B: Terminal = { merchantCode: '123456789', terminal: '3', secretKey: Buffer.alloc(24, 7).toString('base64'), signatureVersion: 'HMAC_SHA256_V1', queryService: true };

describe.each(ENGINES)('Payments of a disconnected Redsys terminal on %s', (engine) => {
  let t: TestService;
  let double: RedsysDouble;
  let api: Client;
  const clock = testClock();

  beforeAll(async () => {
    double = await startRedsysDouble({ terminals: [...DEFAULT_TERMINALS, B] });
    t = await startIsolatedService(engine, { now: clock.now, env: { REDSYS_URL: double.url } });
    api = await t.newEnvironment('Redsys shop changing terminals');
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  const connect = async (body: Record<string, unknown>) => {
    const res = await api.post('/processor/', body);
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const postEvent = (processor: string, fields: Record<string, string>) =>
    fetch(`${t.url}/processors/${processor}/events/`, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams(fields).toString() });
  /** A payment approved on the double's page; its order at the double, its transaction and its form's parameters. */
  async function pay(terminal: Terminal) {
    const tx = (await api.post('/transaction/', transactionBody({ gateway_selected: false, return_url: 'https://shop.example/return' }))).body as { id: string; token: string };
    const { url, fields, reference } = await toRedsys(t.url, double.url, tx.token);
    await decideOnPage(url, fields, 'approve');
    const params = paramsOf(fields);
    return { tx, params, reference, order: double.books.find(terminal, params.DS_MERCHANT_ORDER!)! };
  }
  const saleOf = async (tx: { id: string }) => (await api.get(`/sale/?transaction_id=${tx.id}`)).body.results[0];
  /** The REST operations sent for an order: the merchant code and terminal each named, and Redsys's refusal if any. */
  const restFor = (order: string) =>
    double.requests.filter((r) => r.service === 'rest' && r.params.DS_MERCHANT_ORDER === order).map((r) => [r.params.DS_MERCHANT_MERCHANTCODE, r.params.DS_MERCHANT_TERMINAL, r.errorCode]);

  it('A’s notification is verified with A’s key after A is disconnected and B connected (B’s refused); A’s refund is signed for A’s terminal, B’s for B’s', async () => {
    const [termA] = DEFAULT_TERMINALS;
    const a = await connect(redsysTerminal('1'));
    // A's notification is held at Redsys until B is connected.
    double.holdNotifications = true;
    const ofA = await pay(termA!);
    expect(ofA.params).toMatchObject({ DS_MERCHANT_MERCHANTCODE: PUBLIC_TEST_MERCHANT, DS_MERCHANT_TERMINAL: '1' });
    expect((await api.delete(`/processor/${a}/`)).status).toBe(204);
    const b = await connect({ type: 'redsys', merchant_code: B.merchantCode, terminal: B.terminal, secret_key: B.secretKey, signature_version: B.signatureVersion });

    // What A's notification says, signed with B's key: refused at A's route, nothing recorded; and signed with A's, at B's route.
    const says = { Ds_Amount: '1700', Ds_Currency: '978', Ds_Order: ofA.order.order, Ds_MerchantCode: PUBLIC_TEST_MERCHANT, Ds_Terminal: '1', Ds_Response: '0000', Ds_TransactionType: '0', Ds_MerchantData: ofA.reference };
    expect((await postEvent(a, signAnswer(B, says, 'base64url'))).status).toBe(400);
    expect((await postEvent(b, signAnswer(termA!, says, 'base64url'))).status).toBe(400);
    expect(await saleOf(ofA.tx)).toBeUndefined();
    // Redsys's own, signed with A's key, to A's route: the payment is recorded.
    await double.sendNotifications();
    const sent = double.notifications.at(-1)!;
    expect([sent.url, sent.status]).toEqual([`${t.url}/processors/${a}/events/`, 204]);
    const saleA = await saleOf(ofA.tx);
    expect(saleA).toMatchObject({ status: 'captured', amount: 17 });

    const ofB = await pay(B);
    expect(ofB.params).toMatchObject({ DS_MERCHANT_MERCHANTCODE: B.merchantCode, DS_MERCHANT_TERMINAL: B.terminal, DS_MERCHANT_MERCHANTURL: `${t.url}/processors/${b}/events/` });
    const saleB = await saleOf(ofB.tx);
    expect(saleB.gateway).toBe(saleA.gateway);

    const refundedA = await api.post(`/sale/${saleA.id}/refund/`, { amount: 5 });
    expect(refundedA.status, refundedA.text).toBe(200);
    expect(restFor(ofA.order.order)).toEqual([[PUBLIC_TEST_MERCHANT, '1', null]]);
    expect(ofA.order.operations.map((o) => [o.type, o.amount, o.response])).toEqual([['3', 500, '0900']]);
    const refundedB = await api.post(`/sale/${saleB.id}/refund/`, { amount: 5 });
    expect(refundedB.status, refundedB.text).toBe(200);
    expect(restFor(ofB.order.order)).toEqual([[B.merchantCode, B.terminal, null]]);
    expect(ofB.order.operations.map((o) => [o.type, o.amount, o.response])).toEqual([['3', 500, '0900']]);
  });
});
