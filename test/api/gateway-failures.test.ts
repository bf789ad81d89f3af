import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import type { Gateway } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { createSandboxCard, createSandboxRedirect, SANDBOX_REDIRECT_ID, signSandboxNotification } from '../../server/payments/sandbox';
import { listCalls } from '../../server/store/gateway-calls';
import type { GatewayCallKind } from '../../server/store/schema';
import { CONTROLLED_ID, type ControlledGateway, FAILURE_MODES, withControlled } from './gateways';
import { type Client, ENGINES, problemPaths, type TestService, testClock, transactionBody } from './harness';
import { startIsolatedService } from './database';
import { cancelToken, payWithCard } from './pay';

// The gateway failure matrix: a gateway that declines, refuses before acting, throws,
// times out or hangs, through the checkout and through the API. A decline or a refusal
// changes nothing and says so (a locale key on the screen, a problem+json 402 or 502 in
// the API), never a 500. No answer is an unknown outcome: the sale is pending (202, the
// page "checking"), and reconciliation proves it: a late success is recorded, a
// `not_found` believed only after the settle window.

const CARD = { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'A' };

describe.each(ENGINES)('gateway failures on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let gw: ControlledGateway;
  const clock = testClock();
  const SETTLE_WINDOW_MS = 600_000;

  beforeAll(async () => {
    const { gateways, controlled } = withControlled();
    gw = controlled;
    // A short timeout: the hanging gateway is given up on quickly (no test waits for it).
    // A database of its own: its reconciliation, on a clock moved past the settle window, takes every due call it finds.
    t = await startIsolatedService(engine, { gateways, now: clock.now, env: { GATEWAY_TIMEOUT_MS: '300', PAYMENT_SETTLE_WINDOW_MS: String(SETTLE_WINDOW_MS), ALLOW_PRIVATE_NOTIFY_URLS: 'true' } });
    api = await t.newEnvironment('Failure Shop');
  });
  afterAll(async () => {
    await gw?.completeHung();
    await t?.close();
  });
  beforeEach(() => {
    gw.mode = 'ok';
  });

  async function created(over: Record<string, unknown> = {}) {
    const res = await api.post('/transaction/', transactionBody(over));
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; token: string };
  }

  const salesOf = (q: string) => api.count(`/sale/?${q}`);
  const pendingCalls = async (kind: GatewayCallKind) =>
    (await t.service.deps.database.db.selectFrom('gateway_calls').select('id').where('kind', '=', kind).where('state', '=', 'pending').execute()).length;
  /** The states of a subject's gateway calls of one kind. */
  const callStates = async (kind: string, subject: string) =>
    (await listCalls(t.service.deps.database.db, subject)).filter((c) => c.kind === kind).map((c) => c.state);
  const reconcile = () => t.service.jobs.runOnce(JOB_NAMES.reconciliation);
  /** Reconciliation once the settle window is over: a `not_found` is believed then. */
  async function pastTheWindow() {
    clock.advance(SETTLE_WINDOW_MS + 1000);
    await reconcile();
  }

  /** What the payment page shows now. */
  async function screen(token: string) {
    const html = await (await fetch(`${t.url}/pay/${token}/`)).text();
    const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)!;
    return (JSON.parse(state[1]!) as { view: { status: string } }).view;
  }

  async function payControlled(token: string) {
    const res = await payWithCard(t.url, token, TEST_CARDS.approved, CONTROLLED_ID);
    return { status: res.status, body: (await res.json()) as { outcome: string; view: { status: string; error: { message: string } | null } } };
  }

  describe.each(FAILURE_MODES)('the gateway %s', (mode) => {
    /** No answer: the outcome is unknown, never "nothing was charged". */
    const unknown = mode === 'throw' || mode === 'timeout' || mode === 'hang';

    it('checkout: a decline or refusal frees the transaction; an unknown outcome is checked, taking no second payment', async () => {
      const tx = await created();
      gw.mode = mode;
      const first = await payControlled(tx.token);
      expect(first.status).toBe(200);
      if (!unknown) {
        expect(first.body.view).toMatchObject({ status: mode === 'decline' ? 'declined' : 'pending', error: { message: mode === 'decline' ? 'error.declined' : 'error.gatewayFailed' } });
        expect(await salesOf(`transaction_id=${tx.id}`)).toBe(0);
      } else {
        expect(first.body.view.status).toBe('checking');
        expect(await salesOf(`transaction_id=${tx.id}`)).toBe(0);
        // No second payment for the same token while the first is in doubt: the gateway is not asked.
        gw.mode = 'ok';
        const calls = gw.received.length;
        const second = await payControlled(tx.token);
        expect(second.status).toBe(409);
        expect(gw.received).toHaveLength(calls);
        // The processor never saw it (throw, timeout) or made it and lost the answer (hang).
        await gw.completeHung();
        await reconcile();
        if (mode === 'hang') {
          // Made after our timeout: recorded, once.
          expect(await api.count(`/sale/?transaction_id=${tx.id}&status=captured`)).toBe(1);
          expect((await api.get(`/transaction/${tx.id}/`)).body.status).toBe('D');
          return;
        }
        // Not found is not believed at once: still being checked until the settle window is over.
        expect((await screen(tx.token)).status).toBe('checking');
        await pastTheWindow();
        expect(await salesOf(`transaction_id=${tx.id}`)).toBe(0);
      }
      expect((await api.get(`/transaction/${tx.id}/`)).body.status).toBe('N');
      gw.mode = 'ok';
      const paid = await payControlled(tx.token);
      expect(paid.body.view.status, JSON.stringify(paid.body.view.error)).toBe('paid');
      expect(await api.count(`/sale/?transaction_id=${tx.id}&status=captured`)).toBe(1);
    });

    it('API: storing a card is a 402 (declined), a 502 (surely not acted) or a 202 with the authorization pending until proven', async () => {
      const before = await api.count('/authorization/');
      gw.mode = mode;
      const key = { 'idempotency-key': `store-${mode}-${engine}` };
      // With a notify_url, so its events are kept.
      const body = { gateway: CONTROLLED_ID, card: CARD, notify_url: 'http://127.0.0.1:9/hooks' };
      const res = await api.post('/authorization/', body, key);
      if (!unknown) {
        expect(res.status, res.text).toBe(mode === 'decline' ? 402 : 502);
        problemPaths(res);
        expect(await api.count('/authorization/')).toBe(before);
        // Ended at once: nothing left for reconciliation to look up (the modes before this one left none either).
        expect(await pendingCalls('store')).toBe(0);
        return;
      }
      expect(res.status, res.text).toBe(202);
      expect(res.body).toMatchObject({ status: 'pending', card: null });
      const id = res.body.id as string;
      // A retry with the same key answers the current state: the same authorization, still pending; the gateway not asked again.
      gw.mode = 'ok';
      const calls = gw.received.length;
      const again = await api.post('/authorization/', body, key);
      expect([again.status, again.body.id, again.body.status]).toEqual([202, id, 'pending']);
      // Not chargeable while pending.
      expect((await api.post(`/authorization/${id}/charge/`, { amount: 1, currency: 'EUR' })).status).toBe(409);
      await gw.completeHung();
      await reconcile();
      if (mode !== 'hang') {
        // Not found is believed only once the settle window is over.
        expect((await api.get(`/authorization/${id}/`)).body.status).toBe('pending');
        await pastTheWindow();
      }
      const settled = await api.post('/authorization/', body, key);
      if (mode === 'hang') {
        // Stored after our timeout: the same authorization, active, with its card.
        expect([settled.status, settled.body.id, settled.body.status]).toEqual([201, id, 'active']);
      } else {
        expect(settled.status, settled.text).toBe(502);
        expect((await api.get(`/authorization/${id}/`)).body.status).toBe('failed');
      }
      expect(gw.received).toHaveLength(calls);
      const events = (await api.get(`/event/?object_id=${id}`)).body.results as { type: string }[];
      expect(events.map((e) => e.type)).toEqual([mode === 'hang' ? 'authorization.created' : 'authorization.failed']);
    });

    it('API: a charge is a 402 with the declined sale, a 502 with none, or a 202 with the sale pending', async () => {
      const stored = await api.post('/authorization/', { gateway: CONTROLLED_ID, card: CARD });
      expect(stored.status, stored.text).toBe(201);
      gw.mode = mode;
      const res = await api.post(`/authorization/${stored.body.id}/charge/`, { amount: 5, currency: 'EUR' }, { 'idempotency-key': `charge-${mode}-${stored.body.id}` });
      expect(res.status, res.text).toBe({ decline: 402, refuse: 502, throw: 202, timeout: 202, hang: 202 }[mode]);
      if (res.status >= 400) {
        problemPaths(res);
        expect(res.body.detail).not.toMatch(unknown ? /nothing was charged/ : /^$/);
      }
      const sales = (await api.get(`/sale/?authorization_id=${stored.body.id}`)).body.results as { id: string; status: string }[];
      expect(sales.map((s) => s.status)).toEqual({ decline: ['declined'], refuse: [], throw: ['pending'], timeout: ['pending'], hang: ['pending'] }[mode]);
      if (!unknown) {
        expect(await callStates('charge', stored.body.id)).toEqual(['failed']);
        return;
      }
      expect(res.body).toMatchObject({ id: sales[0]!.id, status: 'pending' });
      // A retry of the key answers the same sale's current state, without a new gateway call.
      gw.mode = 'ok';
      const calls = gw.received.length;
      const again = await api.post(`/authorization/${stored.body.id}/charge/`, { amount: 5, currency: 'EUR' }, { 'idempotency-key': `charge-${mode}-${stored.body.id}` });
      expect(again.status, again.text).toBe(202);
      expect(again.body).toMatchObject({ id: sales[0]!.id, status: 'pending' });
      expect(gw.received).toHaveLength(calls);
      await gw.completeHung();
      await reconcile();
      if (mode !== 'hang') await pastTheWindow();
      const settled = await api.post(`/authorization/${stored.body.id}/charge/`, { amount: 5, currency: 'EUR' }, { 'idempotency-key': `charge-${mode}-${stored.body.id}` });
      if (mode === 'hang') {
        expect(settled.status, settled.text).toBe(201);
        expect(settled.body).toMatchObject({ id: sales[0]!.id, status: 'captured', captured: 5 });
      } else {
        // Never made: the sale ends failed, not declined.
        expect(settled.status, settled.text).toBe(502);
        expect((await api.get(`/sale/${sales[0]!.id}/`)).body).toMatchObject({ status: 'failed', failure: 'not_processed' });
      }
      expect(gw.received).toHaveLength(calls);
    });

    it('API: a capture is a 502 that changes nothing, or a 202 with the sale pending and the amount reserved', async () => {
      const tx = await created({ authorize: true });
      expect((await payControlled(tx.token)).body.view.status).toBe('paid');
      const sale = (await api.get(`/sale/?transaction_id=${tx.id}`)).body.results[0];
      gw.mode = mode;
      const res = await api.post(`/sale/${sale.id}/capture/`, { amount: 5 });
      expect(res.status, res.text).toBe(unknown ? 202 : 502);
      const after = (await api.get(`/sale/${sale.id}/`)).body;
      if (!unknown) {
        problemPaths(res);
        expect(after).toMatchObject({ held: sale.held, captured: 0, status: 'held' });
        expect(after.operations).toHaveLength(1);
        // The amount it reserved is released: all of it can be captured now.
        gw.mode = 'ok';
        expect((await api.post(`/sale/${sale.id}/capture/`, { amount: sale.held })).status).toBe(200);
        return;
      }
      expect(res.body).toMatchObject({ id: sale.id, status: 'pending' });
      // Reserved while unknown (still held at the processor, not capturable twice).
      expect(after).toMatchObject({ status: 'pending', held: sale.held, captured: 0 });
      gw.mode = 'ok';
      expect((await api.post(`/sale/${sale.id}/capture/`, { amount: sale.held })).status).toBe(409);
      await gw.completeHung();
      await reconcile();
      if (mode !== 'hang') await pastTheWindow();
      const settled = (await api.get(`/sale/${sale.id}/`)).body;
      expect(settled).toMatchObject(mode === 'hang' ? { captured: 5, status: 'partially_captured' } : { captured: 0, held: sale.held, status: 'held' });
    });
  });

  it("the processor's notification settles a charge of unknown outcome; one the gateway module does not verify changes nothing", async () => {
    const stored = await api.post('/authorization/', { gateway: CONTROLLED_ID, card: CARD });
    gw.mode = 'throw';
    const pending = await api.post(`/authorization/${stored.body.id}/charge/`, { amount: 3, currency: 'EUR' });
    expect(pending.status, pending.text).toBe(202);
    const [call] = (await listCalls(t.service.deps.database.db, stored.body.id)).filter((c) => c.kind === 'charge');
    const notify = (body: string, signature: string) =>
      fetch(`${t.url}/gateways/controlled-card/notify`, { method: 'POST', headers: { 'content-type': 'application/json', 'sandbox-signature': signature }, body });
    const body = JSON.stringify({ reference: call!.reference, status: 'succeeded', payment: 'proc_late_1' });
    expect((await notify(body, signSandboxNotification(body).replace(/^./, (c) => (c === '0' ? '1' : '0')))).status).toBe(400);
    expect((await api.get(`/sale/${pending.body.id}/`)).body.status).toBe('pending');
    expect((await fetch(`${t.url}/gateways/no-such-gateway/notify`, { method: 'POST', body })).status).toBe(404);
    expect((await notify(body, signSandboxNotification(body))).status).toBe(204);
    expect((await api.get(`/sale/${pending.body.id}/`)).body).toMatchObject({ status: 'captured', captured: 3 });
    // A repeat of the notification changes nothing.
    expect((await notify(body, signSandboxNotification(body))).status).toBe(204);
    expect(await api.count(`/sale/?authorization_id=${stored.body.id}`)).toBe(1);
  });

  it.each(['paid by another attempt', 'cancelled'])(
    'a success told after the settle window, for a transaction %s meanwhile, is recorded as a sale of its own and reversed',
    async (meanwhile) => {
      const tx = await created({ notify_url: 'http://127.0.0.1:9/hooks' });
      gw.mode = 'throw';
      expect((await payControlled(tx.token)).body.view.status).toBe('checking');
      const [call] = await listCalls(t.service.deps.database.db, tx.id);
      // Never found all through the window: failed, the transaction payable again.
      gw.mode = 'ok';
      await reconcile();
      await pastTheWindow();
      expect((await screen(tx.token)).status).toBe('pending');
      if (meanwhile === 'cancelled') await cancelToken(t.url, tx.token);
      else expect((await payControlled(tx.token)).body.view.status).toBe('paid');
      const status = (await api.get(`/transaction/${tx.id}/`)).body.status;
      expect(status).toBe(meanwhile === 'cancelled' ? 'C' : 'D');

      // The processor tells it had made the first payment after all.
      const payment = `proc_late_${tx.id}`;
      const body = JSON.stringify({ reference: call!.reference, status: 'succeeded', payment });
      const notify = () =>
        fetch(`${t.url}/gateways/controlled-card/notify`, { method: 'POST', headers: { 'content-type': 'application/json', 'sandbox-signature': signSandboxNotification(body) }, body });
      expect((await notify()).status).toBe(204);
      const late = (await api.get('/sale/?page_size=100')).body.results.filter((s: { late_for_transaction: string | null }) => s.late_for_transaction === tx.id);
      expect(late).toHaveLength(1);
      expect(late[0]).toMatchObject({ transaction_id: null, status: 'refunded', captured: 17, refunded: 17 });
      expect(late[0].operations.map((o: { kind: string }) => o.kind)).toEqual(['capture', 'refund']);
      expect(gw.received.filter((c) => c.method === 'refund' && c.payment === payment)).toHaveLength(1);
      // The transaction is as it was; its events say what happened to the late payment.
      expect((await api.get(`/transaction/${tx.id}/`)).body.status).toBe(status);
      const events = (await api.get(`/event/?object_id=${late[0].id}`)).body.results.map((e: { type: string }) => e.type);
      expect(events.sort()).toEqual(['sale.created', 'sale.late_payment', 'sale.refunded']);
      // A repeat of the notification changes nothing.
      expect((await notify()).status).toBe(204);
      expect((await api.get('/sale/?page_size=100')).body.results.filter((s: { late_for_transaction: string | null }) => s.late_for_transaction === tx.id)).toHaveLength(1);
    },
  );

  it('a charge success told after the settle window failed it is recorded into its sale and refunded, once', async () => {
    const stored = await api.post('/authorization/', { gateway: CONTROLLED_ID, card: CARD });
    gw.mode = 'throw';
    const pending = await api.post(`/authorization/${stored.body.id}/charge/`, { amount: 3, currency: 'EUR', description: 'late' });
    expect(pending.status, pending.text).toBe(202);
    const [call] = (await listCalls(t.service.deps.database.db, stored.body.id)).filter((c) => c.kind === 'charge');
    // Never found all through the window: the merchant is told it failed.
    gw.mode = 'ok';
    await reconcile();
    await pastTheWindow();
    expect((await api.get(`/sale/${pending.body.id}/`)).body).toMatchObject({ status: 'failed', captured: 0 });

    const payment = `proc_late_${call!.id}`;
    const body = JSON.stringify({ reference: call!.reference, status: 'succeeded', payment });
    const notify = () =>
      fetch(`${t.url}/gateways/controlled-card/notify`, { method: 'POST', headers: { 'content-type': 'application/json', 'sandbox-signature': signSandboxNotification(body) }, body });
    expect((await notify()).status).toBe(204);
    const sale = (await api.get(`/sale/${pending.body.id}/`)).body;
    expect(sale).toMatchObject({ status: 'refunded', captured: 3, refunded: 3 });
    expect(sale.operations.map((o: { kind: string }) => o.kind)).toEqual(['charge', 'refund']);
    expect(gw.received.filter((c) => c.method === 'refund' && c.payment === payment)).toHaveLength(1);
    const events = (await api.get(`/event/?object_id=${sale.id}`)).body.results.map((e: { type: string }) => e.type);
    expect(events.sort()).toEqual(['sale.failed', 'sale.late_payment', 'sale.refunded']);
    // A repeat of the notification changes nothing.
    expect((await notify()).status).toBe(204);
    expect(gw.received.filter((c) => c.method === 'refund' && c.payment === payment)).toHaveLength(1);
    expect(await api.count(`/sale/?authorization_id=${stored.body.id}`)).toBe(1);
  });

  it('a payment made by a gateway that answered after our timeout is recorded once, and nothing stays pending', async () => {
    const tx = await created();
    gw.mode = 'hang';
    expect((await payControlled(tx.token)).body.view.status).toBe('checking');
    const [call] = await listCalls(t.service.deps.database.db, tx.id);
    expect(call).toMatchObject({ kind: 'pay', state: 'pending' });
    expect(call!.unknown_since).not.toBeNull();
    await gw.completeHung();
    gw.mode = 'ok';
    await reconcile();
    await reconcile();
    expect(gw.received.filter((c) => c.reference === `${call!.reference}_reversal`)).toHaveLength(0);
    expect((await listCalls(t.service.deps.database.db, tx.id))[0]!.state).toBe('succeeded');
    expect(await salesOf(`transaction_id=${tx.id}`)).toBe(1);
    expect(await salesOf('status=pending')).toBe(0);
  });
});

describe.each(ENGINES)('a redirect gateway that fails when the customer is sent to it, on %s', (engine) => {
  let t: TestService;
  let api: Client;
  const provider = { down: false };

  beforeAll(async () => {
    const redirect = createSandboxRedirect();
    const failing: Gateway = {
      ...redirect,
      async pay(input) {
        // Down: it refuses at once, surely having done nothing (interface version 2).
        if (provider.down) return { outcome: 'not_acted', reason: 'the provider is down' };
        return redirect.pay(input);
      },
    };
    t = await startIsolatedService(engine, { gateways: createGateways([createSandboxCard(), failing]) });
    api = await t.newEnvironment('Redirect Shop');
  });
  afterAll(() => t?.close());

  /** The page's state: what the screen shows. */
  async function screen(path: string) {
    const html = await (await fetch(new URL(path, t.url))).text();
    const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)!;
    return (JSON.parse(state[1]!) as { view: { status: string; csrf: string; error: { message: string } | null } }).view;
  }

  /**
   * The customer chooses the redirect gateway and approves on its page; answers where the
   * checkout sends them (back to the payment page when the provider refused at once).
   */
  async function approve(token: string) {
    const { csrf } = await screen(`/pay/${token}/`);
    const chosen = await fetch(`${t.url}/pay/${token}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.url },
      body: new URLSearchParams({ action: 'pay', gateway: SANDBOX_REDIRECT_ID, csrf }),
    });
    if (chosen.status !== 303) return { status: chosen.status, view: await chosen.text() };
    const page = await (await fetch(chosen.headers.get('location')!)).text();
    const [, action, inner] = /<form method="post" action="([^"]+)">(.*?)<\/form>/.exec(page)!;
    const fields = Object.fromEntries([...inner!.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map(([, n, v]) => [n!, v!]));
    const res = await fetch(action!.replaceAll('&amp;', '&'), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    expect(res.status).toBe(303);
    return { status: 303, location: res.headers.get('location')! };
  }

  it('shows that the provider failed (not a decline), charges nothing, and lets the customer try again', async () => {
    const tx = (await api.post('/transaction/', transactionBody())).body as { id: string; token: string };
    provider.down = true;
    const refused = await approve(tx.token);
    expect(refused.status).toBe(200);
    expect(refused.view).toContain('"message":"error.gatewayFailed"');
    expect(refused.view).toContain('"status":"pending"');
    expect(await api.count(`/sale/?transaction_id=${tx.id}`)).toBe(0);

    provider.down = false;
    expect(await approve(tx.token)).toEqual({ status: 303, location: `/pay/${tx.token}/` });
    expect((await api.get(`/transaction/${tx.id}/`)).body.status).toBe('D');
  });
});

describe.each(ENGINES)('an Idempotency-Key whose request waits on a slow gateway, on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let gw: ControlledGateway;
  const clock = testClock();

  beforeAll(async () => {
    const { gateways, controlled } = withControlled();
    gw = controlled;
    // A gateway allowed 30 s: the request outlives the key's plain 60 s only on the test's clock.
    t = await startIsolatedService(engine, { gateways, now: clock.now, env: { GATEWAY_TIMEOUT_MS: '30000' } });
    api = await t.newEnvironment('Slow Gateway Shop');
  });
  afterAll(async () => {
    await gw?.completeHung();
    await t?.close();
  });

  it('is not taken over while the gateway call may still run: a repeat is a 409, the gateway is asked once', async () => {
    const stored = await api.post('/authorization/', { gateway: CONTROLLED_ID, card: CARD });
    expect(stored.status, stored.text).toBe(201);
    const charge = { amount: 5, currency: 'EUR' };
    const key = { 'idempotency-key': `slow-${stored.body.id}` };
    gw.mode = 'hang';
    const asked = gw.nextCall();
    const first = api.post(`/authorization/${stored.body.id}/charge/`, charge, key);
    await asked;

    // 61 s later by the service's clock, the first request is still waiting on its gateway call.
    clock.advance(61_000);
    const repeat = await api.post(`/authorization/${stored.body.id}/charge/`, charge, key);
    expect(repeat.status, repeat.text).toBe(409);
    expect(repeat.body.type).toBe('urn:problem:idempotency-in-flight');
    expect(gw.received.filter((c) => c.method === 'charge')).toHaveLength(1);

    // The processor acts after all and the answer is lost: the outcome is unknown, the sale pending.
    await gw.completeHung();
    const answer = await first;
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.status).toBe('pending');
  });
});
