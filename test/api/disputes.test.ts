import { describe, expect, it } from 'vitest';
import type { Db } from '../../server/store/db';
import { paymentReference } from '../../server/domain/payment-reference';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { decideSandboxDisputes, openSandboxDisputes } from '../../server/payments/disputes';
import { disputableSalesQuery } from '../../server/store/disputes';
import { member } from './dashboard';
import { FILES, pdfOfSize } from './documents';
import { type Client, ENGINES, problemPaths, testClock } from './harness';
import { checkLedger, useOwnService } from './ledger';
import { payToken, priced } from './pay';
import { blockedBehind } from './lock-waits';
import { queryPlan } from './query-plan';

// A dispute's whole life, opened by the sandbox bank's test cards: the disputed amount and
// the dispute fee leave the balance when it opens and the amount comes back if it is won;
// a dispute past its deadline without evidence is lost; disputed money is never refunded.
// After every step the ledger adds up to zero and the `merchant` account holds exactly the
// balance transactions' net (as test/api/balance.test.ts checks for charges and refunds).

const DAY = 86_400_000;
const OPEN_DELAY = 3_000;
const REVIEW = 60_000;

/** The ledger adds up, and the `merchant` and `fees` accounts are the balance transactions' net and fees. */
async function holds(db: Db, environmentId: string) {
  await checkLedger(db, environmentId);
  const sum = async (account: string) =>
    Number(
      (
        await db
          .selectFrom('ledger_entries')
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('amount'), eb.lit(0)).as('total'))
          .where('environment_id', '=', environmentId)
          .where('account', '=', account)
          .executeTakeFirstOrThrow()
      ).total,
    );
  const bts = await db
    .selectFrom('balance_transactions')
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number | string>('net'), eb.lit(0)).as('net'), eb.fn.coalesce(eb.fn.sum<number | string>('fee'), eb.lit(0)).as('fee')])
    .where('environment_id', '=', environmentId)
    .executeTakeFirstOrThrow();
  expect(await sum('merchant'), 'merchant account = Σ net').toBe(Number(bts.net));
  expect(await sum('fees'), 'fees account = Σ fee').toBe(Number(bts.fee));
}

describe.each(ENGINES)('disputes on %s', (engine) => {
  const clock = testClock();
  const svc = useOwnService(engine, { now: clock.now, env: { SANDBOX_DISPUTE_DELAY_MS: String(OPEN_DELAY), SANDBOX_DISPUTE_REVIEW_MS: String(REVIEW) } });
  const db = () => svc.t.service.deps.database.db;
  const run = (job: string) => svc.t.service.jobs.runOnce(job);
  const check = () => holds(db(), svc.api.keys.environment_id);
  const balance = async (api: Client = svc.api) => {
    const { livemode, ...amounts } = (await api.get('/balance/')).body;
    expect(livemode).toBe(false);
    return amounts;
  };
  const ofSale = async (sale: string) => (await svc.api.get(`/balance_transaction/?sale=${sale}`)).body.results.reverse();

  /** A sale paid on the payment page with `card`, its charge in the balance. */
  async function paidWith(card: string, price = 100, api: Client = svc.api): Promise<any> {
    const created = await api.post('/transaction/', priced('EUR', price));
    expect(await payToken(api.url, created.body.token, card)).toBe(200);
    const sale = (await api.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    await run('balance');
    return sale;
  }

  /** Lets the sandbox bank open the disputes of the cards paid so far. */
  async function opened(sale: { id: string }, api: Client = svc.api): Promise<any> {
    clock.advance(OPEN_DELAY);
    await run('sandbox-disputes');
    const list = (await api.get(`/dispute/?sale=${sale.id}`)).body;
    expect(list.count).toBe(1);
    return list.results[0];
  }

  it('the sandbox bank reads only the sales paid with its dispute cards, however many sales there are (the plan, as prepared statements run it)', async () => {
    const query = disputableSalesQuery(db(), { gatewayId: 'sandbox', last4s: ['0259', '1976'], before: clock.now(), limit: 20 }).compile();
    expect(await queryPlan(db(), engine, query)).toContain('sales_gateway_last4');
  });

  it('a fraudulent dispute: opened a few seconds after capture, answered with evidence, won', async () => {
    const { api } = svc;
    const sale = await paidWith(TEST_CARDS.disputedFraudulent);
    expect(sale).toMatchObject({ status: 'captured', disputed: false, refundable: 100 });
    // Not before the delay has passed on the sandbox clock.
    expect(await run('sandbox-disputes')).toBe(0);
    const dispute = await opened(sale);
    expect(await run('sandbox-disputes')).toBe(0);
    expect(dispute).toMatchObject({ sale: sale.id, amount: 100, currency: 'EUR', fee: 15, reason: 'fraudulent', status: 'needs_response', submitted: null, closed: null });
    expect(Date.parse(dispute.evidence_due_by) - Date.parse(dispute.created)).toBe(7 * DAY);
    expect(dispute.evidence).toMatchObject({ uncategorized_text: null, files: [] });
    expect((await api.get(`/dispute/${dispute.id}/`)).body).toEqual(dispute);

    // The amount and the fee left the balance at once; the sale shows it and refunds none of it.
    await check();
    const [charge, debit] = await ofSale(sale.id);
    expect(charge).toMatchObject({ type: 'charge', amount: 100, net: 100 });
    expect(debit).toMatchObject({ type: 'dispute', source: { object: 'dispute', id: dispute.id }, amount: -100, fee: 15, net: -115, status: 'available' });
    expect(await balance()).toEqual({ available: [{ currency: 'EUR', amount: -115 }], pending: [{ currency: 'EUR', amount: 100 }] });
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ disputed: true, refundable: 0, captured: 100 });
    const refused = await api.post(`/sale/${sale.id}/refund/`, { amount: 1 });
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(refused.body.detail).toMatch(/100 EUR of the sale is disputed and cannot be refunded/);

    // Evidence: files under the client-document rules, text merged field by field.
    const badFile = await api.post(`/dispute/${dispute.id}/evidence/`, { files: [{ name: 'a.png', content_type: 'image/png', data: FILES['application/pdf'].bytes.toString('base64') }] });
    expect(badFile.status).toBe(400);
    expect(problemPaths(badFile)).toEqual(['files[0].content_type']);
    expect(problemPaths(await api.post(`/dispute/${dispute.id}/evidence/`, { reason: 'x' }))).toEqual(['reason']);
    expect(problemPaths(await api.post(`/dispute/${dispute.id}/evidence/`, { shipping_date: '2026-02-30' }))).toEqual(['shipping_date']);
    const pdf = { name: 'receipt.pdf', content_type: 'application/pdf', data: FILES['application/pdf'].bytes.toString('base64') };
    const saved = await api.post(`/dispute/${dispute.id}/evidence/`, { product_description: 'A mug', files: [pdf] });
    expect(saved.status).toBe(200);
    const more = await api.post(`/dispute/${dispute.id}/evidence/`, { uncategorized_text: 'winning_evidence' });
    expect(more.body.evidence).toMatchObject({ product_description: 'A mug', uncategorized_text: 'winning_evidence' });
    expect(more.body.evidence.files).toMatchObject([{ name: 'receipt.pdf', content_type: 'application/pdf', size: FILES['application/pdf'].bytes.length }]);
    expect(more.body.status).toBe('needs_response');

    const submitted = await api.post(`/dispute/${dispute.id}/submit/`, undefined);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ status: 'under_review' });
    expect(submitted.body.submitted).not.toBeNull();
    for (const path of ['submit', 'accept', 'evidence']) {
      const late = await api.post(`/dispute/${dispute.id}/${path}/`, path === 'evidence' ? { uncategorized_text: 'more' } : {});
      expect(late.status, path).toBe(409);
      expect(late.body.detail).toMatch(/the dispute is under_review/);
    }
    await check();

    // The sandbox bank decides after its review time: winning_evidence wins, the amount comes back (the fee does not).
    expect(await run('sandbox-dispute-reviews')).toBe(0);
    clock.advance(REVIEW);
    expect(await run('sandbox-dispute-reviews')).toBe(1);
    const won = (await api.get(`/dispute/${dispute.id}/`)).body;
    expect(won).toMatchObject({ status: 'won' });
    expect(won.closed).not.toBeNull();
    await check();
    const [, , reversal] = await ofSale(sale.id);
    expect(reversal).toMatchObject({ type: 'dispute_reversal', source: { object: 'dispute', id: dispute.id }, amount: 100, fee: 0, net: 100, status: 'available' });
    expect(await balance()).toEqual({ available: [{ currency: 'EUR', amount: -15 }], pending: [{ currency: 'EUR', amount: 100 }] });
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ disputed: true, refundable: 100, fee: 15 });
    expect((await api.post(`/sale/${sale.id}/refund/`, { amount: 10 })).status).toBe(200);
    expect(await run('sandbox-dispute-reviews')).toBe(0);

    const events = (await api.get(`/event/?object_id=${dispute.id}`)).body.results.map((e: any) => e.type).sort();
    expect(events).toEqual(['dispute.closed', 'dispute.created', 'dispute.updated', 'dispute.updated', 'dispute.updated']);
    const closed = (await api.get(`/event/?object_id=${dispute.id}&type=dispute.closed`)).body.results[0];
    expect((await api.get(`/event/${closed.id}/`)).body.data).toMatchObject({ id: dispute.id, status: 'won' });
  });

  it('losing evidence loses: the money stays out and is never refunded', async () => {
    const { api } = svc;
    await run('balance');
    const before = await balance();
    const sale = await paidWith(TEST_CARDS.disputedNotReceived, 40);
    const dispute = await opened(sale);
    expect(dispute).toMatchObject({ reason: 'product_not_received', status: 'needs_response', amount: 40 });
    await api.post(`/dispute/${dispute.id}/evidence/`, { customer_communication: 'losing_evidence' });
    await api.post(`/dispute/${dispute.id}/submit/`, undefined);
    clock.advance(REVIEW);
    expect(await run('sandbox-dispute-reviews')).toBe(1);
    expect((await api.get(`/dispute/${dispute.id}/`)).body.status).toBe('lost');
    await check();
    expect((await ofSale(sale.id)).map((b: any) => [b.type, b.net])).toEqual([
      ['charge', 40],
      ['dispute', -55],
    ]);
    expect((await balance()).available[0].amount).toBe(before.available[0].amount - 55);
    expect((await api.post(`/sale/${sale.id}/refund/`, undefined)).status).toBe(409);
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ disputed: true, refundable: 0 });
  });

  it('the deadline: without evidence the dispute is lost; saved evidence is submitted for the merchant', async () => {
    const { api } = svc;
    const silent = await paidWith(TEST_CARDS.disputedFraudulent, 20);
    const saving = await paidWith(TEST_CARDS.disputedFraudulent, 30);
    const [a, b] = [await opened(silent), (await api.get(`/dispute/?sale=${saving.id}`)).body.results[0]];
    await api.post(`/dispute/${b.id}/evidence/`, { files: [{ name: 'proof.pdf', content_type: 'application/pdf', data: pdfOfSize(2048).toString('base64') }] });
    expect(await run('dispute-deadlines')).toBe(0);
    clock.advance(7 * DAY);
    expect(await run('dispute-deadlines')).toBe(2);
    expect(await run('dispute-deadlines')).toBe(0);
    const [lost, submitted] = [(await api.get(`/dispute/${a.id}/`)).body, (await api.get(`/dispute/${b.id}/`)).body];
    expect(lost).toMatchObject({ status: 'lost', submitted: null });
    expect(submitted.status).toBe('under_review');
    expect(submitted.submitted).not.toBeNull();
    await check();
    // Files only, no winning words: the sandbox bank rules against it.
    clock.advance(REVIEW);
    await run('sandbox-dispute-reviews');
    expect((await api.get(`/dispute/${b.id}/`)).body.status).toBe('lost');
    await check();
  });

  it('an inquiry moves no money and refunds stay allowed; accepting closes it', async () => {
    const { api } = svc;
    await run('balance');
    const before = await balance();
    const sale = await paidWith(TEST_CARDS.disputeInquiry, 25);
    const inquiry = await opened(sale);
    expect(inquiry).toMatchObject({ status: 'warning_needs_response', fee: 0, amount: 25, reason: 'general' });
    expect((await ofSale(sale.id)).map((b: any) => b.type)).toEqual(['charge']);
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ disputed: true, refundable: 25 });
    expect((await balance()).available).toEqual(before.available);
    const accepted = await api.post(`/dispute/${inquiry.id}/accept/`, {});
    expect(accepted.body).toMatchObject({ status: 'warning_closed' });
    expect((await api.post(`/sale/${sale.id}/refund/`, { amount: 5 })).status).toBe(200);
    await check();
  });

  it('accepting a dispute loses it at once; lists filter; another environment sees none', async () => {
    const { api, t } = svc;
    const sale = await paidWith(TEST_CARDS.disputedFraudulent, 10);
    const dispute = await opened(sale);
    const accepted = await api.post(`/dispute/${dispute.id}/accept/`, undefined);
    expect(accepted.body).toMatchObject({ status: 'lost' });
    expect(accepted.body.closed).not.toBeNull();
    await check();
    expect((await api.get('/dispute/?status=lost')).body.results.map((d: any) => d.id)).toContain(dispute.id);
    expect((await api.get('/dispute/?status=won')).body.results.map((d: any) => d.id)).not.toContain(dispute.id);
    expect(problemPaths(await api.get('/dispute/?status=open'))).toEqual(['query.status']);
    const other = await t.newEnvironment('Other shop');
    expect((await other.get(`/dispute/${dispute.id}/`)).status).toBe(404);
    expect((await other.post(`/dispute/${dispute.id}/accept/`, undefined)).status).toBe(404);
    expect((await other.get('/dispute/')).body.count).toBe(0);
  });

  it('the dashboard lists the disputes needing a response first, nearest deadline first, with their deadlines', async () => {
    const { api, t } = svc;
    const first = await paidWith(TEST_CARDS.disputedFraudulent, 11);
    const a = await opened(first);
    const second = await paidWith(TEST_CARDS.disputedNotReceived, 12);
    const b = await opened(second);
    const { browser } = await member(t, api, 'viewer');
    const page = await browser.get('/dashboard/disputes/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/dashboard/disputes/" aria-current="page"');
    const [awaiting, all] = page.text.split('id="disputes-all"');
    // Each payment by its customer reference (the last 8 hex digits of its sale's id).
    const [refA, refB] = [a.sale, b.sale].map((sale: string) => `Payment ${paymentReference(sale)}`) as [string, string];
    // Needing a response: the nearest deadline first, each with it.
    expect(awaiting!.indexOf(refA)).toBeGreaterThan(0);
    expect(awaiting!.indexOf(refA)).toBeLessThan(awaiting!.indexOf(refB));
    expect(awaiting).toContain('Product not received');
    expect(awaiting).toContain(new Date(a.evidence_due_by).getUTCFullYear().toString());
    // Answered, it leaves the first table and stays in the second.
    await api.post(`/dispute/${a.id}/accept/`, undefined);
    const after = (await browser.get('/dashboard/disputes/')).text.split('id="disputes-all"');
    expect(after[0]).not.toContain(refA);
    expect(after[1]).toContain(refA);
    expect(all).toContain(refB);
  });

  it('rounds run at once open a dispute once and reverse it once', async () => {
    const { api } = svc;
    const deps = svc.t.service.deps;
    const sale = await paidWith(TEST_CARDS.disputedFraudulent, 7);
    clock.advance(OPEN_DELAY);
    const opens = await Promise.all([openSandboxDisputes(deps, 20), openSandboxDisputes(deps, 20), openSandboxDisputes(deps, 20)]);
    expect(opens.reduce((a, b) => a + b, 0)).toBe(1);
    const dispute = (await api.get(`/dispute/?sale=${sale.id}`)).body.results[0];
    await api.post(`/dispute/${dispute.id}/evidence/`, { uncategorized_text: 'winning_evidence' });
    await api.post(`/dispute/${dispute.id}/submit/`, undefined);
    clock.advance(REVIEW);
    const decided = await Promise.all([decideSandboxDisputes(deps, 20), decideSandboxDisputes(deps, 20), decideSandboxDisputes(deps, 20)]);
    expect(decided.reduce((a, b) => a + b, 0)).toBe(1);
    expect((await ofSale(sale.id)).map((b: any) => b.type)).toEqual(['charge', 'dispute', 'dispute_reversal']);
    await check();
  });

  // Another upload being saved, made by hand and held open as a request's transaction holds
  // the row: a request that comes meanwhile waits for it and is judged on what it left. It
  // was a 409 naming a status that allows it (the write expected the evidence read before).
  it('evidence and a submit that come while an upload is being saved wait for it; nothing is lost', async () => {
    const { api } = svc;
    const dispute = await opened(await paidWith(TEST_CARDS.disputedNotReceived, 9));
    async function whileSaving(saved: Record<string, string>, request: () => Promise<{ status: number; body: any }>) {
      let answer: Promise<{ status: number; body: any }> | undefined;
      await db()
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable('disputes').set({ evidence: JSON.stringify(saved), updated_at: clock.now().toISOString() }).where('id', '=', dispute.id).execute();
          answer = request();
          await blockedBehind(svc.t.service.deps.database, trx, answer);
        });
      return answer!;
    }
    const added = await whileSaving({ product_description: 'Kettle' }, () => api.post(`/dispute/${dispute.id}/evidence/`, { uncategorized_text: 'Signed for' }));
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.evidence).toMatchObject({ product_description: 'Kettle', uncategorized_text: 'Signed for' });
    const submitted = await whileSaving({ product_description: 'Kettle, boxed' }, () => api.post(`/dispute/${dispute.id}/submit/`, undefined));
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body).toMatchObject({ status: 'under_review', evidence: { product_description: 'Kettle, boxed' } });
    await check();
  });
});
