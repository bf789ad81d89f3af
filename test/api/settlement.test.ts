import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import type { Gateway } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { createSandboxCard, sandboxGateways } from '../../server/payments/sandbox';
import { ENGINES, problemPaths, testClock } from './harness';
import { createWallet, useOwnService } from './ledger';
import { payWithCard, priced, SANDBOX_CARD } from './pay';

// Who settles a gateway's money (docs/balance.md "Who settles the money"): a gateway the
// merchant's own processor account settles (every connected processor's; here the sandbox
// card's behaviour declaring `settlement: 'processor'`) pays the merchant there. Its sales
// never enter our balance, its disputes take nothing from it and charge no fee of ours,
// and it never carries a `destination` split, which moves money the platform holds.

const OWN_ACCOUNT = '0190f5a0-0000-7000-8000-0000000000d1';
const OPEN_DELAY = 3_000;
const REVIEW = 60_000;

/** The sandbox card under another id, settled by the merchant's processor, taking every currency. */
const ownAccount = (): Gateway => ({ ...createSandboxCard(), id: OWN_ACCOUNT, code: 'own-account', name: 'Own account', settlement: 'processor' });

/** The platform's card for EUR only: a USD payment has only the merchant-settled gateway. */
const platformEur = (): Gateway => ({ ...createSandboxCard(), currencies: ['EUR'] });

const stateGateways = (html: string) => {
  const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!;
  return (JSON.parse(state) as { view: { gateways: { id: string }[] } }).view.gateways.map((g) => g.id);
};

describe.each(ENGINES)('settlement by the merchant’s processor on %s', (engine) => {
  const clock = testClock();
  const redirect = sandboxGateways().find((g) => g.flow === 'redirect')!;
  const svc = useOwnService(engine, {
    now: clock.now,
    gateways: createGateways([platformEur(), { ...redirect, currencies: ['EUR'] }, ownAccount()]),
    env: { SANDBOX_DISPUTE_DELAY_MS: String(OPEN_DELAY), SANDBOX_DISPUTE_REVIEW_MS: String(REVIEW) },
  });
  const run = (job: string) => svc.t.service.jobs.runOnce(job);

  async function paidThrough(gateway: string, card: string = TEST_CARDS.approved) {
    const created = await svc.api.post('/transaction/', priced('EUR', 100));
    expect((await payWithCard(svc.t.url, created.body.token, card, gateway)).status).toBe(200);
    const sale = (await svc.api.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0];
    await run('balance');
    return sale as { id: string };
  }

  it('its sales never enter the balance; the platform’s do', async () => {
    const before = (await svc.api.get('/balance/')).body;
    const own = await paidThrough(OWN_ACCOUNT);
    expect((await svc.api.get(`/balance_transaction/?sale=${own.id}`)).body.count).toBe(0);
    expect((await svc.api.get('/balance/')).body).toEqual(before);
    // Refunded, it stays out too; and once seen, neither operation is read again by a round.
    expect((await svc.api.post(`/sale/${own.id}/refund/`, { amount: 40 })).status).toBe(200);
    expect(await run('balance')).toBe(1);
    expect(await run('balance')).toBe(0);
    expect((await svc.api.get(`/balance_transaction/?sale=${own.id}`)).body.count).toBe(0);
    const checked = await svc.t.service.deps.database.db.selectFrom('sale_operations').select(['kind', 'balance_checked_at']).where('sale_id', '=', own.id).orderBy('id').execute();
    expect(checked).toEqual([
      { kind: 'capture', balance_checked_at: expect.any(String) },
      { kind: 'refund', balance_checked_at: expect.any(String) },
    ]);
    const platform = await paidThrough(SANDBOX_CARD);
    expect((await svc.api.get(`/balance_transaction/?sale=${platform.id}`)).body.results).toMatchObject([{ type: 'charge', amount: 100 }]);
  });

  it('a payment that splits is never offered, nor paid by, a gateway the platform does not settle', async () => {
    const wallet = await createWallet(svc.api);
    const split = await svc.api.post('/transaction/', priced('EUR', 100, { destination: [{ wallet_id: wallet.id, amount: 30 }] }));
    expect(split.status, split.text).toBe(201);
    const offered = stateGateways(await (await fetch(`${svc.t.url}/pay/${split.body.token}/`)).text());
    expect(offered).toContain(SANDBOX_CARD);
    expect(offered).not.toContain(OWN_ACCOUNT);
    expect((await payWithCard(svc.t.url, split.body.token, TEST_CARDS.approved, OWN_ACCOUNT)).status).toBe(400);
    expect((await svc.api.get(`/transaction/${split.body.id}/`)).body.status).toBe('N');
    // Without the split, the same payment is offered it.
    const plain = await svc.api.post('/transaction/', priced('EUR', 100));
    expect(stateGateways(await (await fetch(`${svc.t.url}/pay/${plain.body.token}/`)).text())).toContain(OWN_ACCOUNT);
    // A currency only the merchant's processor takes cannot split at all: refused at creation, nothing created.
    const usdWallet = await createWallet(svc.api, { currency: 'USD' });
    const before = (await svc.api.get('/transaction/')).body.count;
    const refused = await svc.api.post('/transaction/', priced('USD', 100, { destination: [{ wallet_id: usdWallet.id, amount: 30 }] }));
    expect(refused.status, refused.text).toBe(409);
    expect(problemPaths(refused)).toEqual(['destination']);
    expect((await svc.api.get('/transaction/')).body.count).toBe(before);
    expect((await svc.api.post('/transaction/', priced('USD', 100))).status).toBe(201);
  });

  it('its disputes take nothing from the balance and charge no fee of ours, won or lost; the disputed money is still not refundable', async () => {
    const before = (await svc.api.get('/balance/')).body;
    const sale = await paidThrough(OWN_ACCOUNT, TEST_CARDS.disputedFraudulent);
    clock.advance(OPEN_DELAY);
    await run('sandbox-disputes');
    const dispute = (await svc.api.get(`/dispute/?sale=${sale.id}`)).body.results[0];
    expect(dispute).toMatchObject({ amount: 100, fee: 0, status: 'needs_response' });
    expect((await svc.api.get(`/sale/${sale.id}/`)).body).toMatchObject({ disputed: true, refundable: 0 });
    expect((await svc.api.post(`/sale/${sale.id}/refund/`, { amount: 1 })).status).toBe(409);
    await svc.api.post(`/dispute/${dispute.id}/evidence/`, { uncategorized_text: 'winning_evidence' });
    expect((await svc.api.post(`/dispute/${dispute.id}/submit/`, undefined)).status).toBe(200);
    clock.advance(REVIEW);
    expect(await run('sandbox-dispute-reviews')).toBe(1);
    expect((await svc.api.get(`/dispute/${dispute.id}/`)).body).toMatchObject({ status: 'won' });
    expect((await svc.api.get(`/balance_transaction/?sale=${sale.id}`)).body.count).toBe(0);
    expect((await svc.api.get('/balance/')).body).toEqual(before);
    expect((await svc.api.get(`/sale/${sale.id}/`)).body).toMatchObject({ refundable: 100 });
  });
});
