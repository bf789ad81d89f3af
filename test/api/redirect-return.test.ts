import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import type { Gateway, PayInput, ReturnInput } from '../../server/payments/gateway';
import { checkRedirect } from '../../server/payments/redirect';
import { createGateways } from '../../server/payments/registry';
import { sandboxGateways, signSandboxNotification } from '../../server/payments/sandbox';
import { listCalls } from '../../server/store/gateway-calls';
import { type Client, ENGINES, type TestService, transactionBody } from './harness';
import { startIsolatedService } from './database';
import { checkoutPost } from './pay';

// Redirects that say where to go, and one return route per call (docs/payments.md "The
// gateway interface"): the sandbox redirect gateway through its own page and signed
// return; a processor's GET and POST redirects to the origin it declares, and one to an
// origin it does not declare refused; returns verified, tampered, replayed and raced.

const SANDBOX_REDIRECT = '0190f5a0-0000-7000-8000-000000000002';
const PROCESSOR = '0190f5a0-0000-7000-8000-0000000000e1';
const FORM = 'application/x-www-form-urlencoded';

/** What the stand-in processor answers `pay` with, by the test. */
type PayAnswer = Awaited<ReturnType<Gateway['pay']>>;

/** A processor on another origin: it sends the customer where the test says, and reads returns as the test says. */
function processor() {
  const state: { answer: PayAnswer; paid: PayInput[]; returns: ReturnInput[] } = { answer: { outcome: 'not_acted', reason: 'unset' }, paid: [], returns: [] };
  const gateway: Gateway = {
    ...sandboxGateways()[1]!,
    id: PROCESSOR,
    code: 'processor-redirect',
    name: 'Processor Pay',
    origins: { redirect: ['https://pay.processor.example'] },
    async pay(input) {
      state.paid.push(input);
      return state.answer;
    },
    async return(input) {
      state.returns.push(input);
      if (input.query.status === 'paid') return { outcome: 'approved', reference: `pi_${input.reference}`, card: null };
      if (input.query.status === 'open') return { outcome: 'pending' };
      return { outcome: 'not_acted', reason: 'not verified' };
    },
  };
  delete gateway.sandboxPage;
  return { gateway, state };
}

const directives = (csp: string) => Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));

describe.each(ENGINES)('redirects and returns on %s', (engine) => {
  let t: TestService;
  let api: Client;
  const proc = processor();

  beforeAll(async () => {
    t = await startIsolatedService(engine, { gateways: createGateways([...sandboxGateways(), proc.gateway]) });
    api = await t.newEnvironment('Redirect shop');
  });
  afterAll(() => t?.close());

  const created = async (over: Record<string, unknown> = {}) => {
    const res = await api.post('/transaction/', transactionBody({ gateway_selected: false, return_url: 'https://shop.example/return', ...over }));
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; token: string };
  };
  const csrfOf = async (token: string) => {
    const html = await (await fetch(`${t.url}/pay/${token}/`)).text();
    return (JSON.parse(/<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!) as { view: { csrf: string } }).view.csrf;
  };
  /** The form post without JavaScript, choosing `gateway`. */
  const payByForm = async (token: string, gateway: string) =>
    fetch(`${t.url}/pay/${token}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': FORM, origin: t.url },
      body: new URLSearchParams({ action: 'pay', gateway, csrf: await csrfOf(token) }),
    });
  const calls = (id: string) => listCalls(t.service.deps.database.db, id);
  const statusOf = async (id: string) => (await api.get(`/transaction/${id}/`)).body.status as string;
  const salesOf = async (id: string) => api.count(`/sale/?transaction_id=${id}`);

  /** The sandbox processor's page for the transaction's open call, and its two forms. */
  async function sandboxPage(token: string) {
    const started = await payByForm(token, SANDBOX_REDIRECT);
    expect(started.status).toBe(303);
    const location = started.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${t.url}/pay/${token}/provider/gc_[0-9a-f-]{36}/$`));
    const page = await fetch(location);
    expect(page.status).toBe(200);
    const html = await page.text();
    const forms = [...html.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/g)].map(([, action, inner]) => ({
      action: action!.replaceAll('&amp;', '&'),
      fields: Object.fromEntries([...inner!.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map(([, n, v]) => [n!, v!])),
    }));
    expect(forms).toHaveLength(2);
    return { approve: forms[0]!, reject: forms[1]! };
  }
  const post = (form: { action: string; fields: Record<string, string> }, fields = form.fields) =>
    fetch(form.action, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM }, body: new URLSearchParams(fields) });

  it('sandbox: the pay post leads to its page; Approve returns signed and pays once, recorded on the call', async () => {
    const tx = await created();
    const { approve } = await sandboxPage(tx.token);
    const [open] = await calls(tx.id);
    expect(open).toMatchObject({ kind: 'pay', state: 'pending', gateway_id: SANDBOX_REDIRECT, processor_id: `sbx_session_${open!.reference}` });
    expect(approve.action).toBe(`${t.url}/pay/${tx.token}/return/${open!.reference}/`);
    expect(await statusOf(tx.id)).toBe('N');
    const back = await post(approve);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toMatch(/^https:\/\/shop\.example\/.*status=D/);
    expect(await statusOf(tx.id)).toBe('D');
    // Replayed: the same answer, nothing new.
    const again = await post(approve);
    expect(again.headers.get('location')).toMatch(/status=D/);
    expect(await salesOf(tx.id)).toBe(1);
    expect((await calls(tx.id)).map((c) => c.state)).toEqual(['succeeded']);
  });

  it('sandbox: Reject comes back declined, with the method still chosen', async () => {
    const tx = await created();
    const { reject } = await sandboxPage(tx.token);
    const back = await post(reject);
    expect(back.headers.get('location')).toBe(`/pay/${tx.token}/?declined=1&gateway=${SANDBOX_REDIRECT}`);
    const html = await (await fetch(`${t.url}${back.headers.get('location')}`)).text();
    expect(html).toContain('"selectedGateway":"0190f5a0-0000-7000-8000-000000000002"');
    expect(await statusOf(tx.id)).toBe('N');
    expect(await salesOf(tx.id)).toBe(0);
  });

  it('sandbox: a tampered or unsigned return settles nothing; the signed one still does', async () => {
    const tx = await created();
    const { approve, reject } = await sandboxPage(tx.token);
    const forged: Record<string, string>[] = [
      { ...reject.fields, sandbox_result: 'approve' },
      { sandbox_result: 'approve' },
      { ...approve.fields, sandbox_signature: approve.fields.sandbox_signature!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) },
      { decision: 'approve' },
    ];
    for (const fields of forged) {
      const back = await post(approve, fields);
      expect(back.status).toBe(303);
      expect(back.headers.get('location')).toBe(`/pay/${tx.token}/?failed=1&gateway=${SANDBOX_REDIRECT}`);
    }
    expect(await statusOf(tx.id)).toBe('N');
    expect((await calls(tx.id)).map((c) => c.state)).toEqual(['pending']);
    expect((await post(approve)).headers.get('location')).toMatch(/status=D/);
    expect(await salesOf(tx.id)).toBe(1);
  });

  it('sandbox: ten returns at once and a notification beside them make one payment', async () => {
    const tx = await created();
    const { approve } = await sandboxPage(tx.token);
    const [open] = await calls(tx.id);
    const note = JSON.stringify({ reference: open!.reference, status: 'succeeded', payment: `sbx_redirect_${open!.reference}` });
    const notify = fetch(`${t.url}/gateways/sandbox-redirect/notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sandbox-signature': signSandboxNotification(note) },
      body: note,
    });
    const answers = await Promise.all([notify, ...Array.from({ length: 10 }, () => post(approve))]);
    expect(answers[0]!.status).toBe(204);
    for (const back of answers.slice(1)) expect(back.headers.get('location')).toMatch(/status=D/);
    expect(await salesOf(tx.id)).toBe(1);
    expect(await statusOf(tx.id)).toBe('D');
  });

  it('sandbox: back from its page without deciding, the customer pays by card; the old page then pays nothing', async () => {
    const tx = await created();
    const { approve } = await sandboxPage(tx.token);
    const card = await checkoutPost(t.url, tx.token, {
      action: 'pay',
      gateway: '0190f5a0-0000-7000-8000-000000000001',
      fields: { card_number: '4242 4242 4242 4242', card_expiry: '12/34', card_cvc: '123', card_name: 'A' },
    });
    expect(card.status).toBe(200);
    expect(await statusOf(tx.id)).toBe('D');
    expect((await calls(tx.id)).map((c) => c.state)).toEqual(['abandoned', 'succeeded']);
    expect((await post(approve)).headers.get('location')).toMatch(/status=D/);
    expect(await salesOf(tx.id)).toBe(1);
    // The sandbox was never told: nothing to reverse when the reconciliation checks the abandoned call.
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect(await salesOf(tx.id)).toBe(1);
  });

  it('sandbox: back from its page without deciding, the customer may cancel', async () => {
    const tx = await created();
    await sandboxPage(tx.token);
    const res = await checkoutPost(t.url, tx.token, { action: 'cancel' });
    expect(res.status).toBe(200);
    expect(await statusOf(tx.id)).toBe('C');
  });

  it('a return for a reference the page has not, or another page’s, is the not-found page', async () => {
    const a = await created();
    const b = await created();
    const { approve } = await sandboxPage(a.token);
    const elsewhere = approve.action.replace(a.token, b.token);
    expect((await post({ ...approve, action: elsewhere })).status).toBe(404);
    expect((await fetch(`${t.url}/pay/${a.token}/return/gc_00000000-0000-7000-8000-000000000000/`)).status).toBe(404);
    expect((await fetch(`${t.url}/pay/${a.token}/return/nonsense/`)).status).toBe(404);
    expect(await statusOf(a.id)).toBe('N');
  });

  it('the hydrated page is told the same destination', async () => {
    const tx = await created();
    const res = await checkoutPost(t.url, tx.token, { action: 'pay', gateway: SANDBOX_REDIRECT, fields: {} });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { outcome: string; location: string; kind: string };
    expect(body).toMatchObject({ outcome: 'redirect', kind: 'provider' });
    expect(body.location).toMatch(new RegExp(`^${t.url}/pay/${tx.token}/provider/gc_[0-9a-f-]{36}/$`));
  });

  it('a GET redirect to a declared origin: a 303 there, with the return URL and language given to the processor', async () => {
    const tx = await created({ currency: 'EUR', language: 'fr' });
    proc.state.answer = { outcome: 'redirect', redirect: { url: 'https://pay.processor.example/s/1?x=1', method: 'GET' }, processorId: 'cs_1' };
    const res = await payByForm(tx.token, PROCESSOR);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://pay.processor.example/s/1?x=1');
    const given = proc.state.paid.at(-1)!;
    const [open] = await calls(tx.id);
    expect(given).toMatchObject({ returnUrl: `${t.url}/pay/${tx.token}/return/${open!.reference}/`, language: 'fr' });
    expect(open).toMatchObject({ state: 'pending', processor_id: 'cs_1' });
    // The page that offers it lets its form lead there (Chromium applies form-action to the 303).
    const csp = directives((await fetch(`${t.url}/pay/${tx.token}/`)).headers.get('content-security-policy')!);
    expect(csp['form-action']).toContain('https://pay.processor.example');
    // Back: the gateway reads what came back (the query), with the processor's id.
    const back = await fetch(`${given.returnUrl}?status=paid&session=cs_1`, { redirect: 'manual' });
    expect(back.status).toBe(303);
    expect(proc.state.returns.at(-1)).toMatchObject({ reference: open!.reference, processorId: 'cs_1', query: { status: 'paid', session: 'cs_1' }, body: {} });
    expect(await statusOf(tx.id)).toBe('D');
  });

  it('a POST redirect: our page of its form, which submits itself and has a button without JavaScript', async () => {
    const tx = await created();
    proc.state.answer = { outcome: 'redirect', redirect: { url: 'https://pay.processor.example/post', method: 'POST', fields: { Ds_Signature: 'a"b<c' } } };
    const res = await payByForm(tx.token, PROCESSOR);
    const [open] = await calls(tx.id);
    expect(res.headers.get('location')).toBe(`/pay/${tx.token}/go/${open!.reference}/`);
    const go = await fetch(`${t.url}${res.headers.get('location')}`);
    expect(go.status).toBe(200);
    const html = await go.text();
    expect(html).toContain('<form method="post" action="https://pay.processor.example/post" id="redirect">');
    expect(html).toContain('<input type="hidden" name="Ds_Signature" value="a&quot;b&lt;c">');
    expect(html).toMatch(/<button type="submit"[^>]*>Continue to Processor Pay<\/button>/);
    const csp = directives(go.headers.get('content-security-policy')!);
    expect(csp['form-action']).toEqual(["'self'", 'https://pay.processor.example']);
    expect(html).toContain(`<script nonce="${csp['script-src']![0]!.slice(7, -1)}">`);
    // The JSON answer leads to the same page.
    const tx2 = await created();
    const json = (await (await checkoutPost(t.url, tx2.token, { action: 'pay', gateway: PROCESSOR, fields: {} })).json()) as { location: string };
    expect(json.location).toMatch(new RegExp(`^/pay/${tx2.token}/go/gc_`));
  });

  it('a processor that has not decided: the page is checking; a return that does not verify settles nothing', async () => {
    const tx = await created();
    proc.state.answer = { outcome: 'redirect', redirect: { url: 'https://pay.processor.example/s/2', method: 'GET' } };
    await payByForm(tx.token, PROCESSOR);
    const returnUrl = proc.state.paid.at(-1)!.returnUrl!;
    expect((await fetch(`${returnUrl}?status=forged`, { redirect: 'manual' })).headers.get('location')).toBe(`/pay/${tx.token}/?failed=1&gateway=${PROCESSOR}`);
    expect((await calls(tx.id))[0]).toMatchObject({ state: 'pending', unknown_since: null });
    expect((await fetch(`${returnUrl}?status=open`, { redirect: 'manual' })).headers.get('location')).toBe(`/pay/${tx.token}/`);
    const html = await (await fetch(`${t.url}/pay/${tx.token}/`)).text();
    expect(html).toContain('"status":"checking"');
    expect(await statusOf(tx.id)).toBe('N');
  });

  it("a challenge at the issuer's page: sent there, its return settles the payment once", async () => {
    const tx = await created();
    proc.state.answer = { outcome: 'challenge', challenge: 'ch_1', processorId: 'pi_1', redirect: { url: 'https://pay.processor.example/3ds', method: 'GET' } };
    const res = await payByForm(tx.token, PROCESSOR);
    expect(res.headers.get('location')).toBe('https://pay.processor.example/3ds');
    const returnUrl = proc.state.paid.at(-1)!.returnUrl!;
    const [first] = await calls(tx.id);
    expect(first).toMatchObject({ state: 'failed', processor_id: 'pi_1' });
    const back = await fetch(`${returnUrl}?status=paid`, { redirect: 'manual' });
    expect(back.headers.get('location')).toMatch(/^https:\/\/shop\.example\/return\?.*status=D/);
    const read = proc.state.returns.at(-1)!;
    const resumed = (await calls(tx.id))[1]!;
    expect(read).toMatchObject({ challenge: 'ch_1', processorId: 'pi_1', reference: resumed.reference, query: { status: 'paid' } });
    expect(resumed).toMatchObject({ state: 'succeeded', request: { challenge: expect.any(String) } });
    // Replayed: the challenge is answered, nothing is read again.
    const count = proc.state.returns.length;
    expect((await fetch(`${returnUrl}?status=paid`, { redirect: 'manual' })).headers.get('location')).toMatch(/status=D/);
    expect(proc.state.returns).toHaveLength(count);
    expect(await salesOf(tx.id)).toBe(1);
  });

  it("a challenge at the issuer's page by POST: our form page while it is open; a return that does not verify fails it, and the customer pays again", async () => {
    const tx = await created();
    proc.state.answer = { outcome: 'challenge', challenge: 'ch_2', redirect: { url: 'https://pay.processor.example/acs', method: 'POST', fields: { creq: 'x' } } };
    const res = await payByForm(tx.token, PROCESSOR);
    const [first] = await calls(tx.id);
    expect(res.headers.get('location')).toBe(`/pay/${tx.token}/go/${first!.reference}/`);
    expect(await (await fetch(`${t.url}${res.headers.get('location')}`)).text()).toContain('action="https://pay.processor.example/acs"');
    const returnUrl = proc.state.paid.at(-1)!.returnUrl!;
    const back = await fetch(returnUrl, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM }, body: 'cres=forged' });
    expect(back.headers.get('location')).toBe(`/pay/${tx.token}/?failed=1&gateway=${PROCESSOR}`);
    expect(proc.state.returns.at(-1)).toMatchObject({ challenge: 'ch_2', body: { cres: 'forged' } });
    expect(await statusOf(tx.id)).toBe('N');
    // The challenge is over: its form page leads back to the payment, and a new attempt is taken.
    expect((await fetch(`${t.url}/pay/${tx.token}/go/${first!.reference}/`, { redirect: 'manual' })).status).toBe(303);
    proc.state.answer = { outcome: 'approved', reference: 'pi_9', card: null };
    expect((await payByForm(tx.token, PROCESSOR)).status).toBe(303);
    expect(await statusOf(tx.id)).toBe('D');
  });

  for (const [what, redirect] of [
    ['an undeclared origin', { url: 'https://evil.example/pay', method: 'GET' }],
    ['http on a declared host', { url: 'http://pay.processor.example/pay', method: 'GET' }],
    ['credentials in the URL', { url: 'https://user:pw@pay.processor.example/', method: 'GET' }],
    ['no URL', { method: 'GET' }],
  ] as const) {
    it(`a redirect to ${what} is refused: nobody is sent, the payment stays open`, async () => {
      const tx = await created();
      const to = 'url' in redirect ? { ...redirect, url: redirect.url.replace('SELF', t.url) } : redirect;
      proc.state.answer = { outcome: 'redirect', redirect: to as never };
      const res = await payByForm(tx.token, PROCESSOR);
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBeNull();
      const html = await res.text();
      expect(html).toContain('"message":"error.gatewayFailed"');
      expect((await calls(tx.id)).map((c) => c.state)).toEqual(['failed']);
      expect(await statusOf(tx.id)).toBe('N');
    });
  }

  it('our own origin is a destination for a sandbox gateway that draws its page on ours only', () => {
    const own = 'http://127.0.0.1:4000';
    const drawsItsPage = { ...proc.gateway, sandboxPage: sandboxGateways()[1]!.sandboxPage };
    expect(checkRedirect(drawsItsPage, { url: `${own}/pay/x/` }, own)).toEqual({ to: { url: `${own}/pay/x/`, method: 'GET' } });
    // A processor's test mode is a sandbox gateway too, but its page is the processor's.
    expect(checkRedirect(proc.gateway, { url: `${own}/pay/x/` }, own)).toEqual({ refused: `${own} is not an origin the gateway declares for redirects` });
    expect(checkRedirect({ ...drawsItsPage, sandbox: false }, { url: `${own}/pay/x/` }, own)).toEqual({ refused: `${own} is not an origin the gateway declares for redirects` });
    expect(checkRedirect({ ...proc.gateway, sandbox: false }, { url: 'https://pay.processor.example/a', method: 'POST' }, own)).toMatchObject({ to: { method: 'POST' } });
  });

  it("a version 1 module's bare redirect is not followed: the provider failed, nothing charged", async () => {
    const tx = await created();
    proc.state.answer = { outcome: 'redirect' };
    const res = await payByForm(tx.token, PROCESSOR);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"message":"error.gatewayFailed"');
    expect((await calls(tx.id)).map((c) => c.state)).toEqual(['failed']);
    expect(await statusOf(tx.id)).toBe('N');
  });
});
