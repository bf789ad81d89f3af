import { describe, expect, it } from 'vitest';
import type { Db } from '../../server/store/db';
import { makeScheduledPayouts } from '../../server/payments/merchant-payouts';
import { setPricing } from '../../server/store/balance';
import { confirmNewAccount, IBANS } from './documents';
import { type Client, ENGINES, problemPaths, type Reply, testClock } from './harness';
import { checkLedger, useOwnService } from './ledger';
import { paidTransaction, payToken, priced } from './pay';
import { TEST_CARDS } from '../../server/domain/test-cards';

// Payouts of the merchant's balance to its bank account and the settlement report, on
// both engines: the settings, a manual payout and its paged lines, the daily schedule (one
// payout per currency and period, also with rounds run at once), a failed payout that
// returns the money and whose lines go into the next one, the CSV report read back. After
// every step the ledger adds up to zero and the `merchant` account holds exactly the
// balance transactions' net.

const DAY = 86_400_000;
/** A valid German IBAN whose last four digits are 0000: the sandbox payout gateway refuses it. */
const REFUSED_IBAN = 'DE94370400440532010000';
const OTHER_ENV_PAYOUT = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';

/** The ledger's invariants, and the `merchant` account against the balance transactions' net, per currency. */
async function merchantHolds(db: Db, environmentId: string) {
  await checkLedger(db, environmentId);
  const merchant = await db
    .selectFrom('ledger_entries')
    .select(['currency', (eb) => eb.fn.sum<number | string>('amount').as('total')])
    .where('environment_id', '=', environmentId)
    .where('account', '=', 'merchant')
    .groupBy('currency')
    .execute();
  const bts = await db
    .selectFrom('balance_transactions')
    .select(['currency', (eb) => eb.fn.sum<number | string>('net').as('net')])
    .where('environment_id', '=', environmentId)
    .groupBy('currency')
    .execute();
  expect(merchant.map((m) => [m.currency, Number(m.total)]).sort()).toEqual(bts.map((b) => [b.currency, Number(b.net)]).sort());
}

/** Every line of a payout, page by page through `next`. */
async function allLines(api: Client, id: string, pageSize: number) {
  const lines: { net: number; type: string; source: { object: string } }[] = [];
  let path: string | null = `/merchant_payout/${id}/?page_size=${pageSize}`;
  while (path) {
    const res: Reply = await api.get(path);
    expect(res.status, res.text).toBe(200);
    lines.push(...res.body.lines.results);
    path = res.body.lines.next ? res.body.lines.next.slice(res.body.lines.next.indexOf('/v1') + 3) : null;
  }
  return lines;
}

/** Sum of major-unit amounts in minor units, so no float drift decides a test. */
const cents = (xs: number[]) => xs.reduce((s, x) => s + Math.round(x * 100), 0);

/** The CSV report read back: its header and its rows as objects. */
function parseCsv(text: string): Record<string, string>[] {
  const [header, ...rows] = text.replace(/^\uFEFF/, '').split('\r\n').filter(Boolean);
  const columns = header!.split(',');
  return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [columns[i]!, v])));
}

describe.each(ENGINES)('payouts to the merchant on %s', (engine) => {
  const clock = testClock();
  const svc = useOwnService(engine, { now: clock.now, env: { SANDBOX_DISPUTE_DELAY_MS: '0' } });
  const db = () => svc.t.service.deps.database.db;
  const env = () => svc.api.keys.environment_id;
  const jobs = {
    balance: () => svc.t.service.jobs.runOnce('balance'),
    payouts: () => svc.t.service.jobs.runOnce('merchant-payouts'),
  };
  const available = async (api: Client) => (await api.get('/balance/')).body.available as { currency: string; amount: number }[];

  it('keeps a bank account (an IBAN checked as a client IBAN is) and a schedule', async () => {
    const { api } = svc;
    expect((await api.get('/payout_settings/')).body).toEqual({ livemode: false, iban: null, account_holder_name: null, schedule: 'manual', updated: null });
    const noIban = await api.patch('/payout_settings/', { schedule: 'daily' });
    expect(noIban.status, noIban.text).toBe(400);
    expect(problemPaths(noIban)).toEqual(['iban']);
    const badIban = await api.patch('/payout_settings/', { iban: 'ES9121000418450200051333' });
    expect(badIban.status).toBe(400);
    expect(problemPaths(badIban)).toEqual(['iban']);
    expect((await api.patch('/payout_settings/', { schedule: 'hourly' })).status).toBe(400);
    const set = await api.patch('/payout_settings/', { iban: 'es91 2100 0418 4502 0005 1332' });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ iban: IBANS.ES, schedule: 'manual' });
    expect((await api.get('/payout_settings/')).body).toEqual(set.body);
    // Another environment's settings are its own.
    const other = await svc.t.newEnvironment('Other shop');
    expect((await other.get('/payout_settings/')).body.iban).toBeNull();
  });

  it('pays out the available balance on request: its lines add up to it, paged; the job pays it once', async () => {
    const { api } = svc;
    const a = await paidTransaction(api, priced('EUR', 100));
    const b = await paidTransaction(api, priced('EUR', 20.5));
    expect(await jobs.balance()).toBe(2);
    // Still in the settlement delay: nothing to pay out.
    const early = await api.post('/merchant_payout/', { currency: 'EUR' });
    expect(early.status, early.text).toBe(409);
    clock.advance(2 * DAY);
    expect((await api.post(`/sale/${a.sale.id}/refund/`, { amount: 10.25 })).status).toBe(200);
    expect(await jobs.balance()).toBe(1);
    const c = await paidTransaction(api, priced('EUR', 7)); // pending: not in this payout
    expect(await jobs.balance()).toBe(1);
    expect(await available(api)).toEqual([{ currency: 'EUR', amount: 110.25 }]);

    const made = await api.post('/merchant_payout/', { currency: 'EUR' });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ status: 'pending', currency: 'EUR', amount: 110.25, schedule: 'manual', period: null, iban_last4: '1332', line_count: 3, failure: null });
    expect(await available(api)).toEqual([{ currency: 'EUR', amount: 0 }]);
    await merchantHolds(db(), env());
    // A second one finds nothing (the lines are taken), nor does an unknown currency.
    expect((await api.post('/merchant_payout/', { currency: 'EUR' })).status).toBe(409);
    expect(problemPaths(await api.post('/merchant_payout/', { currency: 'EURO' }))).toEqual(['currency']);

    const lines = await allLines(api, made.body.id, 2);
    expect(lines).toHaveLength(3);
    expect(cents(lines.map((l) => l.net))).toBe(11025);
    expect(lines.map((l) => l.type).sort()).toEqual(['charge', 'charge', 'refund']);
    const own = (await api.get(`/balance_transaction/?type=payout`)).body.results;
    expect(own).toMatchObject([{ type: 'payout', source: { object: 'merchant_payout', id: made.body.id }, amount: -110.25, fee: 0, net: -110.25, status: 'available' }]);

    expect(await jobs.payouts()).toBe(1);
    expect(await jobs.payouts()).toBe(0);
    const paid = (await api.get(`/merchant_payout/${made.body.id}/`)).body;
    expect(paid).toMatchObject({ status: 'paid', amount: 110.25, lines: { count: 3 } });
    const events = (await api.get(`/event/?object_id=${made.body.id}`)).body.results.map((e: { type: string }) => e.type);
    expect(events.sort()).toEqual(['merchant_payout.created', 'merchant_payout.paid']);
    expect((await api.get('/merchant_payout/?status=paid')).body.results.map((p: { id: string }) => p.id)).toEqual([made.body.id]);
    await merchantHolds(db(), env());
    void b;
    void c;
  });

  it('a settlement report as CSV: its lines add up to the payout; by payout or by days', async () => {
    const { api } = svc;
    const [payout] = (await api.get('/merchant_payout/')).body.results;
    const res = await api.get(`/report/settlement/?payout=${payout.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="?settlement-/);
    const rows = parseCsv(res.text);
    expect(Object.keys(rows[0]!)).toEqual([
      'payout_id', 'payout_created', 'payout_status', 'payout_amount', 'balance_transaction_id', 'type',
      'source_object', 'source_id', 'created', 'available_on', 'currency', 'amount', 'fee', 'net',
    ]);
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.payout_id === payout.id && r.payout_amount === '110.25' && r.source_object === 'sale')).toBe(true);
    expect(cents(rows.map((r) => Number(r.net)))).toBe(cents([payout.amount]));

    const day = clock.now().toISOString().slice(0, 10);
    const byDays = parseCsv((await api.get(`/report/settlement/?from=${day}&to=${day}`)).text);
    expect(byDays.map((r) => r.balance_transaction_id).sort()).toEqual(rows.map((r) => r.balance_transaction_id).sort());
    expect(parseCsv((await api.get('/report/settlement/?from=2020-01-01&to=2020-01-31')).text)).toEqual([]);

    for (const [query, path] of [
      ['', 'payout'],
      [`?payout=${payout.id}&from=${day}&to=${day}`, 'payout'],
      [`?from=${day}`, 'to'],
      ['?from=2026-02-30&to=2026-03-01', 'from'],
      ['?from=2026-03-02&to=2026-03-01', 'to'],
      ['?payout=nope', 'payout'],
    ] as const) {
      const bad = await api.get(`/report/settlement/${query}`);
      expect(bad.status, query).toBe(400);
      expect(problemPaths(bad), query).toContain(`query.${path}`);
    }
    // A payout that is not this environment's is a reference to nothing: 400 naming it.
    expect(problemPaths(await api.get(`/report/settlement/?payout=${OTHER_ENV_PAYOUT}`))).toEqual(['query.payout']);
    // Another environment sees neither the payout nor its report.
    const other = await svc.t.newEnvironment('Nosy shop');
    expect((await other.get(`/merchant_payout/${payout.id}/`)).status).toBe(404);
    expect(problemPaths(await other.get(`/report/settlement/?payout=${payout.id}`))).toEqual(['query.payout']);
    expect((await other.get('/merchant_payout/')).body.count).toBe(0);
  });

  it('the daily schedule pays out once per currency and day, also with rounds run at once', async () => {
    const { t } = svc;
    const api = await t.newEnvironment('Daily shop');
    const id = api.keys.environment_id;
    await setPricing(db(), id, { charge: { percentE2: 290n, fixed: 25n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 0 }, clock.now());
    await paidTransaction(api, priced('EUR', 12.5));
    await paidTransaction(api, priced('JPY', 1000));
    expect(await jobs.balance()).toBe(2);
    expect((await api.post('/merchant_payout/', { currency: 'EUR' })).status).toBe(409); // no bank account yet
    expect((await api.patch('/payout_settings/', { iban: IBANS.DE, schedule: 'daily' })).status).toBe(200);
    expect((await api.post('/merchant_payout/', { currency: 'EUR' })).status).toBe(409); // not manual

    const deps = { ...t.service.deps, now: clock.now };
    const made = await Promise.all(Array.from({ length: 6 }, () => makeScheduledPayouts(deps, 20)));
    expect(made.reduce((s, n) => s + n, 0)).toBe(2);
    const payouts = (await api.get('/merchant_payout/')).body.results;
    const today = clock.now().toISOString().slice(0, 10);
    expect(payouts.map((p: { currency: string; amount: number; period: string; schedule: string }) => [p.currency, p.amount, p.period, p.schedule]).sort()).toEqual([
      ['EUR', 11.89, today, 'daily'],
      ['JPY', 946, today, 'daily'],
    ]);
    // Money that arrives later the same day waits for the next day's payout.
    await paidTransaction(api, priced('EUR', 5));
    expect(await jobs.balance()).toBe(1);
    expect(await makeScheduledPayouts(deps, 20)).toBe(0);
    clock.advance(DAY);
    expect(await makeScheduledPayouts(deps, 20)).toBe(1);
    await jobs.payouts();
    const all = (await api.get('/merchant_payout/')).body.results;
    expect(all).toHaveLength(3);
    expect(all.every((p: { status: string }) => p.status === 'paid')).toBe(true);
    expect(await available(api)).toEqual([
      { currency: 'EUR', amount: 0 },
      { currency: 'JPY', amount: 0 },
    ]);
    await merchantHolds(db(), id);
  });

  it('manual requests at once pay the money once; an Idempotency-Key replays its payout', async () => {
    const { t } = svc;
    const api = await t.newEnvironment('Eager shop');
    const id = api.keys.environment_id;
    await setPricing(db(), id, { charge: { percentE2: 0n, fixed: 0n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 0 }, clock.now());
    for (const price of [3, 4, 5]) await paidTransaction(api, priced('EUR', price));
    await jobs.balance();
    expect((await api.patch('/payout_settings/', { iban: IBANS.ES })).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 8 }, () => api.post('/merchant_payout/', { currency: 'EUR' })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.find((r) => r.status === 201)!.body).toMatchObject({ amount: 12, line_count: 3 });
    expect((await api.get('/merchant_payout/')).body.count).toBe(1);

    await paidTransaction(api, priced('EUR', 6));
    await jobs.balance();
    const key = { 'idempotency-key': `payout-${id}` };
    const first = await api.post('/merchant_payout/', { currency: 'EUR' }, key);
    expect(first.status, first.text).toBe(201);
    const again = await api.post('/merchant_payout/', { currency: 'EUR' }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await api.get('/merchant_payout/')).body.count).toBe(2);
    // A keyed request that pays nothing leaves nothing behind: no payout row, the key free.
    const none = await api.post('/merchant_payout/', { currency: 'EUR' }, { 'idempotency-key': `none-${id}` });
    expect(none.status).toBe(409);
    expect((await api.get('/merchant_payout/')).body.count).toBe(2);
    await merchantHolds(db(), id);
  });

  it("a dispute's debit is a line like any other: the payout pays the lines' net, whatever their types", async () => {
    const { t } = svc;
    const api = await t.newEnvironment('Disputed shop');
    const id = api.keys.environment_id;
    await setPricing(db(), id, { charge: { percentE2: 0n, fixed: 0n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 0, disputeFixed: 1500n }, clock.now());
    const created = await api.post('/transaction/', priced('EUR', 100));
    expect(await payToken(api.url, created.body.token, TEST_CARDS.disputedFraudulent)).toBe(200);
    await jobs.balance();
    expect(await t.service.jobs.runOnce('sandbox-disputes')).toBeGreaterThanOrEqual(1);
    // The charge (+100) and the dispute's debit (−100 − 15 fee): nothing positive to pay out.
    expect(await available(api)).toEqual([{ currency: 'EUR', amount: -15 }]);
    expect((await api.patch('/payout_settings/', { iban: IBANS.ES })).status).toBe(200);
    expect((await api.post('/merchant_payout/', { currency: 'EUR' })).status).toBe(409);
    await paidTransaction(api, priced('EUR', 50));
    await jobs.balance();
    const made = (await api.post('/merchant_payout/', { currency: 'EUR' })).body;
    expect(made).toMatchObject({ amount: 35, line_count: 3 });
    const lines = await allLines(api, made.id, 100);
    expect(lines.map((l) => l.type).sort()).toEqual(['charge', 'charge', 'dispute']);
    expect(cents(lines.map((l) => l.net))).toBe(3500);
    const rows = parseCsv((await api.get(`/report/settlement/?payout=${made.id}`)).text);
    expect(rows.map((r) => r.source_object).sort()).toEqual(['dispute', 'sale', 'sale']);
    expect(cents(rows.map((r) => Number(r.net)))).toBe(3500);
    await merchantHolds(db(), id);
  });

  it('a failed payout returns the money; its lines go into the next payout', async () => {
    const { t } = svc;
    const api = await t.newEnvironment('Refused shop');
    const id = api.keys.environment_id;
    await setPricing(db(), id, { charge: { percentE2: 0n, fixed: 0n }, refund: { percentE2: 0n, fixed: 0n }, settlementDelayDays: 0 }, clock.now());
    await paidTransaction(api, priced('EUR', 40));
    await jobs.balance();
    expect((await api.patch('/payout_settings/', { iban: REFUSED_IBAN })).status).toBe(200);
    const made = (await api.post('/merchant_payout/', { currency: 'EUR' })).body;
    expect(made).toMatchObject({ status: 'pending', amount: 40, line_count: 1 });
    expect(await available(api)).toEqual([{ currency: 'EUR', amount: 0 }]);
    await jobs.payouts();
    const failed = (await api.get(`/merchant_payout/${made.id}/`)).body;
    expect(failed).toMatchObject({ status: 'failed', amount: 40, lines: { count: 0 } });
    expect(failed.failure).toMatch(/0000/);
    expect(await available(api)).toEqual([{ currency: 'EUR', amount: 40 }]);
    const back = (await api.get('/balance_transaction/?type=payout_failure')).body.results;
    expect(back).toMatchObject([{ source: { object: 'merchant_payout', id: made.id }, amount: 40, net: 40 }]);
    expect((await api.get(`/event/?object_id=${made.id}`)).body.results.map((e: { type: string }) => e.type).sort()).toEqual([
      'merchant_payout.created',
      'merchant_payout.failed',
    ]);
    await merchantHolds(db(), id);

    expect((await api.patch('/payout_settings/', { iban: IBANS.GB })).status).toBe(200);
    await confirmNewAccount(db(), id);
    const again = (await api.post('/merchant_payout/', { currency: 'EUR' })).body;
    expect(again).toMatchObject({ amount: 40, line_count: 1, iban_last4: '6819' });
    await jobs.payouts();
    expect((await api.get(`/merchant_payout/${again.id}/`)).body).toMatchObject({ status: 'paid', lines: { count: 1 } });
    expect(await available(api)).toEqual([{ currency: 'EUR', amount: 0 }]);
    // The report of the range leaves the failed payout out: each line once.
    const day = clock.now().toISOString().slice(0, 10);
    const rows = parseCsv((await api.get(`/report/settlement/?from=${day}&to=${day}`)).text);
    expect(rows.map((r) => [r.payout_id, r.net])).toEqual([[again.id, '40.00']]);
    await merchantHolds(db(), id);
  });
});
