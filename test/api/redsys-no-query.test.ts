import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { REDIRECT_WAIT_MS } from '../../server/payments/redirect';
import { REDSYS_BIZUM_ID, REDSYS_CARD_ID } from '../../server/payments/redsys/gateway';
import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import { encodeParameters, sign } from '../../server/payments/redsys/signature';
import { listCalls } from '../../server/store/gateway-calls';
import { decideOnPage, postForm } from '../redsys/helpers';
import type { RedsysDouble } from '../redsys/server';
import { type Client, ENGINES, type TestService, testClock, transactionBody } from './harness';
import { startRedsysService } from './redsys-service';
import { paramsOf, toRedsys as toRedsysPage } from './redsys-shop';

// Paying on Redsys's page through the double's terminal 2, whose bank has not enabled the
// query service (issue 46): nothing can be asked, so the signed notification alone settles
// the payment whenever it comes; the customer's return shows it being checked; after the
// redirect's wait the payment is failed (payable again, by any method), and a customer who
// leaves Redsys's page may pay another way at once. None of it goes to `attention`.

const FORM = 'application/x-www-form-urlencoded';

describe.each(ENGINES)('Redsys payments without the query service on %s', (engine) => {
  let t: TestService;
  let double: RedsysDouble;
  let api: Client;
  let processorId: string;
  const clock = testClock();

  beforeAll(async () => {
    ({ t, double, api, processorId } = await startRedsysService(engine, clock, 'Redsys shop without queries', '2'));
  });
  afterAll(async () => {
    double.holdNotifications = false;
    await t?.close();
    await double?.close();
  });

  const created = async () => {
    const res = await api.post('/transaction/', transactionBody({ gateway_selected: false, return_url: 'https://shop.example/return' }));
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; token: string };
  };
  const states = async (id: string) => (await listCalls(t.service.deps.database.db, id)).map((c) => c.state);
  const statusOf = async (id: string) => (await api.get(`/transaction/${id}/`)).body.status as string;
  const salesOf = async (id: string) => (await api.get(`/sale/?transaction_id=${id}`)).body.results as any[];
  const reconcile = () => t.service.jobs.runOnce(JOB_NAMES.reconciliation);
  const toRedsys = (token: string, gateway = REDSYS_CARD_ID) => toRedsysPage(t.url, double.url, token, gateway);
  const orderOf = (fields: Record<string, string>) => double.books.find(double.terminals[1]!, paramsOf(fields).DS_MERCHANT_ORDER!)!;
  const postEvent = (fields: Record<string, string>) =>
    fetch(`${t.url}/processors/${processorId}/events/`, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams(fields).toString() });

  it('the customer back at URLOK before the notification: checking, still waiting after the reconciliation, then paid once by the notification', async () => {
    const tx = await created();
    const { url, fields } = await toRedsys(tx.token);
    double.holdNotifications = true;
    const decided = await decideOnPage(url, fields, 'approve');
    const back = await fetch(decided.headers.get('location')!, { redirect: 'manual' });
    expect(back.headers.get('location')).toBe(`/pay/${tx.token}/`);
    expect(await (await fetch(`${t.url}/pay/${tx.token}/`)).text()).toContain('"status":"checking"');
    clock.advance(60_000);
    await reconcile();
    expect(await states(tx.id)).toEqual(['pending']);
    await double.sendNotifications();
    expect(double.notifications.at(-1)!.status).toBe(204);
    expect(await statusOf(tx.id)).toBe('D');
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', amount: 17, gateway: REDSYS_CARD_ID }]);
    expect(await states(tx.id)).toEqual(['succeeded']);
  });

  it('no notification within the redirect’s wait: failed, payable again; the notification that comes later still pays it, once', async () => {
    const tx = await created();
    const { url, fields } = await toRedsys(tx.token);
    double.holdNotifications = true;
    await decideOnPage(url, fields, 'approve');
    clock.advance(REDIRECT_WAIT_MS + 1000);
    await reconcile();
    expect(await states(tx.id)).toEqual(['failed']);
    expect(await statusOf(tx.id)).toBe('N');
    await double.sendNotifications();
    expect(double.notifications.at(-1)!.status).toBe(204);
    expect(await statusOf(tx.id)).toBe('D');
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', amount: 17, gateway: REDSYS_CARD_ID }]);
    // Redsys repeats it: nothing new.
    expect((await postEvent(double.notifications.at(-1)!.fields)).status).toBe(204);
    expect(await salesOf(tx.id)).toHaveLength(1);
    expect(orderOf(fields).operations).toEqual([]);
  });

  it('the customer leaves Redsys’s page and pays by Bizum at once; the first page approved later is reversed at Redsys', async () => {
    const tx = await created();
    const first = await toRedsys(tx.token);
    const page = await postForm(first.url, first.fields);
    expect(page.status).toBe(200);
    const second = await toRedsys(tx.token, REDSYS_BIZUM_ID);
    expect(await states(tx.id)).toEqual(['abandoned', 'pending']);
    await decideOnPage(second.url, second.fields, 'approve');
    expect(await statusOf(tx.id)).toBe('D');
    // Nothing to ask Redsys about the abandoned page: the reconciliation leaves it to the notification.
    clock.advance(60_000);
    await reconcile();
    expect(await states(tx.id)).toEqual(['abandoned', 'succeeded']);
    const session = /name="session" value="([0-9a-f]+)"/.exec(await page.text())![1]!;
    await postForm(`${double.url}/sis/double/decide`, { session, decision: 'approve' });
    expect(double.notifications.at(-1)!.status).toBe(204);
    expect(orderOf(first.fields).operations.map((o) => [o.type, o.amount, o.response])).toEqual([['3', 1700, '0900']]);
    expect(await states(tx.id)).toEqual(['reversed', 'succeeded']);
    expect(await salesOf(tx.id)).toMatchObject([{ gateway: REDSYS_BIZUM_ID, amount: 17 }]);
  });

  it('a notification whose signature does not verify: 400, nothing recorded; the one Redsys signed pays', async () => {
    const tx = await created();
    const { fields, reference } = await toRedsys(tx.token);
    const order = paramsOf(fields).DS_MERCHANT_ORDER!;
    const params = { Ds_Amount: '1700', Ds_Currency: '978', Ds_Order: order, Ds_MerchantCode: PUBLIC_TEST_MERCHANT, Ds_Terminal: '2', Ds_Response: '0000', Ds_TransactionType: '0', Ds_MerchantData: reference };
    const encoded = encodeParameters(params);
    const good = { Ds_SignatureVersion: 'HMAC_SHA256_V1', Ds_MerchantParameters: encoded, Ds_Signature: sign('HMAC_SHA256_V1', PUBLIC_TEST_KEY, order, encoded) };
    expect((await postEvent({ ...good, Ds_Signature: good.Ds_Signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) })).status).toBe(400);
    expect((await postEvent({ ...good, Ds_MerchantParameters: encodeParameters({ ...params, Ds_Amount: '1' }) })).status).toBe(400);
    expect(await states(tx.id)).toEqual(['pending']);
    expect(await statusOf(tx.id)).toBe('N');
    expect(await salesOf(tx.id)).toEqual([]);
    expect((await postEvent(good)).status).toBe(204);
    expect(await statusOf(tx.id)).toBe('D');
  });
});
