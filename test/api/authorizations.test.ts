import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { ENGINES, problemPaths, useTestService } from './harness';
import { paidTransaction, priced, SANDBOX_CARD } from './pay';
import { blockedBehind } from './lock-waits';

// Stored payment methods: made by a checkout payment with authorize: true or by POST for
// the sandbox card gateway; charged into captured sales; removed for good.

const REDIRECT_GATEWAY = '0190f5a0-0000-7000-8000-000000000002';
const card = (number: string = TEST_CARDS.approved, over: Record<string, string> = {}) => ({
  gateway: SANDBOX_CARD,
  card: { number, expiry: '12/34', cvc: '123', name: 'Ada Lovelace', ...over },
});

describe.each(ENGINES)('authorizations on %s', (engine) => {
  const svc = useTestService(engine);

  it('stores a card with only its brand, last four digits and expiry', async () => {
    const res = await svc.api.post('/authorization/', card());
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      status: 'active',
      transaction_id: null,
      gateway: SANDBOX_CARD,
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 },
      notify_url: null,
    });
    expect((await svc.api.get(`/authorization/${res.body.id}/`)).body).toEqual(res.body);
    // Neither the number nor the CVC is anywhere in the database.
    const db = svc.t.service.deps.database.db;
    const row = await db.selectFrom('authorizations').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain('4242424242424242');
    expect(stored).not.toContain('4242 4242');
    expect(stored).not.toMatch(/"123"/);
  });

  it('refuses invalid cards with a 400 naming the field, and declined ones with a 402, storing nothing', async () => {
    const before = await svc.api.count('/authorization/');
    const bad: [unknown, string][] = [
      [card('4242 4242 4242 4241'), 'card.number'],
      [card('4242'), 'card.number'],
      [card(undefined, { expiry: '01/20' }), 'card.expiry'],
      [card(undefined, { expiry: '13/30' }), 'card.expiry'],
      [card(undefined, { cvc: '12' }), 'card.cvc'],
      [card(undefined, { name: ' ' }), 'card.name'],
      [{ ...card(), gateway: REDIRECT_GATEWAY }, 'gateway'],
      [{ ...card(), gateway: '0190f5a0-0000-7000-8000-0000000000ff' }, 'gateway'],
      // Without a card is the hosted page (save-card.test.ts); a card that is not an object is refused.
      [{ gateway: SANDBOX_CARD, card: null }, 'card'],
      [{ ...card(), card: { ...card().card, pin: '1' } }, 'card.pin'],
    ];
    for (const [body, path] of bad) {
      const res = await svc.api.post('/authorization/', body);
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(problemPaths(res), res.text).toContain(path);
    }
    const declined = await svc.api.post('/authorization/', card(TEST_CARDS.declined));
    expect(declined.status).toBe(402);
    expect(declined.body.type).toBe('urn:problem:payment-declined');
    expect(await svc.api.count('/authorization/')).toBe(before);
  });

  it('is made by a checkout payment with authorize: true, beside a held sale', async () => {
    const { transaction, sale } = await paidTransaction(svc.api, priced('EUR', 12.5, { authorize: true }));
    const list = await svc.api.get(`/authorization/?transaction_id=${transaction.id}`);
    expect(list.body.count).toBe(1);
    const auth = list.body.results[0];
    expect(auth).toMatchObject({ status: 'active', transaction_id: transaction.id, card: { brand: 'visa', last4: '4242' } });
    expect(sale).toMatchObject({ authorization_id: auth.id, status: 'held', held: 12.5 });
    // A payment captured at once stores nothing.
    const direct = await paidTransaction(svc.api, priced('EUR', 3));
    expect((await svc.api.get(`/authorization/?transaction_id=${direct.transaction.id}`)).body.count).toBe(0);
  });

  it('charges into captured sales that can be refunded, in the currency asked', async () => {
    const auth = (await svc.api.post('/authorization/', card())).body;
    const res = await svc.api.post(`/authorization/${auth.id}/charge/`, { amount: 1234, currency: 'JPY', description: 'Renewal' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      status: 'captured',
      transaction_id: null,
      authorization_id: auth.id,
      currency: 'JPY',
      amount: 1234,
      captured: 1234,
      description: 'Renewal',
      card: { brand: 'visa', last4: '4242' },
    });
    expect(res.body.operations).toMatchObject([{ kind: 'charge', amount: 1234 }]);
    // The answer and the event's snapshot are built from what the charge wrote, not read
    // back: both must be the sale as the API reads it.
    expect((await svc.api.get(`/sale/${res.body.id}/`)).body).toEqual(res.body);
    const created = await svc.api.get(`/event/?type=sale.created&object_id=${res.body.id}`);
    expect(created.body.results.map((e: { data: unknown }) => e.data)).toEqual([res.body]);
    const refund = await svc.api.post(`/sale/${res.body.id}/refund/`, { amount: 234 });
    expect(refund.body).toMatchObject({ refunded: 234, status: 'partially_refunded' });
    for (const [body, path] of [
      [{ amount: 1.5, currency: 'JPY' }, 'amount'],
      [{ amount: 0, currency: 'EUR' }, 'amount'],
      [{ amount: 1, currency: 'XXX' }, 'currency'],
      [{ currency: 'EUR' }, 'amount'],
    ] as const) {
      const bad = await svc.api.post(`/authorization/${auth.id}/charge/`, body);
      expect(bad.status, bad.text).toBe(400);
      expect(problemPaths(bad)).toContain(path);
    }
  });

  it('a declined charge is a 402 and a recorded attempt, with or without an Idempotency-Key', async () => {
    const auth = (await svc.api.post('/authorization/', card(TEST_CARDS.insufficientFunds))).body;
    expect(auth.card.last4).toBe('9995');
    const res = await svc.api.post(`/authorization/${auth.id}/charge/`, { amount: 10, currency: 'EUR' });
    expect(res.status).toBe(402);
    expect(problemPaths(res)).toEqual([]);
    expect(res.body.detail).toMatch(/insufficient_funds/);
    const keyed = await svc.api.post(`/authorization/${auth.id}/charge/`, { amount: 11, currency: 'EUR' }, { 'idempotency-key': `k-${auth.id}` });
    expect(keyed.status).toBe(402);
    const replay = await svc.api.post(`/authorization/${auth.id}/charge/`, { amount: 11, currency: 'EUR' }, { 'idempotency-key': `k-${auth.id}` });
    expect(replay.status).toBe(402);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // The same problem, named by the request that replayed it.
    expect({ ...replay.body, request_id: '' }).toEqual({ ...keyed.body, request_id: '' });
    expect(replay.body.request_id).toBe(replay.headers.get('x-request-id'));

    const sales = (await svc.api.get(`/sale/?authorization_id=${auth.id}`)).body;
    expect(sales.count).toBe(2);
    for (const sale of sales.results) {
      expect(sale).toMatchObject({ status: 'declined', failure: 'insufficient_funds', captured: 0, held: 0 });
      expect(res.body.detail + keyed.body.detail).toContain(sale.id);
      expect((await svc.api.request('POST', `/sale/${sale.id}/refund/`)).status).toBe(409);
    }
    expect((await svc.api.get(`/authorization/${auth.id}/`)).body.status).toBe('active');
  });

  it('remove makes it unusable: charges are 409 and change nothing; a second remove is 409', async () => {
    const auth = (await svc.api.post('/authorization/', card())).body;
    const removed = await svc.api.request('POST', `/authorization/${auth.id}/remove/`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: auth.id, status: 'removed' });
    const again = await svc.api.request('POST', `/authorization/${auth.id}/remove/`);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already removed/);

    const charges = await Promise.all(
      Array.from({ length: 20 }, () => svc.api.post(`/authorization/${auth.id}/charge/`, { amount: 5, currency: 'EUR' })),
    );
    for (const c of charges) {
      expect(c.status, c.text).toBe(409);
      expect(c.body.detail).toMatch(/only an active authorization can be charged/);
    }
    expect((await svc.api.get(`/sale/?authorization_id=${auth.id}`)).body.count).toBe(0);
    expect((await svc.api.get('/authorization/?status=removed')).body.results.map((a: { id: string }) => a.id)).toContain(auth.id);
  });

  it('charges racing a remove: every charge that succeeded committed before the removal', async () => {
    const auth = (await svc.api.post('/authorization/', card())).body;
    const charge = () => svc.api.post(`/authorization/${auth.id}/charge/`, { amount: 1, currency: 'EUR' });
    const results = await Promise.all([
      ...Array.from({ length: 10 }, charge),
      svc.api.request('POST', `/authorization/${auth.id}/remove/`),
      ...Array.from({ length: 10 }, charge),
    ]);
    const remove = results[10]!;
    expect(remove.status).toBe(200);
    const charged = results.filter((r, i) => i !== 10 && r.status === 201);
    for (const r of results) expect([200, 201, 409]).toContain(r.status);
    const sales = (await svc.api.get(`/sale/?authorization_id=${auth.id}&page_size=100`)).body;
    expect(sales.count).toBe(charged.length);
    for (const s of sales.results) expect(s.created <= remove.body.updated, `sale ${s.created} after removal ${remove.body.updated}`).toBe(true);
    expect((await charge()).status).toBe(409);
  });

  it('dates a removal when it takes the authorization, not when it was asked: after a charge that held it', async () => {
    const auth = (await svc.api.post('/authorization/', card())).body;
    const db = svc.t.service.deps.database.db;
    let released = '';
    let removing: Promise<{ status: number; body: { updated: string } }> | undefined;
    // What a charge's reservation does, held open: the removal asked meanwhile must wait for it.
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('authorizations').set((eb) => ({ status: eb.ref('status') })).where('id', '=', auth.id).execute();
      removing = svc.api.request('POST', `/authorization/${auth.id}/remove/`);
      await blockedBehind(svc.t.service.deps.database, trx, removing);
      released = new Date().toISOString();
    });
    const removed = await removing!;
    expect(removed.status).toBe(200);
    expect(removed.body.updated >= released, `removed ${removed.body.updated}, lock released ${released}`).toBe(true);
  });

  it('is invisible to other environments', async () => {
    const auth = (await svc.api.post('/authorization/', card())).body;
    const other = await svc.t.newEnvironment('Other');
    expect((await other.get(`/authorization/${auth.id}/`)).status).toBe(404);
    expect((await other.post(`/authorization/${auth.id}/charge/`, { amount: 1, currency: 'EUR' })).status).toBe(404);
    expect((await other.request('POST', `/authorization/${auth.id}/remove/`)).status).toBe(404);
    expect((await svc.api.get(`/authorization/${auth.id}/`)).body.status).toBe('active');
  });
});
