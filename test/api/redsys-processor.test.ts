import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { REDSYS_BIZUM_ID, REDSYS_CARD_ID } from '../../server/payments/redsys/gateway';
import { PUBLIC_TEST_KEY, PUBLIC_TEST_MERCHANT } from '../../server/payments/redsys/settings';
import { encodeParameters, sign } from '../../server/payments/redsys/signature';
import { createEnvironment } from '../../server/store/environments';
import { listCalls } from '../../server/store/gateway-calls';
import { processorsForGateways } from '../../server/store/processors';
import { decideOnPage, postForm } from '../redsys/helpers';
import type { RedsysDouble } from '../redsys/server';
import { Client, ENGINES, problemPaths, startTestService, type TestService, testClock, transactionBody } from './harness';
import { redsysTerminal, startRedsysService } from './redsys-service';
import { pageCsrf } from './pay';
import { paramsOf, toRedsys as toRedsysPage } from './redsys-shop';

// Redsys connected through the processors API and wired into the service (issue 46), over
// real HTTP on both engines, against the Redsys test double on its own port (REDSYS_URL):
// connecting (the query service probed and stored), its refusals; the payment page posting
// the customer to the double's page (card and Bizum), the signed notification at the
// processor's route (valid, tampered, of another signature version, replayed), the
// customer's return that never settles by itself; then confirmations and partial refunds
// through REST, one at a time per order, kept out of our balance (the merchant's bank
// settles Redsys's money), a refund whose answer is lost made once, and a
// terminal without the query service sending it to attention.

const FORM = 'application/x-www-form-urlencoded';

describe.each(ENGINES)('Redsys wired in on %s', (engine) => {
  let t: TestService;
  let double: RedsysDouble;
  let api: Client;
  let processorId: string;
  const clock = testClock();

  beforeAll(async () => {
    ({ t, double, api, processorId } = await startRedsysService(engine, clock, 'Redsys shop', '1'));
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  const db = () => t.service.deps.database.db;
  const created = async (over: Record<string, unknown> = {}, client = api) => {
    const res = await client.post('/transaction/', transactionBody({ gateway_selected: false, return_url: 'https://shop.example/return', ...over }));
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; token: string };
  };
  const calls = (id: string) => listCalls(db(), id);
  const statusOf = async (id: string, client = api) => (await client.get(`/transaction/${id}/`)).body.status as string;
  const salesOf = async (id: string, client = api) => (await client.get(`/sale/?transaction_id=${id}`)).body.results as any[];

  const toRedsys = (token: string, gateway = REDSYS_CARD_ID) => toRedsysPage(t.url, double.url, token, gateway);
  const postEvent = (fields: Record<string, string>, id = processorId) =>
    fetch(`${t.url}/processors/${id}/events/`, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams(fields).toString() });

  describe('connecting', () => {
    it('connects a sandbox to the test terminal: both gateways offered, the query service found and stored, the key never shown', async () => {
      const shown = await api.get(`/processor/${processorId}/`);
      expect(shown.body).toMatchObject({ type: 'redsys', livemode: false, gateways: [REDSYS_CARD_ID, REDSYS_BIZUM_ID], webhook_url: `${t.url}/processors/${processorId}/events/` });
      expect(shown.text).not.toContain(PUBLIC_TEST_KEY);
      const [stored] = (await processorsForGateways(db(), api.keys.environment_id)).filter((p) => p.id === processorId);
      expect(stored).toMatchObject({ type: 'redsys', credentials: { merchant_code: PUBLIC_TEST_MERCHANT, terminal: '1', query_service: true } });
      expect(double.requests.some((r) => r.service === 'query' && r.params.order === '0000probe' && r.errorCode === 'XML0024')).toBe(true);
      const gateways = (await api.get('/gateway/')).body.results as any[];
      expect(gateways.find((g) => g.id === REDSYS_CARD_ID)).toMatchObject({ code: 'redsys-card', capabilities: { hold: true, saved_cards: true } });
      expect(gateways.find((g) => g.id === REDSYS_BIZUM_ID)).toMatchObject({ code: 'redsys-bizum', currencies: ['EUR'], capabilities: { hold: false, saved_cards: false } });
    });

    it('stores a terminal without the query service as such', async () => {
      const other = await t.newEnvironment('Redsys shop without queries');
      const res = await other.post('/processor/', redsysTerminal('2'));
      expect(res.status, res.text).toBe(201);
      const [stored] = await processorsForGateways(db(), other.keys.environment_id);
      expect(stored).toMatchObject({ type: 'redsys', credentials: { terminal: '2', query_service: false } });
    });

    it('refuses bad fields by path, a second Redsys, a key or terminal Redsys refuses, another type’s change; nothing stored', async () => {
      const other = await t.newEnvironment('Redsys refusals');
      for (const [body, paths] of [
        [{ type: 'redsys' }, ['merchant_code', 'terminal', 'secret_key', 'signature_version']],
        [{ ...redsysTerminal('1'), merchant_code: '12345678901' }, ['merchant_code']],
        [{ ...redsysTerminal('1'), terminal: 'abcd' }, ['terminal']],
        [{ ...redsysTerminal('1'), secret_key: 'not base64!' }, ['secret_key']],
        [{ ...redsysTerminal('1'), secret_key: Buffer.alloc(16).toString('base64') }, ['secret_key']],
        [{ ...redsysTerminal('1'), signature_version: 'HMAC_SHA1' }, ['signature_version']],
        [{ ...redsysTerminal('1'), webhook_secret: 'whsec_FAKE' }, ['webhook_secret']],
        // Redsys refuses the signature of another key (SIS0042), and a terminal it does not know (SIS0026).
        [{ ...redsysTerminal('1'), secret_key: Buffer.from('FAKE-redsys-key-for-tests').toString('base64').slice(0, 32) }, ['secret_key']],
        [{ ...redsysTerminal('1'), terminal: '7' }, ['merchant_code', 'terminal']],
      ] as [Record<string, unknown>, string[]][]) {
        const res = await other.post('/processor/', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect([...new Set(problemPaths(res))].sort(), JSON.stringify(body)).toEqual([...paths].sort());
      }
      expect((await other.get('/processor/')).body.count).toBe(0);
      const second = await api.post('/processor/', redsysTerminal('1'));
      expect(second.status).toBe(409);
      const stripeField = await api.request('PATCH', `/processor/${processorId}/`, { body: { webhook_secret: 'whsec_FAKE0000' } });
      expect(stripeField.status).toBe(400);
      expect(problemPaths(stripeField)).toEqual(['webhook_secret']);
    });

    it('refuses the published test terminal in a live environment, naming the field, and asks Redsys nothing', async () => {
      const live = await startTestService(engine, { env: { REDSYS_URL: double.url, PROCESSOR_URLS_IN_LIVE: 'true' } });
      try {
        const client = new Client(live.url, await createEnvironment(live.service.deps.database.db, { name: 'Live shop', mode: 'live', now: new Date() }));
        const asked = double.requests.length;
        const res = await client.post('/processor/', redsysTerminal('1'));
        expect(res.status).toBe(400);
        expect(problemPaths(res).sort()).toEqual(['merchant_code', 'secret_key']);
        expect(double.requests.length).toBe(asked);
      } finally {
        await live.close();
      }
    });

    it('refuses a live connect while REDSYS_URL points at a double without PROCESSOR_URLS_IN_LIVE, and shows it on /health/ready', async () => {
      const ready = await fetch(`${t.url}/health/ready`);
      expect(await ready.json()).toMatchObject({ processor_urls: { REDSYS_URL: double.url } });
      const client = new Client(t.url, await createEnvironment(db(), { name: 'Live shop', mode: 'live', now: new Date() }));
      const res = await client.post('/processor/', { ...redsysTerminal('1'), merchant_code: '123456789', secret_key: Buffer.alloc(24, 7).toString('base64') });
      expect(res.status).toBe(409);
    });

    it('rotates the key with PATCH (checked at Redsys first) and disconnects with DELETE', async () => {
      const other = await t.newEnvironment('Redsys rotation');
      const { body } = await other.post('/processor/', redsysTerminal('1'));
      const refused = await other.request('PATCH', `/processor/${body.id}/`, { body: { secret_key: Buffer.alloc(24, 9).toString('base64') } });
      expect(refused.status).toBe(400);
      expect(problemPaths(refused)).toEqual(['secret_key']);
      const changed = await other.request('PATCH', `/processor/${body.id}/`, { body: { secret_key: PUBLIC_TEST_KEY } });
      expect(changed.status, changed.text).toBe(200);
      expect((await other.request('DELETE', `/processor/${body.id}/`)).status).toBe(204);
      const tx = await created({}, other);
      const page = await (await fetch(`${t.url}/pay/${tx.token}/`)).text();
      expect(page).not.toContain(REDSYS_CARD_ID);
    });
  });

  describe('paying by redirect', () => {
    it('card: the page posts the customer to Redsys, the signed notification marks it paid once, the return shows it', async () => {
      const tx = await created();
      const { url, fields, reference } = await toRedsys(tx.token);
      expect(url).toBe(`${double.url}/sis/realizarPago`);
      expect(paramsOf(fields)).toMatchObject({
        DS_MERCHANT_AMOUNT: '1700',
        DS_MERCHANT_CURRENCY: '978',
        DS_MERCHANT_TRANSACTIONTYPE: '0',
        DS_MERCHANT_PAYMETHODS: 'C',
        DS_MERCHANT_MERCHANTDATA: reference,
        DS_MERCHANT_MERCHANTURL: `${t.url}/processors/${processorId}/events/`,
        DS_MERCHANT_URLOK: `${t.url}/pay/${tx.token}/return/${reference}/`,
      });
      const decided = await decideOnPage(url, fields, 'approve');
      expect(double.notifications.at(-1)!.status).toBe(204);
      expect(await statusOf(tx.id)).toBe('D');
      const [sale] = await salesOf(tx.id);
      expect(sale).toMatchObject({ status: 'captured', amount: 17, gateway: REDSYS_CARD_ID });
      const back = await fetch(decided.headers.get('location')!, { redirect: 'manual' });
      expect(back.headers.get('location')).toMatch(/^https:\/\/shop\.example\/return.*status=D/);
      // The same notification again (Redsys retries): 204, nothing new.
      expect((await postEvent(double.notifications.at(-1)!.fields)).status).toBe(204);
      expect(await salesOf(tx.id)).toHaveLength(1);
    });

    it('Bizum: DS_MERCHANT_PAYMETHODS z, paid by the notification; a held transaction is not offered Bizum', async () => {
      const tx = await created();
      const { url, fields } = await toRedsys(tx.token, REDSYS_BIZUM_ID);
      expect(paramsOf(fields)).toMatchObject({ DS_MERCHANT_PAYMETHODS: 'z', DS_MERCHANT_TRANSACTIONTYPE: '0' });
      await decideOnPage(url, fields, 'approve');
      expect(await statusOf(tx.id)).toBe('D');
      expect((await salesOf(tx.id))[0]).toMatchObject({ gateway: REDSYS_BIZUM_ID });
      const held = await created({ authorize: true });
      const refused = await fetch(`${t.url}/pay/${held.token}/`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': FORM, origin: t.url },
        body: new URLSearchParams({ action: 'pay', gateway: REDSYS_BIZUM_ID, csrf: await pageCsrf(t.url, held.token) }),
      });
      expect(refused.status).toBe(400);
      expect(await calls(held.id)).toHaveLength(0);
    });

    it('declined: nothing paid, the transaction stays payable', async () => {
      const tx = await created();
      const { url, fields } = await toRedsys(tx.token);
      const decided = await decideOnPage(url, fields, 'deny');
      // The notification recorded the decline first; the customer's return shows it.
      const back = await fetch(decided.headers.get('location')!, { redirect: 'manual' });
      expect(back.headers.get('location')).toBe(`/pay/${tx.token}/?declined=1&gateway=${REDSYS_CARD_ID}`);
      expect(await statusOf(tx.id)).toBe('N');
      expect(await salesOf(tx.id)).toHaveLength(0);
      expect((await calls(tx.id)).map((c) => c.state)).toEqual(['failed']);
    });

    it('refuses a tampered notification, one of another signature version, one to an unknown processor: 400, nothing recorded', async () => {
      const tx = await created();
      const { fields, reference } = await toRedsys(tx.token);
      const order = paramsOf(fields).DS_MERCHANT_ORDER!;
      const params = { Ds_Amount: '1700', Ds_Currency: '978', Ds_Order: order, Ds_MerchantCode: PUBLIC_TEST_MERCHANT, Ds_Terminal: '1', Ds_Response: '0000', Ds_TransactionType: '0', Ds_MerchantData: reference };
      const encoded = encodeParameters(params);
      const good = { Ds_SignatureVersion: 'HMAC_SHA256_V1', Ds_MerchantParameters: encoded, Ds_Signature: sign('HMAC_SHA256_V1', PUBLIC_TEST_KEY, order, encoded) };
      const tampered = { ...good, Ds_MerchantParameters: encodeParameters({ ...params, Ds_Amount: '1' }) };
      const downgraded = { ...good, Ds_SignatureVersion: 'HMAC_SHA512_V2', Ds_Signature: sign('HMAC_SHA512_V2', PUBLIC_TEST_KEY, order, encoded) };
      expect((await postEvent(tampered)).status).toBe(400);
      expect((await postEvent(downgraded)).status).toBe(400);
      expect((await postEvent({ ...good, Ds_Signature: good.Ds_Signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) })).status).toBe(400);
      expect((await postEvent(good, '0190f5a0-0000-7000-8000-00000000dead')).status).toBe(400);
      expect((await calls(tx.id)).map((c) => c.state)).toEqual(['pending']);
      expect(await statusOf(tx.id)).toBe('N');
      // The customer's return alone, however well signed, never marks it paid: the query service says Redsys has no such payment.
      const urlok = new URL(`${t.url}/pay/${tx.token}/return/${reference}/`);
      for (const [k, v] of Object.entries(good)) urlok.searchParams.set(k, v);
      await fetch(urlok, { redirect: 'manual' });
      expect(await statusOf(tx.id)).toBe('N');
      expect((await calls(tx.id)).map((c) => c.state)).toEqual(['pending']);
      // Signed as Redsys signs it: accepted.
      expect((await postEvent(good)).status).toBe(204);
      expect(await statusOf(tx.id)).toBe('D');
    });

    it('a late success after another attempt paid takes the late-payment path: refunded at Redsys', async () => {
      const tx = await created();
      const first = await toRedsys(tx.token);
      // The customer comes back without deciding and pays with Bizum meanwhile.
      const page = await postForm(first.url, first.fields);
      expect(page.status).toBe(200);
      const second = await toRedsys(tx.token, REDSYS_BIZUM_ID);
      await decideOnPage(second.url, second.fields, 'approve');
      expect(await statusOf(tx.id)).toBe('D');
      // Then the first page, left open, is approved too.
      const session = /name="session" value="([0-9a-f]+)"/.exec(await page.text())![1]!;
      await postForm(`${double.url}/sis/double/decide`, { session, decision: 'approve' });
      expect(double.notifications.at(-1)!.status).toBe(204);
      const order = double.books.find(double.terminals[0]!, paramsOf(first.fields).DS_MERCHANT_ORDER!)!;
      expect(order.operations.map((o) => [o.type, o.amount, o.response])).toEqual([['3', 1700, '0900']]);
      expect(await salesOf(tx.id)).toHaveLength(1);
    });
  });

  describe('confirmations and refunds', () => {
    async function paid(over: Record<string, unknown> = {}) {
      const tx = await created(over);
      const { url, fields } = await toRedsys(tx.token);
      await decideOnPage(url, fields, 'approve');
      const [sale] = await salesOf(tx.id);
      return { sale, order: double.books.find(double.terminals[0]!, paramsOf(fields).DS_MERCHANT_ORDER!)! };
    }

    it('a pre-authorisation confirmed in part, the rest cancelled, then a partial refund: each once at Redsys', async () => {
      const { sale, order } = await paid({ authorize: true });
      expect(order.payment.type).toBe('1');
      const captured = await api.post(`/sale/${sale.id}/capture/`, { amount: 10 });
      expect(captured.status, captured.text).toBe(200);
      expect(captured.body).toMatchObject({ captured: 10, held: 7 });
      const released = await api.post(`/sale/${sale.id}/void/`, { amount: 7 });
      expect(released.status, released.text).toBe(200);
      const refunded = await api.post(`/sale/${sale.id}/refund/`, { amount: 4 });
      expect(refunded.status, refunded.text).toBe(200);
      expect(refunded.body).toMatchObject({ refunded: 4, refundable: 6 });
      expect(order.operations.map((o) => [o.type, o.amount, o.response])).toEqual([['2', 1000, '0900'], ['9', 700, '0400'], ['3', 400, '0900']]);
      // Over-refund: refused by our books before Redsys is asked.
      const over = await api.post(`/sale/${sale.id}/refund/`, { amount: 7 });
      expect(over.status).toBe(409);
      expect(order.operations).toHaveLength(3);
    });

    it('a Redsys sale and its refund stay out of our balance: the merchant’s bank settles them (payouts are paid from that balance)', async () => {
      const before = (await api.get('/balance/')).body;
      const { sale } = await paid();
      expect((await api.post(`/sale/${sale.id}/refund/`, { amount: 5 })).status).toBe(200);
      clock.advance(60_000);
      await t.service.jobs.runOnce(JOB_NAMES.balance);
      expect((await api.get(`/balance_transaction/?sale=${sale.id}`)).body.results).toEqual([]);
      expect((await api.get('/balance/')).body).toEqual(before);
    });

    it('a refund whose answer is lost is found by the query service, never sent twice: one refund at Redsys', async () => {
      const { sale, order } = await paid();
      double.loseNext('rest');
      const lost = await api.post(`/sale/${sale.id}/refund/`, { amount: 5 });
      // The outcome is unknown: accepted, its amount reserved, not yet refunded.
      expect(lost.status, lost.text).toBe(202);
      expect(lost.body).toMatchObject({ refunded: 0, refundable: 12 });
      expect(order.operations.map((o) => o.type)).toEqual(['3']);
      // A second refund on the same order while the first is pending is refused by the reservation (one per order, in the database): Redsys is not asked.
      const rest = () => double.requests.filter((r) => r.service === 'rest' && r.params.DS_MERCHANT_ORDER === order.order).length;
      const asked = rest();
      const meanwhile = await api.post(`/sale/${sale.id}/refund/`, { amount: 1 });
      expect(meanwhile.status, meanwhile.text).toBe(409);
      expect(rest()).toBe(asked);
      expect(order.operations).toHaveLength(1);
      clock.advance(10 * 60_000);
      await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
      expect(order.operations.map((o) => [o.type, o.amount])).toEqual([['3', 500]]);
      expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ refunded: 5 });
    });

    it('without the query service, a refund whose answer is lost goes to attention and is never sent again', async () => {
      const other = await t.newEnvironment('Redsys refunds without queries');
      expect((await other.post('/processor/', redsysTerminal('2'))).status).toBe(201);
      const tx = await created({}, other);
      const { url, fields } = await toRedsys(tx.token);
      await decideOnPage(url, fields, 'approve');
      const [sale] = await salesOf(tx.id, other);
      const order = double.books.find(double.terminals[1]!, paramsOf(fields).DS_MERCHANT_ORDER!)!;
      double.loseNext('rest');
      const lost = await other.post(`/sale/${sale.id}/refund/`, { amount: 5 });
      expect(lost.status, lost.text).toBe(202);
      clock.advance(10 * 60_000);
      await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
      expect((await listCalls(db(), sale.id)).map((c) => [c.kind, c.state])).toEqual([['refund', 'attention']]);
      expect(order.operations.map((o) => [o.type, o.amount])).toEqual([['3', 500]]);
      expect(double.requests.filter((r) => r.service === 'rest' && r.params.DS_MERCHANT_ORDER === order.order)).toHaveLength(1);
    });
  });
});
