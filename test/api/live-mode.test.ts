import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { createSandboxCard, sandboxGateways } from '../../server/payments/sandbox';
import { createEnvironment } from '../../server/store/environments';
import { setRawCardNumbers } from '../../server/store/environments';
import { freshDatabase } from './database';
import { Client, ENGINES, problemPaths, startTestService, type TestService, transactionBody } from './harness';
import { payWithCard, SANDBOX_CARD } from './pay';

// Sandbox and live environments (docs/api.md#sandbox-and-live): keys and objects say which
// one they belong to, and a live environment takes no test card and offers no sandbox
// gateway (nor a sandbox a real one: live-mode-separation.test.ts). The "real" gateway
// here is a processor that would approve the test card, as a careless acquirer's test mode
// might: the refusal must come before it is asked.

const REAL_ID = '0190f5a0-0000-7000-8000-0000000000aa';

function acquirer(): Gateway & { calls: number } {
  const inner = createSandboxCard();
  const counted = { ...inner, id: REAL_ID, code: 'acquirer', name: 'Acquirer', sandbox: false, calls: 0 };
  counted.pay = (input) => (counted.calls++, inner.pay(input));
  counted.store = (input) => (counted.calls++, inner.store!(input));
  return counted;
}

const cardBody = (gateway: string, number: string = TEST_CARDS.approved) => ({
  gateway,
  card: { number, expiry: '12/34', cvc: '123', name: 'Ada Lovelace' },
});

const stateOf = async (url: string) => {
  const html = await (await fetch(url)).text();
  const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!;
  return { html, view: (JSON.parse(state) as { view: { gateways: { id: string }[] } }).view };
};

const SANDBOX_REDIRECT = '0190f5a0-0000-7000-8000-000000000002';
const REFERENCE = 'gc_00000000-0000-7000-8000-000000000000';

describe.each(ENGINES)('sandbox and live environments on %s', (engine) => {
  const real = acquirer();
  let t: TestService;
  let sandbox: Client;
  let live: Client;
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;

  beforeAll(async () => {
    if (engine === 'postgres') database = await freshDatabase();
    t = await startTestService(engine, {
      gateways: createGateways([...sandboxGateways(), real]),
      env: database ? { DATABASE_URL: database.url } : {},
    });
    sandbox = await t.newEnvironment('Sandbox shop');
    live = new Client(t.url, await createEnvironment(t.service.deps.database.db, { name: 'Live shop', mode: 'live', now: new Date() }));
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('gives sandbox keys pk_test_/sk_test_ and live keys pk_live_/sk_live_', () => {
    expect(sandbox.keys.public_key).toMatch(/^pk_test_[\w-]{24}$/);
    expect(sandbox.keys.secret_key).toMatch(/^sk_test_[\w-]{43}$/);
    expect(live.keys.public_key).toMatch(/^pk_live_[\w-]{24}$/);
    expect(live.keys.secret_key).toMatch(/^sk_live_[\w-]{43}$/);
  });

  it('says livemode on every object, in lists and events too', async () => {
    for (const [api, livemode] of [[sandbox, false], [live, true]] as const) {
      const created = await api.post('/transaction/', transactionBody());
      expect(created.status, created.text).toBe(201);
      expect(created.body.livemode).toBe(livemode);
      expect((await api.get(`/transaction/${created.body.id}/`)).body.livemode).toBe(livemode);
      expect((await api.get('/transaction/')).body.results.map((r: { livemode: boolean }) => r.livemode)).toEqual([livemode]);
      expect((await api.get('/balance/')).body.livemode).toBe(livemode);
      expect((await api.post('/product/', { name: 'Mug', price: 12 })).body.livemode).toBe(livemode);
      const events = (await api.get('/event/')).body.results;
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) expect([e.livemode, e.data.livemode]).toEqual([livemode, livemode]);
    }
  });

  it('offers a live environment only the gateways configured for real money', async () => {
    expect((await live.get('/gateway/')).body.results.map((g: { id: string }) => g.id)).toEqual([REAL_ID]);
    expect((await live.get(`/gateway/${SANDBOX_CARD}/`)).status).toBe(404);
    expect((await sandbox.get('/gateway/')).body.results.map((g: { id: string }) => g.id)).toContain(SANDBOX_CARD);
    const refused = await live.post('/authorization/', cardBody(SANDBOX_CARD, '5555 5555 5555 4444'));
    expect(refused.status, refused.text).toBe(400);
    expect(problemPaths(refused)).toEqual(['gateway']);
    const token = (await live.post('/transaction/', transactionBody({ gateway_selected: true }))).body.token;
    expect((await stateOf(`${t.url}/pay/${token}/`)).view.gateways.map((g) => g.id)).toEqual([REAL_ID]);
    const bySandbox = await payWithCard(t.url, token, '5555 5555 5555 4444', SANDBOX_CARD);
    expect(bySandbox.status).toBe(400);
    expect(((await bySandbox.json()) as { view: { error: { message: string } } }).view.error.message).toBe('error.gatewayRequired');
  });

  // The sandbox redirect gateway's provider page answered any page: approving on it paid a
  // live transaction (a sale with no money moved, a signed return to the shop). Now a live
  // page does not offer it, and its page and return exist only for a call the page made.
  it("has no sandbox provider page for a live transaction: approving there pays nothing", async () => {
    const tx = (await live.post('/transaction/', transactionBody())).body as { id: string; token: string };
    const { csrf } = (await stateOf(`${t.url}/pay/${tx.token}/`)).view as unknown as { csrf: string };
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin: t.url };
    const chosen = await fetch(`${t.url}/pay/${tx.token}/`, { method: 'POST', redirect: 'manual', headers: form, body: new URLSearchParams({ action: 'pay', gateway: SANDBOX_REDIRECT, csrf }) });
    expect(chosen.status).toBe(400);
    expect((await fetch(`${t.url}/pay/${tx.token}/provider/${REFERENCE}/`)).status).toBe(404);
    const approve = await fetch(`${t.url}/pay/${tx.token}/return/${REFERENCE}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: form,
      body: new URLSearchParams({ decision: 'approve', sandbox_result: 'approve', csrf }),
    });
    expect(approve.status).toBe(404);
    expect((await live.get(`/transaction/${tx.id}/`)).body.status).toBe('N');
    expect((await live.get(`/sale/?transaction_id=${tx.id}`)).body.count).toBe(0);
    // A sandbox transaction has it, once the customer chose it.
    const ok = (await sandbox.post('/transaction/', transactionBody())).body as { token: string };
    const okCsrf = ((await stateOf(`${t.url}/pay/${ok.token}/`)).view as unknown as { csrf: string }).csrf;
    const sent = await fetch(`${t.url}/pay/${ok.token}/`, { method: 'POST', redirect: 'manual', headers: form, body: new URLSearchParams({ action: 'pay', gateway: SANDBOX_REDIRECT, csrf: okCsrf }) });
    expect((await fetch(sent.headers.get('location')!)).status).toBe(200);
  });

  it('takes no raw card number through a live environment\'s API until its operator turns them on', async () => {
    const refused = await live.post('/authorization/', cardBody(REAL_ID, '5555 5555 5555 4444'));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.type).toBe('urn:problem:raw-cards-off');
    expect((await sandbox.post('/authorization/', cardBody(SANDBOX_CARD, '5555 5555 5555 4444'))).status).toBe(201);
    expect(await setRawCardNumbers(t.service.deps.database.db, live.keys.environment_id, true)).toBe(true);
  });

  it('refuses 4242 4242 4242 4242 in a live environment before any gateway sees it, through the API and the page', async () => {
    const before = real.calls;
    const byApi = await live.post('/authorization/', cardBody(REAL_ID));
    expect(byApi.status, byApi.text).toBe(400);
    expect(problemPaths(byApi)).toEqual(['card.number']);
    expect(byApi.body.detail).toContain('test card');
    const token = (await live.post('/transaction/', transactionBody())).body.token;
    const byPage = await payWithCard(t.url, token, TEST_CARDS.approved, REAL_ID);
    expect(byPage.status).toBe(400);
    const { view } = (await byPage.json()) as { view: { error: { fields: Record<string, string> } } };
    expect(view.error.fields).toEqual({ card_number: 'error.card.testInLive' });
    expect(real.calls).toBe(before);
    expect((await live.get(`/transaction/?status=N`)).body.count).toBeGreaterThan(0);
    // The same card in a sandbox is paid, through the sandbox's own gateway: the real one is never asked.
    const sandboxToken = (await sandbox.post('/transaction/', transactionBody())).body.token;
    expect((await payWithCard(t.url, sandboxToken, TEST_CARDS.approved, SANDBOX_CARD)).status).toBe(200);
    expect(real.calls).toBe(before);
  });

  it('marks a sandbox payment page as in test mode, and not a live one', async () => {
    const page = async (api: Client) => (await stateOf(`${t.url}/pay/${(await api.post('/transaction/', transactionBody())).body.token}/`)).html;
    expect(await page(sandbox)).toContain('<span class="topbar__test">Test mode</span>');
    expect(await page(live)).not.toContain('topbar__test');
  });

  it('never makes a live demo', async () => {
    await expect(createEnvironment(t.service.deps.database.db, { name: 'Demo', isDemo: true, mode: 'live', now: new Date() })).rejects.toThrow(/sandbox/);
  });
});
