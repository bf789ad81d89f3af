import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import type { Gateway } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { createSandboxCard, createSandboxRedirect, TEST_CARDS } from '../../server/payments/sandbox';
import { listCalls } from '../../server/store/gateway-calls';
import { CONTROLLED_ID, type ControlledGateway, FAILURE_MODES, withControlled } from './gateways';
import { type Client, ENGINES, problemPaths, startTestService, type TestService, testClock, transactionBody } from './harness';
import { payWithCard } from './pay';

// The gateway failure matrix: a gateway that declines, throws, times out or hangs, through
// the checkout and through the API. No sale, the attempt released, a clear message (a
// locale key on the screen, a problem+json 402 or 502 in the API), never a 500. A gateway
// that hangs and then acts after all is found by reconciliation and undone or recorded.

const CARD = { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'A' };

describe.each(ENGINES)('gateway failures on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let gw: ControlledGateway;

  beforeAll(async () => {
    const { gateways, controlled } = withControlled();
    gw = controlled;
    // A short timeout: the hanging gateway is given up on quickly (no test waits for it).
    t = await startTestService(engine, { gateways, env: { GATEWAY_TIMEOUT_MS: '300' } });
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

  async function payControlled(token: string) {
    const res = await payWithCard(t.url, token, TEST_CARDS.approved, CONTROLLED_ID);
    return { status: res.status, body: (await res.json()) as { outcome: string; view: { status: string; error: { message: string } | null } } };
  }

  describe.each(FAILURE_MODES)('the gateway %s', (mode) => {
    it('checkout: a clear message, no sale, the attempt released for the next try', async () => {
      const tx = await created();
      gw.mode = mode;
      const failed = await payControlled(tx.token);
      expect(failed.status).toBe(200);
      const expected = { decline: 'error.declined', throw: 'error.gatewayFailed', timeout: 'error.gatewayTimeout', hang: 'error.gatewayTimeout' }[mode];
      expect(failed.body.view).toMatchObject({ status: mode === 'decline' ? 'declined' : 'pending', error: { message: expected } });
      expect(await salesOf(`transaction_id=${tx.id}`)).toBe(0);
      expect((await api.get(`/transaction/${tx.id}/`)).body.status).toBe('N');

      gw.mode = 'ok';
      const paid = await payControlled(tx.token);
      expect(paid.body.view.status).toBe('paid');
      expect(await salesOf(`transaction_id=${tx.id}`)).toBe(1);
    });

    it('API: storing a card is a 402 (declined) or a 502 (failed), storing nothing', async () => {
      const before = await api.count('/authorization/');
      gw.mode = mode;
      const res = await api.post('/authorization/', { gateway: CONTROLLED_ID, card: CARD });
      expect(res.status, res.text).toBe(mode === 'decline' ? 402 : 502);
      problemPaths(res);
      expect(await api.count('/authorization/')).toBe(before);
    });

    it('API: charging a stored card is a 402 with the declined attempt recorded, or a 502 with no sale', async () => {
      const stored = await api.post('/authorization/', { gateway: CONTROLLED_ID, card: CARD });
      expect(stored.status, stored.text).toBe(201);
      gw.mode = mode;
      const res = await api.post(`/authorization/${stored.body.id}/charge/`, { amount: 5, currency: 'EUR' });
      expect(res.status, res.text).toBe(mode === 'decline' ? 402 : 502);
      problemPaths(res);
      const sales = (await api.get(`/sale/?authorization_id=${stored.body.id}`)).body.results as { status: string }[];
      expect(sales.map((s) => s.status)).toEqual(mode === 'decline' ? ['declined'] : []);
    });

    it('API: a capture is a 502 and changes nothing', async () => {
      const tx = await created({ authorize: true });
      expect((await payControlled(tx.token)).body.view.status).toBe('paid');
      const sale = (await api.get(`/sale/?transaction_id=${tx.id}`)).body.results[0];
      gw.mode = mode;
      const res = await api.post(`/sale/${sale.id}/capture/`, { amount: 5 });
      expect(res.status, res.text).toBe(502);
      problemPaths(res);
      const after = (await api.get(`/sale/${sale.id}/`)).body;
      expect(after).toMatchObject({ held: sale.held, captured: 0, status: 'held' });
      expect(after.operations).toHaveLength(1);
    });
  });

  it('a payment the gateway carried out after hanging is reversed by reconciliation, once', async () => {
    const tx = await created();
    gw.mode = 'hang';
    expect((await payControlled(tx.token)).body.view.error?.message).toBe('error.gatewayTimeout');
    const [call] = await listCalls(t.service.deps.database.db, tx.id);
    expect(call).toMatchObject({ kind: 'pay', state: 'abandoned' });
    await gw.completeHung();
    gw.mode = 'ok';
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    const reversals = gw.received.filter((c) => c.reference === `${call!.reference}_reversal`);
    expect(reversals).toHaveLength(1);
    expect(reversals[0]!.method).toBe('refund');
    expect((await listCalls(t.service.deps.database.db, tx.id))[0]!.state).toBe('reversed');
    expect(await salesOf(`transaction_id=${tx.id}`)).toBe(0);
  });

  it('a capture the gateway carried out after hanging is recorded by reconciliation, once', async () => {
    const tx = await created({ authorize: true });
    expect((await payControlled(tx.token)).body.view.status).toBe('paid');
    const sale = (await api.get(`/sale/?transaction_id=${tx.id}`)).body.results[0];
    gw.mode = 'hang';
    expect((await api.post(`/sale/${sale.id}/capture/`, { amount: 5 })).status).toBe(502);
    await gw.completeHung();
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    const after = (await api.get(`/sale/${sale.id}/`)).body;
    expect(after).toMatchObject({ captured: 5, status: 'partially_captured' });
    expect(after.operations.map((o: { kind: string }) => o.kind)).toEqual(['authorize', 'capture']);
  });
});

describe.each(ENGINES)('a redirect gateway that fails when the customer comes back, on %s', (engine) => {
  let t: TestService;
  let api: Client;
  const provider = { down: false };

  beforeAll(async () => {
    const redirect = createSandboxRedirect();
    const failing: Gateway = {
      ...redirect,
      async pay(input) {
        if (provider.down) throw new Error('the provider is down');
        return redirect.pay(input);
      },
    };
    t = await startTestService(engine, { gateways: createGateways([createSandboxCard(), failing]) });
    api = await t.newEnvironment('Redirect Shop');
  });
  afterAll(() => t?.close());

  /** The page's state: what the screen shows. */
  async function screen(path: string) {
    const html = await (await fetch(new URL(path, t.url))).text();
    const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)!;
    return (JSON.parse(state[1]!) as { view: { status: string; csrf: string; error: { message: string } | null } }).view;
  }

  /** The customer approves on the provider's page; answers where the checkout sends them. */
  async function approve(token: string) {
    const { csrf } = await screen(`/pay/${token}/`);
    const res = await fetch(`${t.url}/pay/${token}/provider/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.url },
      body: new URLSearchParams({ decision: 'approve', csrf }),
    });
    expect(res.status).toBe(303);
    return res.headers.get('location')!;
  }

  it('shows that the provider failed (not a decline), charges nothing, and lets the customer try again', async () => {
    const tx = (await api.post('/transaction/', transactionBody())).body as { id: string; token: string };
    provider.down = true;
    const back = await approve(tx.token);
    expect(back).toBe(`/pay/${tx.token}/?failed=1`);
    expect(await screen(back)).toMatchObject({ status: 'pending', error: { message: 'error.gatewayFailed' } });
    expect(await api.count(`/sale/?transaction_id=${tx.id}`)).toBe(0);

    provider.down = false;
    expect(await approve(tx.token)).toBe(`/pay/${tx.token}/`);
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
    t = await startTestService(engine, { gateways, now: clock.now, env: { GATEWAY_TIMEOUT_MS: '30000' } });
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

    // The processor acts after all and the answer is lost: the first request ends in a 502.
    await gw.completeHung();
    expect((await first).status).toBe(502);
  });
});
