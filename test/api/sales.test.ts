import { describe, expect, it, vi } from 'vitest';
import { unitsToNumber } from '../../server/domain/money';
import { SANDBOX_CARD_ID } from '../../server/payments/sandbox';
import { ENGINES, problemPaths, useTestService } from './harness';
import { paidTransaction, priced } from './pay';
import { blockedBehind } from './lock-waits';

// Capture, refund and void as tables: each row starts from a fresh sale (held when the
// transaction was paid with authorize: true, captured otherwise), runs its steps and
// checks every answer and the amounts after each one. Amounts are written in minor
// units and sent in major units of JPY (0 decimals), EUR (2) and KWD (3).

const CURRENCIES = [
  { code: 'JPY', exp: 0 },
  { code: 'EUR', exp: 2 },
  { code: 'KWD', exp: 3 },
];
/** Every sale is for 10 000 minor units: ¥10000, €100.00, 10.000 KWD. */
const TOTAL = 10_000;

type Action = 'capture' | 'refund' | 'void';
interface Step {
  action: Action;
  /** Minor units; absent sends no body: "all that is possible". */
  amount?: number;
  status: 200 | 409;
  /** The amounts after the step (held, captured, refunded, voided) and the status. */
  after: [number, number, number, number, string];
}
interface Case {
  name: string;
  authorize: boolean;
  steps: Step[];
}

const CASES: Case[] = [
  { name: 'full capture of a held sale', authorize: true, steps: [{ action: 'capture', status: 200, after: [0, 10_000, 0, 0, 'captured'] }] },
  {
    name: 'partial captures, then the rest, then nothing is left',
    authorize: true,
    steps: [
      { action: 'capture', amount: 2_501, status: 200, after: [7_499, 2_501, 0, 0, 'partially_captured'] },
      { action: 'capture', amount: 2_499, status: 200, after: [5_000, 5_000, 0, 0, 'partially_captured'] },
      { action: 'capture', status: 200, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'capture', status: 409, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'capture', amount: 1, status: 409, after: [0, 10_000, 0, 0, 'captured'] },
    ],
  },
  {
    name: 'capture over the held amount',
    authorize: true,
    steps: [
      { action: 'capture', amount: 10_001, status: 409, after: [10_000, 0, 0, 0, 'held'] },
      { action: 'capture', amount: 6_000, status: 200, after: [4_000, 6_000, 0, 0, 'partially_captured'] },
      { action: 'capture', amount: 4_001, status: 409, after: [4_000, 6_000, 0, 0, 'partially_captured'] },
    ],
  },
  {
    name: 'full void, then nothing can be captured, voided or refunded',
    authorize: true,
    steps: [
      { action: 'void', status: 200, after: [0, 0, 0, 10_000, 'voided'] },
      { action: 'capture', status: 409, after: [0, 0, 0, 10_000, 'voided'] },
      { action: 'capture', amount: 1, status: 409, after: [0, 0, 0, 10_000, 'voided'] },
      { action: 'void', status: 409, after: [0, 0, 0, 10_000, 'voided'] },
      { action: 'refund', status: 409, after: [0, 0, 0, 10_000, 'voided'] },
    ],
  },
  {
    name: 'partial void, capture of the rest, over-void',
    authorize: true,
    steps: [
      { action: 'void', amount: 3_333, status: 200, after: [6_667, 0, 0, 3_333, 'held'] },
      { action: 'void', amount: 6_668, status: 409, after: [6_667, 0, 0, 3_333, 'held'] },
      { action: 'capture', status: 200, after: [0, 6_667, 0, 3_333, 'captured'] },
      { action: 'void', status: 409, after: [0, 6_667, 0, 3_333, 'captured'] },
      { action: 'refund', status: 200, after: [0, 6_667, 6_667, 3_333, 'refunded'] },
    ],
  },
  {
    name: 'refund of a held sale needs a capture first',
    authorize: true,
    steps: [
      { action: 'refund', status: 409, after: [10_000, 0, 0, 0, 'held'] },
      { action: 'refund', amount: 1, status: 409, after: [10_000, 0, 0, 0, 'held'] },
      { action: 'capture', amount: 4_000, status: 200, after: [6_000, 4_000, 0, 0, 'partially_captured'] },
      { action: 'refund', amount: 4_001, status: 409, after: [6_000, 4_000, 0, 0, 'partially_captured'] },
      { action: 'refund', status: 200, after: [6_000, 4_000, 4_000, 0, 'partially_captured'] },
      { action: 'void', status: 200, after: [0, 4_000, 4_000, 6_000, 'refunded'] },
    ],
  },
  {
    name: 'a captured sale cannot be captured or voided',
    authorize: false,
    steps: [
      { action: 'capture', status: 409, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'capture', amount: 1, status: 409, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'void', status: 409, after: [0, 10_000, 0, 0, 'captured'] },
      { action: 'void', amount: 1, status: 409, after: [0, 10_000, 0, 0, 'captured'] },
    ],
  },
  {
    name: 'full refund, then again',
    authorize: false,
    steps: [
      { action: 'refund', status: 200, after: [0, 10_000, 10_000, 0, 'refunded'] },
      { action: 'refund', status: 409, after: [0, 10_000, 10_000, 0, 'refunded'] },
      { action: 'refund', amount: 1, status: 409, after: [0, 10_000, 10_000, 0, 'refunded'] },
    ],
  },
  {
    name: 'repeated partial refunds up to the captured amount, and one unit more',
    authorize: false,
    steps: [
      { action: 'refund', amount: 1, status: 200, after: [0, 10_000, 1, 0, 'partially_refunded'] },
      { action: 'refund', amount: 4_999, status: 200, after: [0, 10_000, 5_000, 0, 'partially_refunded'] },
      { action: 'refund', amount: 5_001, status: 409, after: [0, 10_000, 5_000, 0, 'partially_refunded'] },
      { action: 'refund', amount: 5_000, status: 200, after: [0, 10_000, 10_000, 0, 'refunded'] },
      { action: 'refund', amount: 1, status: 409, after: [0, 10_000, 10_000, 0, 'refunded'] },
    ],
  },
  {
    name: 'refund over the captured amount',
    authorize: false,
    steps: [{ action: 'refund', amount: 10_001, status: 409, after: [0, 10_000, 0, 0, 'captured'] }],
  },
];

describe.each(ENGINES)('sales on %s', (engine) => {
  const svc = useTestService(engine);

  describe.each(CURRENCIES)('in $code', ({ code, exp }) => {
    const major = (units: number) => unitsToNumber(units, exp);

    it.each(CASES)('$name', async ({ authorize, steps }) => {
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

  it('20 concurrent partial refunds never refund more than was captured', async () => {
    const { sale } = await paidTransaction(svc.api, priced('EUR', 100));
    const results = await Promise.all(
      Array.from({ length: 20 }, () => svc.api.post(`/sale/${sale.id}/refund/`, { amount: 7 })),
    );
    const accepted = results.filter((r) => r.status === 200).length;
    for (const r of results) expect([200, 409], r.text).toContain(r.status);
    // 14 × 7 = 98 ≤ 100 < 105 = 15 × 7.
    expect(accepted).toBe(14);
    const read = (await svc.api.get(`/sale/${sale.id}/`)).body;
    expect(read).toMatchObject({ captured: 100, refunded: 98, refundable: 2, status: 'partially_refunded' });
    expect(read.operations.filter((o: { kind: string }) => o.kind === 'refund')).toHaveLength(14);
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

  it('concurrent captures and voids of one hold never move more than was held', async () => {
    const { sale } = await paidTransaction(svc.api, priced('KWD', 10, { authorize: true }));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => svc.api.post(`/sale/${sale.id}/${i % 2 ? 'void' : 'capture'}/`, { amount: 0.75 })),
    );
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBe(13); // 13 × 0.750 = 9.750 ≤ 10.000
    const read = (await svc.api.get(`/sale/${sale.id}/`)).body;
    expect(read.held).toBe(0.25);
    expect(Math.round((read.captured + read.voided) * 1000)).toBe(9750);
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
