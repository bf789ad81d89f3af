import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_ACTIONS, SUBSCRIPTION_STATUSES, type SubscriptionAction, type SubscriptionStatus } from '../../server/domain/subscription-states';
import { JOB_NAMES } from '../../server/jobs';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { chargeSubscriptionPeriod } from '../../server/payments/subscription-charge';
import { claimDueSubscriptions } from '../../server/store/subscriptions';
import { startIsolatedService } from './database';
import { clientBody } from './documents';
import { type Client, ENGINES, problemPaths, type TestService } from './harness';
import { HELD_ID, type HeldGateway, withHeld } from './held-gateway';
import { payWithCard, SANDBOX_CARD } from './pay';
import { type Receiver, startReceiver } from './receiver';
import { blockedBehind } from './lock-waits';

// Subscriptions over real HTTP on both engines: the spec's actions from every state, the
// scheduler's charges under a moved clock (one pass at a time: the job run by hand),
// retries, pause and stop, and the notifications. Each engine gets a database of its own:
// a pass of the scheduler takes every due subscription it finds.

const DAY = 86_400_000;

describe.each(ENGINES)('subscriptions on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let hook: Receiver;
  /** The sandbox card gateway, and a copy of it whose chosen call waits until the test lets it go. */
  let held: HeldGateway;
  /** The service's clock: real time, or stopped at a chosen moment (`at`) for exact dates. */
  let frozen: number | null = null;
  const now = () => new Date(frozen ?? Date.now());
  const at = (iso: string) => void (frozen = Date.parse(iso));
  const charge = () => t.service.jobs.runOnce(JOB_NAMES.subscriptions);
  const deliver = () => t.service.jobs.runOnce(JOB_NAMES.delivery);
  /** Moves the service's clock `days` on and runs scheduler passes until nothing is due. */
  async function advance(days: number) {
    frozen = (frozen ?? Date.now()) + days * DAY;
    while ((await charge()) > 0);
  }

  beforeAll(async () => {
    const g = withHeld();
    held = g.held;
    t = await startIsolatedService(engine, { now, gateways: g.gateways, env: { ALLOW_PRIVATE_NOTIFY_URLS: 'true' } });
    hook = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await hook.close();
  });
  beforeEach(async () => {
    frozen = null;
    api = await t.newEnvironment();
    await deliver();
    hook.received.length = 0;
  });

  async function plan(over: Record<string, unknown> = {}): Promise<string> {
    const res = await api.post('/plan/', { name: 'Pro', amount: 9.99, currency: 'EUR', interval: 'month', ...over });
    expect(res.status).toBe(201);
    return res.body.id;
  }
  async function card(number: string = TEST_CARDS.approved, gateway = SANDBOX_CARD): Promise<string> {
    const res = await api.post('/authorization/', { gateway, card: { number, expiry: '12/34', cvc: '123', name: 'A' } });
    expect(res.status).toBe(201);
    return res.body.id;
  }
  async function subscription(over: Record<string, unknown> = {}): Promise<any> {
    const res = await api.post('/subscription/', { plan: await plan(), authorization: await card(), ...over });
    expect(res.status, res.text).toBe(201);
    return res.body;
  }
  const get = async (id: string) => (await api.get(`/subscription/${id}/`)).body;
  const act = (id: string, action: SubscriptionAction) => api.post(`/subscription/${id}/${action}/`, undefined);

  it('refuses a disabled plan and a removed authorization, each by its field, and creates nothing', async () => {
    const disabled = await plan({ enabled: false });
    const off = await api.post('/subscription/', { plan: disabled, authorization: await card() });
    expect(off.status).toBe(400);
    expect(off.body.errors).toEqual([{ path: 'plan', message: 'is disabled: no new subscriptions' }]);
    const removed = await card();
    expect((await api.post(`/authorization/${removed}/remove/`, undefined)).status).toBe(200);
    const gone = await api.post('/subscription/', { plan: await plan(), authorization: removed });
    expect(gone.status).toBe(400);
    expect(gone.body.errors).toEqual([{ path: 'authorization', message: 'is removed: it cannot be charged' }]);
    expect((await api.get('/subscription/')).body.count).toBe(0);
  });

  it('creates a waiting subscription with the plan\'s terms, and lists, filters and reads it per environment', async () => {
    const planId = await plan({ amount: 12.5, interval: 'week', interval_count: 2, trial_days: 7 });
    const authorization = await card();
    const unknown = await api.post('/subscription/', { plan: planId, authorization, client: '0190f5a0-0000-7000-8000-0000000000aa' });
    expect(unknown.status).toBe(400);
    expect(problemPaths(unknown)).toEqual(['client']);
    const client = (await api.post('/client/', clientBody())).body.id as string;
    const created = await api.post('/subscription/', { plan: planId, authorization, client, subscription_id: 'sub-1', notify_url: hook.url });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      plan: planId,
      authorization,
      client,
      subscription_id: 'sub-1',
      status: 'waiting',
      payment_url: null,
      amount: 12.5,
      currency: 'EUR',
      interval: 'week',
      interval_count: 2,
      trial_days: 7,
      next_charge_date: null,
      current_period_start: null,
      trial_end: null,
      charges: [],
    });
    // A plan changed later does not change what the subscriber pays.
    expect((await api.patch(`/plan/${planId}/`, { amount: 20 })).status).toBe(200);
    expect((await get(created.body.id)).amount).toBe(12.5);

    const list = await api.get('/subscription/?subscription_id=sub-1');
    expect(list.body).toMatchObject({ count: 1, items_per_page: 20, next: null, previous: null });
    expect(list.body.results[0].id).toBe(created.body.id);
    expect((await api.get('/subscription/?status=active')).body.count).toBe(0);
    expect((await api.get(`/subscription/?plan=${planId}`)).body.count).toBe(1);

    const other = await t.newEnvironment('Other shop');
    expect((await other.get(`/subscription/${created.body.id}/`)).status).toBe(404);
    expect((await other.post(`/subscription/${created.body.id}/stop/`, undefined)).status).toBe(404);
    expect((await other.get('/subscription/')).body.count).toBe(0);
    // Another environment's plan or authorization is not one of this environment.
    const refused = await other.post('/subscription/', { plan: planId });
    expect(refused.status).toBe(400);
    expect(problemPaths(refused)).toEqual(['plan']);
  });

  it('refuses bad bodies with the field named, and creates nothing', async () => {
    const planId = await plan();
    const removed = await card();
    expect((await api.post(`/authorization/${removed}/remove/`, undefined)).status).toBe(200);
    const disabled = await plan({ enabled: false });
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ['plan']],
      [{ plan: 'not-a-uuid' }, ['plan']],
      [{ plan: '0190f5a0-0000-7000-8000-00000000dead' }, ['plan']],
      [{ plan: disabled }, ['plan']],
      [{ plan: planId, authorization: removed }, ['authorization']],
      [{ plan: planId, authorization: '0190f5a0-0000-7000-8000-00000000dead' }, ['authorization']],
      [{ plan: planId, notify_url: 'ftp://x.example/' }, ['notify_url']],
      [{ plan: planId, cancel_url: 'https://shop.example/cart?status=active' }, ['cancel_url']],
      [{ plan: planId, return_url: 'https://shop.example/welcome?subscription_id=mine' }, ['return_url']],
      [{ plan: planId, language: 'de' }, ['language']],
      [{ plan: planId, colour: 'red' }, ['colour']],
    ];
    for (const [body, paths] of cases) {
      const res = await api.post('/subscription/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(problemPaths(res)).toEqual(paths);
    }
    expect(await api.count('/subscription/')).toBe(0);
  });

  /** A fresh subscription in `state`, reached the way a merchant reaches it. */
  async function inState(state: SubscriptionStatus): Promise<string> {
    switch (state) {
      case 'waiting':
        return (await subscription()).id;
      case 'trialing': {
        const sub = await subscription({ plan: await plan({ trial_days: 14 }) });
        expect((await act(sub.id, 'start')).status).toBe(200);
        return sub.id;
      }
      case 'active': {
        const sub = await subscription();
        expect((await act(sub.id, 'start')).status).toBe(200);
        await charge();
        return sub.id;
      }
      case 'paused': {
        const id = await inState('active');
        expect((await act(id, 'pause')).status).toBe(200);
        return id;
      }
      case 'past_due': {
        const sub = await subscription({ authorization: await card(TEST_CARDS.insufficientFunds) });
        expect((await act(sub.id, 'start')).status).toBe(200);
        await charge();
        return sub.id;
      }
      case 'stopped': {
        const sub = await subscription();
        expect((await act(sub.id, 'stop')).status).toBe(200);
        return sub.id;
      }
    }
  }

  // The documented table (docs/subscriptions.md): every other pair is a 409.
  const MOVES: Partial<Record<`${SubscriptionStatus} ${SubscriptionAction}`, SubscriptionStatus>> = {
    'waiting start': 'active',
    'waiting stop': 'stopped',
    'trialing stop': 'stopped',
    'active pause': 'paused',
    'active stop': 'stopped',
    'paused active': 'active',
    'paused stop': 'stopped',
    'past_due stop': 'stopped',
  };

  it.each(SUBSCRIPTION_STATUSES)('from %s: moves by the table, and answers every other action with a 409 naming the state, changing nothing', async (state) => {
    for (const action of SUBSCRIPTION_ACTIONS) {
      const id = await inState(state);
      const before = await get(id);
      expect(before.status, `${state} reached`).toBe(state);
      const res = await act(id, action);
      const target = MOVES[`${state} ${action}`];
      if (target) {
        expect(res.status, `${state} ${action}`).toBe(200);
        expect(res.body.status, `${state} ${action}`).toBe(target);
        expect(await get(id)).toEqual(res.body);
      } else {
        expect(res.status, `${state} ${action}`).toBe(409);
        problemPaths(res);
        expect(res.body.detail).toContain(`is ${state}`);
        expect(await get(id), `${state} ${action} changed nothing`).toEqual(before);
      }
    }
  });

  it('start without a payment method is a 409 that points at payment_url', async () => {
    const created = await api.post('/subscription/', { plan: await plan() });
    expect(created.body.payment_url).toMatch(new RegExp(`^${t.url}/pay/sub_[A-Za-z0-9_-]{32}/$`));
    const res = await act(created.body.id, 'start');
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('payment_url');
    expect(await get(created.body.id)).toEqual(created.body);
  });

  it('charges each period once, at its start, with a completed transaction and a captured sale', async () => {
    at('2027-01-31T09:00:00.000Z');
    const sub = await subscription({ subscription_id: 'gym-7' });
    const started = await act(sub.id, 'start');
    expect(started.body).toMatchObject({ status: 'active', next_charge_date: '2027-01-31T09:00:00.000Z', trial_end: null });
    // Other tests' subscriptions are due too at this clock: passes take them all.
    while ((await charge()) > 0);
    await charge();
    const first = await get(sub.id);
    expect(first).toMatchObject({
      status: 'active',
      current_period_start: '2027-01-31T09:00:00.000Z',
      current_period_end: '2027-02-28T09:00:00.000Z',
      next_charge_date: '2027-02-28T09:00:00.000Z',
    });
    expect(first.charges).toHaveLength(1);
    const c = first.charges[0];
    expect(c).toMatchObject({ period: 1, status: 'charged', attempts: 1, amount: 9.99, currency: 'EUR', failure: null });
    const transaction = (await api.get(`/transaction/${c.transaction}/`)).body;
    expect(transaction).toMatchObject({ status: 'D', total_price: 9.99, currency: 'EUR', order_id: 'gym-7' });
    const sale = (await api.get(`/sale/${c.sale}/`)).body;
    expect(sale).toMatchObject({ transaction_id: c.transaction, authorization_id: sub.authorization, amount: 9.99, status: 'captured' });

    // Month ends clamped from the start date: 28 February, 31 March, 30 April.
    await advance(28);
    await advance(31);
    await advance(30);
    const later = await get(sub.id);
    expect(later.charges.map((x: any) => [x.period, x.period_start.slice(0, 10), x.status])).toEqual([
      [1, '2027-01-31', 'charged'],
      [2, '2027-02-28', 'charged'],
      [3, '2027-03-31', 'charged'],
      [4, '2027-04-30', 'charged'],
    ]);
    expect(later.next_charge_date).toBe('2027-05-31T09:00:00.000Z');
    expect((await api.get(`/sale/?authorization_id=${sub.authorization}`)).body.count).toBe(4);
    // Passes racing each other charge nothing more.
    await Promise.all([charge(), charge(), charge()]);
    expect((await get(sub.id)).charges).toHaveLength(4);
  });

  it('a trial is the first period; the first charge is at its end', async () => {
    at('2027-03-01T12:00:00.000Z');
    const sub = await subscription({ plan: await plan({ trial_days: 14 }) });
    const started = (await act(sub.id, 'start')).body;
    expect(started).toMatchObject({
      status: 'trialing',
      trial_end: '2027-03-15T12:00:00.000Z',
      current_period_start: '2027-03-01T12:00:00.000Z',
      current_period_end: '2027-03-15T12:00:00.000Z',
      next_charge_date: '2027-03-15T12:00:00.000Z',
    });
    await advance(13);
    expect((await get(sub.id)).charges).toHaveLength(0);
    await advance(1);
    expect(await get(sub.id)).toMatchObject({
      status: 'active',
      current_period_start: '2027-03-15T12:00:00.000Z',
      current_period_end: '2027-04-15T12:00:00.000Z',
      charges: [{ period: 1, status: 'charged' }],
    });
  });

  it('paused for three periods owes nothing; resumed, a period starts and is charged at the resume date', async () => {
    at('2027-06-10T08:00:00.000Z');
    const sub = await subscription();
    await act(sub.id, 'start');
    await advance(0);
    await advance(30);
    expect((await get(sub.id)).charges).toHaveLength(2);
    const paused = await act(sub.id, 'pause');
    expect(paused.body).toMatchObject({ status: 'paused', next_charge_date: null });
    await advance(31);
    await advance(31);
    await advance(30);
    expect((await get(sub.id)).charges).toHaveLength(2);
    await advance(5);
    const resumedAt = now();
    const resumed = await act(sub.id, 'active');
    expect(resumed.body.status).toBe('active');
    await charge();
    const after = await get(sub.id);
    expect(after.charges).toHaveLength(3);
    const third = after.charges[2];
    expect(Date.parse(third.period_start)).toBeGreaterThanOrEqual(resumedAt.getTime());
    expect(Date.parse(third.period_start) - resumedAt.getTime()).toBeLessThan(DAY);
    expect(after.current_period_start).toBe(third.period_start);
    expect(after.next_charge_date).toBe(third.period_end);
    expect(third.period).toBe(3);
  });

  it('stop: no charge after it, even for a scheduler pass that had already claimed the subscription', async () => {
    const sub = await subscription();
    await act(sub.id, 'start');
    const deps = t.service.deps;
    // The pass has claimed the due subscription…
    const claimed = await claimDueSubscriptions(deps.database.db, now(), 60_000, 100, 'pass-1');
    expect(claimed.map((s) => s.id)).toContain(sub.id);
    // …the merchant stops it before the pass charges…
    const stopped = await act(sub.id, 'stop');
    expect(stopped.body).toMatchObject({ status: 'stopped', stop_reason: 'requested', next_charge_date: null });
    // …and the pass goes on: nothing is charged.
    const outcome = await chargeSubscriptionPeriod(deps, claimed.find((s) => s.id === sub.id)!, 'pass-1');
    expect(outcome).toBe('skipped');
    await advance(400);
    const after = await get(sub.id);
    expect(after.charges).toEqual([]);
    expect(after.status).toBe('stopped');
    expect((await api.get(`/sale/?authorization_id=${sub.authorization}`)).body.count).toBe(0);
    expect((await act(sub.id, 'active')).status).toBe(409);
  });

  it('stop while a period\'s charge is being recorded: it waits for it, stops, and is dated after it', async () => {
    const id = await inState('active');
    const db = t.service.deps.database.db;
    let released = '';
    let stopping: Promise<{ status: number; body: any }> | undefined;
    // What recording a charged period does to the subscription (its schedule, updated_at), held open.
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('subscriptions').set({ updated_at: new Date().toISOString() }).where('id', '=', id).execute();
      stopping = act(id, 'stop');
      await blockedBehind(t.service.deps.database, trx, stopping);
      released = new Date().toISOString();
    });
    const stopped = await stopping!;
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    expect(stopped.body).toMatchObject({ status: 'stopped', stop_reason: 'requested' });
    expect(stopped.body.stopped >= released, `stopped ${stopped.body.stopped}, charge recorded ${released}`).toBe(true);
  });

  // The action's write is made by hand, held open while the gateway's answer is recorded: on
  // PostgreSQL the recording did not see it, then wrote its own schedule over it once it was
  // committed (a stopped subscription back to active, a paused one to past_due).
  it.each([
    { action: 'stop', number: TEST_CARDS.approved, charge: 'charged' },
    { action: 'pause', number: TEST_CARDS.insufficientFunds, charge: 'failed' },
  ] as const)('$action while a $charge period is being recorded: the subscription stays as the action left it', async ({ action, number, charge: recorded }) => {
    const sub = await subscription({ authorization: await card(number, HELD_ID) });
    expect((await act(sub.id, 'start')).status).toBe(200);
    const call = held.hold('charge');
    const charging = charge();
    await call.arrived;
    const at = new Date().toISOString();
    const target = action === 'stop' ? { status: 'stopped', stopped_at: at, stop_reason: 'requested' as const } : { status: 'paused', paused_at: at };
    await t.service.deps.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('subscriptions').set({ ...target, next_charge_at: null, updated_at: at }).where('id', '=', sub.id).execute();
      call.release();
      await blockedBehind(t.service.deps.database, trx, charging);
    });
    expect(await charging).toBe(1);
    const after = await get(sub.id);
    expect(after).toMatchObject({ status: target.status, next_charge_date: null });
    expect(after.charges).toEqual([expect.objectContaining({ period: 1, status: recorded })]);
  });

  it('retries a declining card 1, 3 and 5 days after the due date as past_due, and recovers with a working card', async () => {
    at('2027-09-01T10:00:00.000Z');
    const sub = await subscription({ authorization: await card(TEST_CARDS.insufficientFunds), notify_url: hook.url });
    await act(sub.id, 'start');
    await charge();
    const due = await get(sub.id);
    expect(due).toMatchObject({ status: 'past_due', failed_attempts: 1, next_charge_date: '2027-09-02T10:00:00.000Z' });
    expect(due.charges).toEqual([expect.objectContaining({ period: 1, status: 'failed', attempts: 1, failure: 'insufficient_funds', sale: null })]);
    expect(due.payment_url).toMatch(/\/pay\/sub_/);
    await advance(1);
    expect(await get(sub.id)).toMatchObject({ status: 'past_due', failed_attempts: 2, next_charge_date: '2027-09-04T10:00:00.000Z' });

    // The customer gives a working card on the payment page: the owed period is due at once.
    const token = /\/pay\/([^/]+)\//.exec(due.payment_url)![1]!;
    const paid = await payWithCard(t.url, token, TEST_CARDS.approved);
    expect(paid.status).toBe(200);
    await charge();
    const recovered = await get(sub.id);
    expect(recovered).toMatchObject({ status: 'active', failed_attempts: 0, payment_url: null, current_period_start: '2027-09-01T10:00:00.000Z' });
    expect(recovered.authorization).not.toBe(sub.authorization);
    expect(recovered.charges).toEqual([expect.objectContaining({ period: 1, status: 'charged', attempts: 3, failure: null })]);
    expect(recovered.next_charge_date).toBe('2027-10-01T10:00:00.000Z');

    await deliver();
    const types = hook.received.filter((r) => r.payload.data?.id === sub.id).map((r) => r.payload.type);
    // Delivered side by side: the order of arrival is not the order of the events.
    expect(types.sort()).toEqual(['subscription.charge_failed', 'subscription.charge_failed', 'subscription.charged', 'subscription.past_due', 'subscription.started']);
  });

  it('stops the subscription after the last retry fails', async () => {
    at('2027-09-01T10:00:00.000Z');
    const sub = await subscription({ authorization: await card(TEST_CARDS.insufficientFunds), notify_url: hook.url });
    await act(sub.id, 'start');
    await charge();
    for (const days of [1, 2, 2]) await advance(days);
    const end = await get(sub.id);
    expect(end).toMatchObject({ status: 'stopped', stop_reason: 'payment_failed', next_charge_date: null, payment_url: null });
    expect(end.charges).toEqual([expect.objectContaining({ period: 1, status: 'failed', attempts: 4 })]);
    await advance(60);
    expect((await get(sub.id)).charges[0].attempts).toBe(4);
  });

  it('notifies subscription.* changes to the notify_url, signed, with the subscription as data', async () => {
    const sub = await subscription({ notify_url: hook.url });
    await act(sub.id, 'start');
    await charge();
    await act(sub.id, 'pause');
    await act(sub.id, 'active');
    await act(sub.id, 'stop');
    await deliver();
    const received = hook.received.filter((r) => r.payload.data?.id === sub.id);
    const byType = new Map(received.map((r) => [r.payload.type, r.payload]));
    expect([...byType.keys()].sort()).toEqual([
      'subscription.charged',
      'subscription.paused',
      'subscription.resumed',
      'subscription.started',
      'subscription.stopped',
    ]);
    expect(received).toHaveLength(5);
    const wh = new Webhook(api.keys.webhook_secret);
    for (const r of received) expect(wh.verify(r.body, r.headers as Record<string, string>)).toEqual(r.payload);
    expect(byType.get('subscription.charged')!.data).toMatchObject({ status: 'active', charges: [{ period: 1, status: 'charged' }] });
    expect(byType.get('subscription.paused')!.data).toMatchObject({ status: 'paused' });
    expect(byType.get('subscription.stopped')!.data).toMatchObject({ status: 'stopped' });
  });
});
