import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { type Client, ENGINES, startTestService, type TestService, transactionBody } from './harness';
import { payWithCard, SANDBOX_CARD } from './pay';

// The issuer's challenge (3-D Secure-like) on the checkout, as the hydrated screen drives
// it (JSON) and as a browser without JavaScript does (forms, 303s): a challenged card asks
// first and moves nothing; completing it pays, failing or leaving it keeps the payment
// open; the sale says how the cardholder was authenticated, and a card stored after a
// challenge is charged later without one, as merchant-initiated.

const RETURN = 'https://shop.example/thanks';
/** The return as the customer is sent there: signed (docs/checkout.md "Signed returns"). */
const SIGNED_RETURN = /^https:\/\/shop\.example\/thanks\?transaction_id=[0-9a-f-]{36}&status=D&timestamp=\d+&signature=[^&]+$/;
const FIELDS = { card_expiry: '12/34', card_cvc: '123', card_name: 'Ada' };

describe.each(ENGINES)('the challenge step on %s', (engine) => {
  let t: TestService;
  let api: Client;

  beforeAll(async () => {
    t = await startTestService(engine);
    api = await t.newEnvironment('Challenge Shop');
  });
  afterAll(() => t?.close());

  async function open(over: Record<string, unknown> = {}) {
    const res = await api.post('/transaction/', transactionBody({ return_url: RETURN, ...over }));
    expect(res.status, res.text).toBe(201);
    return { id: res.body.id as string, token: res.body.token as string };
  }

  const csrfOf = async (token: string) => {
    const html = await (await fetch(`${t.url}/pay/${token}/`)).text();
    return /"csrf":"([^"]+)"/.exec(html)![1]!;
  };

  /** Posts an answer to a challenge as the page's dialog does. */
  async function answer(token: string, location: string, given: string) {
    const res = await fetch(new URL(location, t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': await csrfOf(token) },
      body: JSON.stringify({ answer: given }),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  /** Pays with a challenged card; the answer names the challenge's URL. */
  async function challenged(token: string, card: string = TEST_CARDS.challenged): Promise<string> {
    const res = await payWithCard(t.url, token, card);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ outcome: 'redirect', kind: 'challenge' });
    expect(body.location).toMatch(new RegExp(`^/pay/${token}/challenge/[0-9a-f-]{36}/$`));
    return body.location as string;
  }

  const statusOf = async (id: string) => (await api.get(`/transaction/${id}/`)).body.status as string;
  const salesOf = async (id: string) => (await api.get(`/sale/?transaction_id=${id}`)).body.results as any[];

  it('4000 0027 6000 3184 asks first and moves nothing; completing the challenge pays, authenticated by challenge', async () => {
    const tx = await open({ notify_url: 'https://shop.example/hooks' });
    const location = await challenged(tx.token);
    expect(await statusOf(tx.id)).toBe('N');
    expect(await salesOf(tx.id)).toEqual([]);

    const done = await answer(tx.token, location, 'completed');
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ outcome: 'redirect', kind: 'completed', location: expect.stringMatching(SIGNED_RETURN), view: { status: 'paid' } });
    expect(await statusOf(tx.id)).toBe('D');
    const [sale] = await salesOf(tx.id);
    expect(sale.authentication).toEqual({ status: 'authenticated', method: 'challenge' });
    expect(sale.card).toEqual({ brand: 'visa', last4: '3184' });

    const events = (await api.get(`/event/?type=sale.created&object_id=${sale.id}`)).body.results as any[];
    expect(events).toHaveLength(1);
    expect(events[0].data.authentication).toEqual({ status: 'authenticated', method: 'challenge' });

    // Answered once: a second answer changes nothing.
    const again = await answer(tx.token, location, 'completed');
    expect(again.status).toBe(409);
    expect(await salesOf(tx.id)).toHaveLength(1);
  });

  it('failing the challenge declines the attempt and leaves the payment open for another card', async () => {
    const tx = await open();
    const location = await challenged(tx.token);
    const failed = await answer(tx.token, location, 'failed');
    expect(failed.body).toMatchObject({ outcome: 'view', view: { status: 'declined', error: { message: 'error.authenticationFailed' } } });
    expect(await statusOf(tx.id)).toBe('N');
    expect(await salesOf(tx.id)).toEqual([]);

    const late = await answer(tx.token, location, 'completed');
    expect(late.body.view.error.message).toBe('error.authenticationIncomplete');
    expect(await statusOf(tx.id)).toBe('N');

    expect((await payWithCard(t.url, tx.token, TEST_CARDS.approved)).status).toBe(200);
    expect(await statusOf(tx.id)).toBe('D');
    expect((await salesOf(tx.id))[0].authentication).toBeNull();
  });

  it('leaving the challenge keeps the payment open; a new payment is challenged again', async () => {
    const tx = await open();
    const first = await challenged(tx.token);
    const left = await answer(tx.token, first, 'abandoned');
    expect(left.body).toMatchObject({ outcome: 'view', view: { status: 'pending', error: { message: 'error.authenticationIncomplete' } } });
    expect(await statusOf(tx.id)).toBe('N');

    const second = await challenged(tx.token);
    expect(second).not.toBe(first);
    expect((await answer(tx.token, second, 'completed')).body.kind).toBe('completed');
    expect(await statusOf(tx.id)).toBe('D');
  });

  it('4000 0084 0000 1629 is declined by the issuer even after a completed challenge', async () => {
    const tx = await open();
    const location = await challenged(tx.token, TEST_CARDS.challengedThenDeclined);
    const declined = await answer(tx.token, location, 'completed');
    expect(declined.body).toMatchObject({ outcome: 'view', view: { status: 'declined', error: { message: 'error.declined' } } });
    expect(await statusOf(tx.id)).toBe('N');
    expect(await salesOf(tx.id)).toEqual([]);
  });

  it('4000 0000 0000 3055 is authenticated without a challenge', async () => {
    const tx = await open();
    const res = await payWithCard(t.url, tx.token, TEST_CARDS.frictionless);
    expect(((await res.json()) as any).kind).toBe('completed');
    expect((await salesOf(tx.id))[0].authentication).toEqual({ status: 'authenticated', method: 'frictionless' });
  });

  it('an answer needs the page\'s CSRF token, and a challenge of another payment is not found', async () => {
    const tx = await open();
    const location = await challenged(tx.token);
    const forged = await fetch(new URL(location, t.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answer: 'completed' }),
    });
    expect(forged.status).toBe(403);
    const other = await open();
    const elsewhere = location.replace(tx.token, other.token);
    expect((await fetch(new URL(elsewhere, t.url))).status).toBe(404);
    expect(await statusOf(tx.id)).toBe('N');
  });

  it('without JavaScript: a full-page step, then back to the shop or to the payment', async () => {
    const tx = await open();
    const page = await (await fetch(`${t.url}/pay/${tx.token}/`)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    const form = (path: string, body: Record<string, string>) =>
      fetch(new URL(path, t.url), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...body }) });

    const paid = await form(`/pay/${tx.token}/`, { action: 'pay', gateway: SANDBOX_CARD, fields_of: SANDBOX_CARD, card_number: TEST_CARDS.challenged, ...FIELDS });
    expect(paid.status).toBe(303);
    const step = paid.headers.get('location')!;
    expect(step).toMatch(/\/challenge\/[0-9a-f-]{36}\/$/);
    const stepPage = await fetch(new URL(step, t.url));
    expect(stepPage.status).toBe(200);
    const html = await stepPage.text();
    expect(html).toContain('id="challenge-title"');
    expect(html).toMatch(/<button type="submit" name="answer" value="completed"/);
    expect(html).not.toContain('<script');

    const failed = await form(step, { answer: 'failed' });
    expect(failed.status).toBe(303);
    const back = failed.headers.get('location')!;
    expect(back).toContain('result=error.authenticationFailed');
    const shown = await (await fetch(new URL(back, t.url))).text();
    expect(shown).toContain('role="alert"');
    expect(shown).toContain('could not confirm it was you');
    // Answered: the step's page sends the customer back to the payment.
    expect((await fetch(new URL(step, t.url), { redirect: 'manual' })).status).toBe(303);

    const retry = await form(`/pay/${tx.token}/`, { action: 'pay', gateway: SANDBOX_CARD, fields_of: SANDBOX_CARD, card_number: TEST_CARDS.challenged, ...FIELDS });
    const completed = await form(retry.headers.get('location')!, { answer: 'completed' });
    expect(completed.status).toBe(303);
    expect(completed.headers.get('location')).toMatch(SIGNED_RETURN);
    expect(await statusOf(tx.id)).toBe('D');
  });

  it('a card stored after a challenge is charged later without one, marked merchant-initiated', async () => {
    const tx = await open({ authorize: true });
    const location = await challenged(tx.token);
    await answer(tx.token, location, 'completed');
    const [held] = await salesOf(tx.id);
    expect(held).toMatchObject({ status: 'held', authentication: { status: 'authenticated', method: 'challenge' } });
    const auth = (await api.get(`/authorization/?transaction_id=${tx.id}`)).body.results[0];
    const charged = await api.post(`/authorization/${auth.id}/charge/`, { amount: 5, currency: 'EUR' });
    expect(charged.status, charged.text).toBe(201);
    expect(charged.body).toMatchObject({ status: 'captured', authentication: { status: 'exempt', method: 'merchant_initiated' } });
  });
});
