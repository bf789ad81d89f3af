import { describe, expect, it, vi } from 'vitest';
import { unitsToNumber } from '../../server/domain/money';
import { SANDBOX_CARD_ID } from '../../server/payments/sandbox';
import { ENGINES, problemPaths, useTestService } from './harness';
import { paidTransaction, priced } from './pay';
import { blockedBehind } from './lock-waits';
import { CASES, TOTAL } from '../usecase/sale-cases';

// Capture, refund and void through the routes: the cases of the table marked `route`, which
// reach each answer of the routes (200 with the sale, 409 naming the rule, an empty body for "all"),
// each in JPY (0 decimals), EUR (2) and KWD (3), sent in major units. Every case of the
// table, and the concurrent actions, run through the use case in the use-case tier
// (usecase/sale-actions.test.ts).

const CURRENCIES = [
  { code: 'JPY', exp: 0 },
  { code: 'EUR', exp: 2 },
  { code: 'KWD', exp: 3 },
];
const ROUTE_CASES = CASES.filter((c) => c.route);

describe.each(ENGINES)('sales on %s', (engine) => {
  const svc = useTestService(engine);

  describe.each(CURRENCIES)('in $code', ({ code, exp }) => {
    const major = (units: number) => unitsToNumber(units, exp);

    it.each(ROUTE_CASES)('$name', async ({ authorize, steps }) => {
      const { sale } = await paidTransaction(svc.api, priced(code, major(TOTAL), { authorize }));
      expect(sale).toMatchObject({ currency: code, amount: major(TOTAL), status: authorize ? 'held' : 'captured' });
      let operations = sale.operations.length;
      for (const [i, step] of steps.entries()) {
        const label = `step ${i + 1}: ${step.action} ${step.amount ?? 'all'}`;
        const path = `/sale/${sale.id}/${step.action}/`;
        const res =
          step.amount === undefined
            ? await svc.api.request('POST', path)
            : await svc.api.post(path, { amount: major(step.amount) });
        expect(res.status, `${label}: ${res.text}`).toBe(step.status);
        const [held, captured, refunded, voided, status] = step.after;
        const expected = {
          held: major(held),
          captured: major(captured),
          refunded: major(refunded),
          voided: major(voided),
          refundable: major(captured - refunded),
          status,
        };
        const read = await svc.api.get(`/sale/${sale.id}/`);
        expect(read.body, label).toMatchObject(expected);
        if (step.status === 200) {
          expect(res.body, label).toEqual(read.body);
          operations++;
          expect(read.body.operations.at(-1), label).toMatchObject({ kind: step.action });
        } else {
          problemPaths(res);
          expect(res.body.type).toBe('urn:problem:conflict');
          // The 409 names the rule that refused it.
          expect(res.body.detail, label).toMatch(
            step.action === 'refund' ? /cannot exceed the captured amount not yet refunded/ : /cannot exceed the amount still held/,
          );
        }
        expect(read.body.operations, label).toHaveLength(operations);
      }
    });

    it('refuses amounts the currency cannot express, and amounts ≤ 0, with a 400', async () => {
      const { sale } = await paidTransaction(svc.api, priced(code, major(TOTAL)));
      const tooPrecise = exp === 0 ? 1.5 : Number(`0.${'0'.repeat(exp)}1`);
      for (const amount of [tooPrecise, 0, -1, '1']) {
        const res = await svc.api.post(`/sale/${sale.id}/refund/`, { amount });
        expect(res.status, `${amount}: ${res.text}`).toBe(400);
        expect(problemPaths(res)).toEqual(['amount']);
      }
      expect((await svc.api.post(`/sale/${sale.id}/refund/`, { amount: 1, extra: true })).status).toBe(400);
      expect((await svc.api.get(`/sale/${sale.id}/`)).body).toMatchObject({ refunded: 0, status: 'captured' });
    });
  });

  it('every action goes through the sale gateway adapter, and its refusal changes nothing', async () => {
    const { sale } = await paidTransaction(svc.api, priced('EUR', 50, { authorize: true }));
    const capture = vi.spyOn(svc.t.service.deps.gateways.find(SANDBOX_CARD_ID)!, 'capture');
    try {
      const res = await svc.api.post(`/sale/${sale.id}/capture/`, { amount: 20 });
      expect(res.status).toBe(200);
      expect(capture).toHaveBeenCalledTimes(1);
      expect(capture.mock.calls[0]![0]).toMatchObject({ amount: 2000, payment: expect.stringMatching(/^sbx_/) });
      // Our idempotency reference, derived from the reservation.
      expect(capture.mock.calls[0]![0].reference).toMatch(/^gc_/);

      capture.mockResolvedValueOnce({ ok: false, reason: 'processor unavailable' });
      const refused = await svc.api.post(`/sale/${sale.id}/capture/`, { amount: 5 });
      expect(refused.status).toBe(502);
      expect(refused.body.detail).toMatch(/processor unavailable/);
      expect((await svc.api.get(`/sale/${sale.id}/`)).body).toMatchObject({ held: 30, captured: 20, status: 'partially_captured' });
      expect((await svc.api.get(`/sale/${sale.id}/`)).body.operations).toHaveLength(2);
    } finally {
      capture.mockRestore();
    }
  });

  // A refund of 3.00 being reserved, its write made by hand and held open: a refund of all
  // that is refundable, asked meanwhile, waits for it and refunds the rest. It was a 409
  // for the 100.00 it had read before the reservation ("refund of 100 EUR refused").
  it('a refund of all, asked while a partial refund is being reserved, refunds what is left', async () => {
    const { sale } = await paidTransaction(svc.api, priced('EUR', 100));
    let all: ReturnType<typeof svc.api.post> | undefined;
    await svc.t.service.deps.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('sales').set((eb) => ({ refunding: eb('refunding', '+', 300) })).where('id', '=', sale.id).execute();
      all = svc.api.post(`/sale/${sale.id}/refund/`, undefined);
      await blockedBehind(svc.t.service.deps.database, trx, all);
    });
    const answer = await all!;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ captured: 100, refunded: 97, refundable: 0 });
  });

  it('lists sales newest first with filters, the status filter agreeing with each status', async () => {
    const other = await svc.t.newEnvironment('Other');
    const a = await paidTransaction(other, priced('EUR', 10, { authorize: true }));
    const b = await paidTransaction(other, priced('EUR', 10));
    await other.post(`/sale/${b.sale.id}/refund/`, { amount: 4 });
    const c = await paidTransaction(other, priced('EUR', 10, { authorize: true }));
    await other.request('POST', `/sale/${c.sale.id}/void/`);
    const list = await other.get('/sale/');
    expect(list.body.results.map((s: { id: string }) => s.id)).toEqual([c.sale.id, b.sale.id, a.sale.id]);
    // A first page and a later one (which alone has an OFFSET, store/paging.ts pageOf), and past the last.
    for (const [page, ids] of [
      [1, [c.sale.id, b.sale.id]],
      [2, [a.sale.id]],
      [3, []],
    ] as const) {
      const paged = await other.get(`/sale/?page_size=2&page=${page}`);
      expect(paged.body.results.map((s: { id: string }) => s.id), `page ${page}`).toEqual(ids);
      expect(paged.body.count, `page ${page}`).toBe(3);
    }
    for (const [status, ids] of Object.entries({ held: [a.sale.id], partially_refunded: [b.sale.id], voided: [c.sale.id], captured: [] })) {
      const filtered = await other.get(`/sale/?status=${status}`);
      expect(filtered.body.results.map((s: { id: string }) => s.id), status).toEqual(ids);
    }
    expect((await other.get(`/sale/?transaction_id=${b.transaction.id}`)).body.count).toBe(1);
    expect((await other.get('/sale/?status=nope')).status).toBe(400);
    // Another environment's sale is not found, for reads and actions alike.
    expect((await svc.api.get(`/sale/${a.sale.id}/`)).status).toBe(404);
    expect((await svc.api.request('POST', `/sale/${a.sale.id}/capture/`)).status).toBe(404);
    expect((await other.get(`/sale/${a.sale.id}/`)).body.status).toBe('held');
  });
});
