import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway, GatewayCapabilities } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { createSandboxCard, sandboxGateways } from '../../server/payments/sandbox';
import { createEnvironment } from '../../server/store/environments';
import { Client, ENGINES, problemPaths, startTestService, type TestService } from './harness';
import { payWithCard, priced, SANDBOX_CARD } from './pay';

// A gateway's capabilities (docs/payments.md "Capabilities"): the page offers, and the API
// accepts, only what the payment's gateway can do; what it cannot is refused here with a
// 409, before the gateway is asked, and nothing changes.

const WHOLE_ONLY = '0190f5a0-0000-7000-8000-0000000000c1';
const NO_HOLD = '0190f5a0-0000-7000-8000-0000000000c2';
const NO_CARDS = '0190f5a0-0000-7000-8000-0000000000c4';
const ONCE_ONLY = '0190f5a0-0000-7000-8000-0000000000c5';

/** The sandbox card's behaviour under another id, with fewer capabilities; its calls counted. */
function limited(id: string, code: string, capabilities: Partial<GatewayCapabilities>, sandbox = true): Gateway & { calls: string[] } {
  const inner = createSandboxCard();
  const g = { ...inner, id, code, name: code, sandbox, capabilities, calls: [] as string[] };
  for (const kind of ['pay', 'capture', 'refund', 'void', 'charge'] as const) {
    const call = inner[kind].bind(inner) as (input: never) => Promise<never>;
    (g as Record<string, unknown>)[kind] = (input: never) => (g.calls.push(kind), call(input));
  }
  return g;
}

const stateGateways = (html: string) => {
  const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!;
  return (JSON.parse(state) as { view: { gateways: { id: string }[] } }).view.gateways.map((g) => g.id);
};

describe.each(ENGINES)('gateway capabilities on %s', (engine) => {
  let t: TestService;
  let api: Client;
  const wholeOnly = limited(WHOLE_ONLY, 'whole-only', { partialCapture: false, partialRefunds: false });
  const noHold = limited(NO_HOLD, 'no-hold', { hold: false, refunds: false });
  // Captures a hold once, as Stripe does: a partial capture releases the rest.
  const onceOnly = limited(ONCE_ONLY, 'once-only', { repeatedCapture: false });
  // Keeps no saved cards (no `store`), but holds: a held payment leaves an authorization of it.
  const noCards: Gateway & { calls: string[] } = { ...limited(NO_CARDS, 'no-cards', {}), store: undefined };

  beforeAll(async () => {
    t = await startTestService(engine, { gateways: createGateways([...sandboxGateways(), wholeOnly, noHold, noCards, onceOnly, limited('0190f5a0-0000-7000-8000-0000000000c3', 'real-no-hold', { hold: false }, false)]) });
    api = await t.newEnvironment('Capabilities shop');
  });
  afterAll(() => t?.close());

  /** A sale paid on the page through `gateway`, held when `authorize`. */
  async function paid(gateway: string, authorize: boolean) {
    const created = await api.post('/transaction/', priced('EUR', 10, { authorize }));
    expect(created.status, created.text).toBe(201);
    expect((await payWithCard(t.url, created.body.token, undefined, gateway)).status).toBe(200);
    return (await api.get(`/sale/?transaction_id=${created.body.id}`)).body.results[0] as { id: string; amount: number };
  }

  it('lists each gateway with what it can do', async () => {
    const listed = (await api.get('/gateway/')).body.results as { id: string; capabilities: Record<string, boolean> }[];
    const of = (id: string) => listed.find((g) => g.id === id)!.capabilities;
    expect(of(SANDBOX_CARD)).toEqual({ hold: true, partial_capture: true, repeated_capture: true, refunds: true, partial_refunds: true, saved_cards: true });
    expect(of(ONCE_ONLY)).toMatchObject({ partial_capture: true, repeated_capture: false });
    expect(of(WHOLE_ONLY)).toMatchObject({ hold: true, partial_capture: false, refunds: true, partial_refunds: false });
    expect(of(NO_HOLD)).toMatchObject({ hold: false, refunds: false });
  });

  it("lists a sandbox gateway's test cards, and none for a gateway that moves real money", async () => {
    const listed = (await api.get('/gateway/')).body.results as { id: string; code: string; test_cards: { number: string; behaviour: string }[] }[];
    const card = listed.find((g) => g.id === SANDBOX_CARD)!.test_cards;
    expect(card).toContainEqual({ number: '4242 4242 4242 4242', behaviour: 'approved' });
    expect(card).toContainEqual({ number: '4000 0000 0000 0259', behaviour: 'disputedFraudulent' });
    expect(listed.find((g) => g.code === 'sandbox-redirect')!.test_cards).toEqual([]);
    const live = new Client(t.url, await createEnvironment(t.service.deps.database.db, { name: 'Live capabilities shop', mode: 'live', now: t.service.deps.now() }));
    const real = (await live.get('/gateway/')).body.results as { code: string; test_cards: unknown[] }[];
    expect(real.map((g) => [g.code, g.test_cards])).toEqual([['real-no-hold', []]]);
  });

  it('a payment that holds the funds is offered, and takes, only a gateway that can hold', async () => {
    const held = await api.post('/transaction/', priced('EUR', 10, { authorize: true }));
    const offered = stateGateways(await (await fetch(`${t.url}/pay/${held.body.token}/`)).text());
    expect(offered).toContain(WHOLE_ONLY);
    expect(offered).not.toContain(NO_HOLD);
    const before = noHold.calls.length;
    expect((await payWithCard(t.url, held.body.token, undefined, NO_HOLD)).status).toBe(400);
    expect(noHold.calls.length).toBe(before);
    expect((await api.get(`/transaction/${held.body.id}/`)).body.status).toBe('N');
    // Charged at once, it is offered.
    const charged = await api.post('/transaction/', priced('EUR', 10));
    expect(stateGateways(await (await fetch(`${t.url}/pay/${charged.body.token}/`)).text())).toContain(NO_HOLD);
  });

  it('a gateway that captures and refunds only whole: a partial capture or refund is a 409 before it is asked', async () => {
    const sale = await paid(WHOLE_ONLY, true);
    const asked = wholeOnly.calls.length;
    const partial = await api.post(`/sale/${sale.id}/capture/`, { amount: 4 });
    expect(partial.status, partial.text).toBe(409);
    expect(partial.body.detail).toContain('captures a hold only whole');
    expect(wholeOnly.calls.length).toBe(asked);
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ status: 'held' });
    expect((await api.post(`/sale/${sale.id}/capture/`, { amount: 10 })).status).toBe(200);
    const partRefund = await api.post(`/sale/${sale.id}/refund/`, { amount: 3 });
    expect(partRefund.status).toBe(409);
    expect(partRefund.body.detail).toContain('refunds only the whole refundable amount');
    expect(wholeOnly.calls.filter((c) => c === 'refund')).toHaveLength(0);
    // All of it, asked without an amount: made.
    expect((await api.post(`/sale/${sale.id}/refund/`, {})).body).toMatchObject({ status: 'refunded' });
  });

  it('a gateway that captures once: a partial capture releases the rest in our books too, and a second capture is a 409 before it is asked', async () => {
    const sale = await paid(ONCE_ONLY, true);
    const captured = await api.post(`/sale/${sale.id}/capture/`, { amount: 4 });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'captured', held: 0, captured: 4, voided: 6, refundable: 4 });
    const [capture, release] = (captured.body.operations as { kind: string; amount: number; gateway_reference: string }[]).filter((o) => o.kind !== 'authorize');
    expect([capture!.kind, capture!.amount, release!.kind, release!.amount]).toEqual(['capture', 4, 'void', 6]);
    // Nothing was sent for the rest: the processor released it with the capture, whose reference it carries.
    expect(release!.gateway_reference).toBe(capture!.gateway_reference);
    expect(onceOnly.calls.filter((c) => c !== 'pay')).toEqual(['capture']);
    const voided = (await api.get(`/event/?type=sale.voided&object_id=${sale.id}`)).body.results as { data: { held: number; voided: number } }[];
    expect(voided.map((e) => [e.data.held, e.data.voided])).toEqual([[0, 6]]);
    for (const body of [{ amount: 1 }, {}]) {
      const again = await api.post(`/sale/${sale.id}/capture/`, body);
      expect(again.status, again.text).toBe(409);
      expect(again.body.detail).toContain('captures a hold once');
    }
    expect((await api.post(`/sale/${sale.id}/void/`, {})).status).toBe(409);
    expect(onceOnly.calls.filter((c) => c !== 'pay')).toEqual(['capture']);
    // The whole hold captured at once releases nothing.
    const whole = await paid(ONCE_ONLY, true);
    expect((await api.post(`/sale/${whole.id}/capture/`, {})).body).toMatchObject({ status: 'captured', captured: 10, voided: 0 });
    expect((await api.get(`/event/?type=sale.voided&object_id=${whole.id}`)).body.results).toHaveLength(0);
  });

  it('a gateway that makes no refunds: a refund is a 409 and the sale stays paid', async () => {
    const sale = await paid(NO_HOLD, false);
    const refused = await api.post(`/sale/${sale.id}/refund/`, {});
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.detail).toContain('makes no refunds');
    expect(noHold.calls.filter((c) => c === 'refund')).toHaveLength(0);
    expect((await api.get(`/sale/${sale.id}/`)).body.status).toBe('captured');
  });

  it('a gateway without saved cards: saving one is refused naming the gateway, charging its authorization is a 409 before it is asked', async () => {
    const listed = (await api.get('/gateway/')).body.results as { id: string; capabilities: Record<string, boolean> }[];
    expect(listed.find((g) => g.id === NO_CARDS)!.capabilities).toMatchObject({ saved_cards: false });
    for (const body of [{ gateway: NO_CARDS }, { gateway: NO_CARDS, card: { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'A' } }]) {
      const refused = await api.post('/authorization/', body);
      expect(refused.status).toBe(400);
      expect(problemPaths(refused)).toEqual(['gateway']);
    }
    const sale = await paid(NO_CARDS, true);
    const [authorization] = (await api.get(`/authorization/?transaction_id=${(await api.get(`/sale/${sale.id}/`)).body.transaction_id}`)).body.results;
    const charged = await api.post(`/authorization/${authorization.id}/charge/`, { amount: 5, currency: 'EUR' });
    expect(charged.status, charged.text).toBe(409);
    expect(charged.body.detail).toContain('keeps no saved cards');
    expect(noCards.calls).not.toContain('charge');
  });

  it('a live transaction that asks to hold, where no real gateway can, is a 409 naming authorize', async () => {
    const live = new Client(t.url, await createEnvironment(t.service.deps.database.db, { name: 'Live capabilities', mode: 'live', now: t.service.deps.now() }));
    const refused = await live.post('/transaction/', priced('EUR', 10, { authorize: true }));
    expect(refused.status, refused.text).toBe(409);
    expect(problemPaths(refused)).toEqual(['authorize']);
    expect((await live.get('/transaction/')).body.count).toBe(0);
    expect((await live.post('/transaction/', priced('EUR', 10))).status).toBe(201);
  });
});
