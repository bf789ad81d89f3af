import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { signSandboxNotification } from '../../server/payments/sandbox';
import { findCallByReference } from '../../server/store/unknown-outcomes';
import { startIsolatedService } from './database';
import { CONTROLLED_ID, type ControlledGateway, withControlled } from './gateways';
import { type Client, ENGINES, type TestService, testClock } from './harness';

// A subscription charge whose answer is lost: the processor charged, the scheduler never
// heard. The attempt stays pending and is settled by looking its reference up, so the
// period is charged once (not charged, refunded as a stray and charged again); while it
// is pending, the subscription is claimed once per SUBSCRIPTION_CLAIM_MS, not on every pass.
// One the settle window failed, told as made after the period was charged again, is refunded.

const CLAIM_MS = 120_000;
const SETTLE_WINDOW_MS = 600_000;

describe.each(ENGINES)('a subscription charge lost mid-call, on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let gw: ControlledGateway;
  const clock = testClock();
  const charge = () => t.service.jobs.runOnce(JOB_NAMES.subscriptions);
  const reconcile = () => t.service.jobs.runOnce(JOB_NAMES.reconciliation);

  beforeAll(async () => {
    const { gateways, controlled } = withControlled();
    gw = controlled;
    t = await startIsolatedService(engine, { gateways, now: clock.now, env: { GATEWAY_TIMEOUT_MS: '300', SUBSCRIPTION_CLAIM_MS: String(CLAIM_MS), PAYMENT_SETTLE_WINDOW_MS: String(SETTLE_WINDOW_MS) } });
    api = await t.newEnvironment('Gym');
  });
  afterAll(async () => {
    await gw?.completeHung();
    await t?.close();
  });

  async function started() {
    const plan = await api.post('/plan/', { name: 'Pro', amount: 9.99, currency: 'EUR', interval: 'month' });
    const card = await api.post('/authorization/', { gateway: CONTROLLED_ID, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'A' } });
    expect(card.status, card.text).toBe(201);
    const sub = (await api.post('/subscription/', { plan: plan.body.id, authorization: card.body.id })).body;
    expect((await api.post(`/subscription/${sub.id}/start/`, undefined)).status).toBe(200);
    return { card, sub };
  }

  it('is charged once: looked up by its reference, never charged again and refunded', async () => {
    const { card, sub } = await started();
    const charges = () => gw.received.filter((c) => c.method === 'charge').length;
    const refunds = () => gw.received.filter((c) => c.method === 'refund').length;
    const before = charges();

    // The processor holds the charge past our timeout: the scheduler's answer is lost.
    gw.mode = 'hang';
    expect(await charge()).toBe(1);
    expect(charges()).toBe(before + 1);
    const pending = (await api.get(`/subscription/${sub.id}/`)).body;
    expect(pending.charges).toMatchObject([{ period: 1, status: 'pending', attempts: 1 }]);

    // Stuck while pending: not claimed again on the next passes, only once its claim has run out.
    expect(await charge()).toBe(0);
    expect(await charge()).toBe(0);
    clock.advance(CLAIM_MS + 1000);
    expect(await charge()).toBe(1);
    expect(await charge()).toBe(0);
    expect(charges()).toBe(before + 1);

    // The processor did charge; reconciliation finds it by the reference once the call's claim has run out.
    await gw.completeHung();
    gw.mode = 'ok';
    clock.advance(t.service.deps.config.paymentClaimMs);
    expect(await reconcile()).toBeGreaterThanOrEqual(1);
    const charged = (await api.get(`/subscription/${sub.id}/`)).body;
    expect(charged.status).toBe('active');
    expect(charged.charges).toMatchObject([{ period: 1, status: 'charged', attempts: 1 }]);
    expect((await api.get(`/sale/?authorization_id=${card.body.id}`)).body.count).toBe(1);

    // Later passes and rounds take nothing more: one charge at the processor, no refund.
    clock.advance(CLAIM_MS + 1000);
    await charge();
    await reconcile();
    expect(charges()).toBe(before + 1);
    expect(refunds()).toBe(0);
  });

  it('is due again at once when the processor refused it before acting: still active, nothing left to reconcile', async () => {
    const { sub } = await started();
    gw.mode = 'refuse';
    expect(await charge()).toBe(1);
    const call = await findCallByReference(t.service.deps.database.db, `subscription:${sub.id}:period:1:attempt:1`);
    expect(call).toMatchObject({ kind: 'subscription', state: 'failed' });
    // Not a decline: the subscription stays active and the period is due on the next pass, without waiting for a retry.
    const refused = (await api.get(`/subscription/${sub.id}/`)).body;
    expect(refused.status).toBe('active');
    expect(refused.charges).toMatchObject([{ period: 1, status: 'failed', failure: 'not_processed', attempts: 1 }]);
    gw.mode = 'ok';
    expect(await charge()).toBe(1);
    expect((await api.get(`/subscription/${sub.id}/`)).body.charges).toMatchObject([{ period: 1, status: 'charged', attempts: 2 }]);
  });

  it('is refunded when told as made after the settle window failed it and the period was charged again', async () => {
    const { sub } = await started();
    gw.mode = 'throw';
    expect(await charge()).toBe(1);
    const callOf = () => findCallByReference(t.service.deps.database.db, `subscription:${sub.id}:period:1:attempt:1`);
    const call = await callOf();
    expect(call).toMatchObject({ kind: 'subscription', state: 'pending' });
    // Never found all through the window: not made, and the period is charged again by a new attempt.
    gw.mode = 'ok';
    clock.advance(t.service.deps.config.paymentClaimMs);
    await reconcile();
    clock.advance(SETTLE_WINDOW_MS + 1000);
    await reconcile();
    clock.advance(CLAIM_MS + 1000);
    await charge();
    expect((await api.get(`/subscription/${sub.id}/`)).body.charges).toMatchObject([{ period: 1, status: 'charged', attempts: 2 }]);

    // The processor tells it had made the first attempt after all: that one is refunded, once.
    const payment = `proc_late_${call!.id}`;
    const body = JSON.stringify({ reference: call!.reference, status: 'succeeded', payment });
    const notify = () =>
      fetch(`${t.url}/gateways/controlled-card/notify`, { method: 'POST', headers: { 'content-type': 'application/json', 'sandbox-signature': signSandboxNotification(body) }, body });
    expect((await notify()).status).toBe(204);
    expect((await notify()).status).toBe(204);
    expect(gw.received.filter((c) => c.method === 'refund' && c.payment === payment)).toHaveLength(1);
    expect((await callOf())!.state).toBe('reversed');
    expect((await api.get(`/subscription/${sub.id}/`)).body.charges).toMatchObject([{ period: 1, status: 'charged', attempts: 2 }]);
  });
});
