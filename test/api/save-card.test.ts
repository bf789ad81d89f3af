import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeStrings } from '../../widget/screen/client-strings';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { setRawCardNumbers } from '../../server/store/environments';
import { type Client, ENGINES, startTestService, type TestService } from './harness';
import { pageCsrf, SANDBOX_CARD, screenPost } from './pay';

// Saving a card without touching it (docs/payments.md, "Save a card on the hosted page"):
// POST /v1/authorization/ without a card answers with the hosted page's url and token; the
// page takes the card (JSON as the hydrated screen, forms without JavaScript), runs the
// issuer's challenge where the card needs one, and completes the authorization. A raw card
// that needs a challenge answers requires_action with the page's url; an environment with
// raw_card_numbers off refuses raw cards.

const RETURN = 'https://shop.example/saved';
const FIELDS = { card_expiry: '12/34', card_cvc: '123', card_name: 'Ada' };
const SAVE_URL = /^http:\/\/[^/]+\/pay\/(sav_[A-Za-z0-9_-]{32})\/$/;

describe.each(ENGINES)('saving a card on the hosted page on %s', (engine) => {
  let t: TestService;
  let api: Client;

  beforeAll(async () => {
    t = await startTestService(engine);
    api = await t.newEnvironment('Save Shop');
  });
  afterAll(() => t?.close());

  async function saveRequest(over: Record<string, unknown> = {}) {
    const res = await api.post('/authorization/', { gateway: SANDBOX_CARD, ...over });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; status: string; token: string; url: string };
  }

  /** The page's view, as the hydrated screen reads it. */
  async function pageState(token: string) {
    const html = await (await fetch(`${t.url}/pay/${token}/`)).text();
    const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html);
    return { html, view: (JSON.parse(state![1]!) as { view: any }).view };
  }

  const csrfOf = (token: string) => pageCsrf(t.url, token);

  const post = (token: string, path: string, body: Record<string, unknown>) => screenPost(t.url, token, path, body);

  const saveWith = (token: string, card: string) =>
    post(token, `/pay/${token}/`, { action: 'pay', gateway: SANDBOX_CARD, fields: { card_number: card, ...FIELDS } });
  const statusOf = async (id: string) => (await api.get(`/authorization/${id}/`)).body;

  it('stores one card when the customer saves several times at once', async () => {
    const request = await saveRequest();
    const csrf = await csrfOf(request.token);
    const once = () =>
      fetch(`${t.url}/pay/${request.token}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ action: 'pay', gateway: SANDBOX_CARD, fields: { card_number: TEST_CARDS.approved, ...FIELDS } }),
      }).then((r) => r.status);
    const statuses = await Promise.all(Array.from({ length: 6 }, once));
    expect(statuses.filter((s) => s >= 500), String(statuses)).toEqual([]);
    const stores = await t.service.deps.database.db
      .selectFrom('gateway_calls')
      .select(['state'])
      .where('subject_id', '=', request.id)
      .where('kind', '=', 'store')
      .execute();
    expect(stores).toEqual([{ state: 'succeeded' }]);
    expect((await statusOf(request.id)).status).toBe('active');
  });

  it('without a card: a pending authorization with the hosted page; a plain card saved there makes it active', async () => {
    const created = await saveRequest({ return_url: RETURN, notify_url: 'https://shop.example/hooks' });
    expect(created).toMatchObject({ status: 'pending', card: null, token: expect.stringMatching(/^sav_/) });
    expect(created.url).toMatch(SAVE_URL);
    expect(SAVE_URL.exec(created.url)![1]).toBe(created.token);
    // Not a card yet: nothing to remove, and the answer says why (it said "already removed").
    const remove = await api.post(`/authorization/${created.id}/remove/`, undefined);
    expect(remove.status).toBe(409);
    expect(remove.body.detail).toBe('the authorization is pending: only an active authorization is removed; nothing was changed');

    const { html, view } = await pageState(created.token);
    expect(view).toMatchObject({ saveCard: true, status: 'pending', totalPrice: 0, gateways: [{ id: SANDBOX_CARD }] });
    expect(html).toContain('Save a card for Save Shop');

    const saved = await saveWith(created.token, TEST_CARDS.approved);
    expect(saved.body).toMatchObject({ outcome: 'redirect', kind: 'completed', location: RETURN, view: { status: 'paid' } });
    const after = await statusOf(created.id);
    expect(after).toMatchObject({ status: 'active', card: { brand: 'visa', last4: '4242' }, token: null, url: null });
    const events = (await api.get(`/event/?type=authorization.created&object_id=${created.id}`)).body.results as any[];
    expect(events).toHaveLength(1);

    const charged = await api.post(`/authorization/${created.id}/charge/`, { amount: 5, currency: 'EUR' });
    expect(charged.status, charged.text).toBe(201);
    // Saved: the page confirms, and takes no other card.
    expect((await pageState(created.token)).view.status).toBe('paid');
    expect((await saveWith(created.token, TEST_CARDS.approved)).status).toBe(409);
  });

  it('a declined card leaves the authorization pending for another card', async () => {
    const created = await saveRequest();
    const declined = await saveWith(created.token, TEST_CARDS.declined);
    expect(declined.body).toMatchObject({ outcome: 'view', view: { status: 'declined', error: { message: 'error.saveDeclined' } } });
    expect((await statusOf(created.id)).status).toBe('pending');
    const saved = await saveWith(created.token, TEST_CARDS.approved);
    // No return_url: the page itself confirms.
    expect(saved.body).toMatchObject({ outcome: 'view', view: { status: 'paid' } });
    expect((await statusOf(created.id)).status).toBe('active');
  });

  it('a challenge card asks first: completing the challenge saves it, failing or leaving it keeps the page open', async () => {
    const created = await saveRequest();
    const asked = await saveWith(created.token, TEST_CARDS.challenged);
    expect(asked.body).toEqual({ outcome: 'redirect', kind: 'challenge', location: `/pay/${created.token}/challenge/`, strings: outcomeStrings('en', 'save') });
    expect((await statusOf(created.id)).status).toBe('requires_action');

    const failed = await post(created.token, asked.body.location, { answer: 'failed' });
    expect(failed.body).toMatchObject({ outcome: 'view', view: { status: 'declined', error: { message: 'error.saveAuthFailed' } } });
    expect((await statusOf(created.id)).status).toBe('pending');

    await saveWith(created.token, TEST_CARDS.challenged);
    const left = await post(created.token, asked.body.location, { answer: 'abandoned' });
    expect(left.body).toMatchObject({ view: { status: 'pending', error: { message: 'error.saveIncomplete' } } });
    expect((await statusOf(created.id)).status).toBe('pending');

    await saveWith(created.token, TEST_CARDS.challenged);
    const done = await post(created.token, asked.body.location, { answer: 'completed' });
    expect(done.body).toMatchObject({ outcome: 'view', view: { status: 'paid' } });
    expect(await statusOf(created.id)).toMatchObject({ status: 'active', card: { last4: '3184' } });
    // Answered: a second answer changes nothing.
    expect((await post(created.token, asked.body.location, { answer: 'completed' })).body.view.status).toBe('paid');
  });

  it('without JavaScript: the form posts, the challenge is a page of its own, and the customer is sent back', async () => {
    const created = await saveRequest({ return_url: RETURN });
    const page = await (await fetch(`${t.url}/pay/${created.token}/`)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    const form = (path: string, body: Record<string, string>) =>
      fetch(new URL(path, t.url), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...body }) });
    const card = { action: 'pay', gateway: SANDBOX_CARD, fields_of: SANDBOX_CARD, ...FIELDS };

    const declined = await form(`/pay/${created.token}/`, { ...card, card_number: TEST_CARDS.declined });
    expect(declined.status).toBe(303);
    const shown = await (await fetch(new URL(declined.headers.get('location')!, t.url))).text();
    expect(shown).toContain('role="alert"');
    expect(shown).toContain('was not saved');

    const asked = await form(`/pay/${created.token}/`, { ...card, card_number: TEST_CARDS.challenged });
    expect(asked.status).toBe(303);
    const step = asked.headers.get('location')!;
    expect(step).toBe(`/pay/${created.token}/challenge/`);
    const stepHtml = await (await fetch(new URL(step, t.url))).text();
    expect(stepHtml).toContain('Confirm your card');
    expect(stepHtml).not.toContain('<script');
    // The page itself sends the customer to the open challenge.
    expect((await fetch(`${t.url}/pay/${created.token}/`, { redirect: 'manual' })).headers.get('location')).toBe(step);

    const completed = await form(step, { answer: 'completed' });
    expect(completed.status).toBe(303);
    expect(completed.headers.get('location')).toBe(RETURN);
    expect((await statusOf(created.id)).status).toBe('active');
  });

  it('a raw card that needs a challenge answers requires_action with the page to send the customer to', async () => {
    const res = await api.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.challenged, expiry: '12/34', cvc: '123', name: 'Ada' }, return_url: RETURN });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'requires_action', card: null, token: expect.stringMatching(/^sav_/) });
    expect(res.body.url).toMatch(SAVE_URL);
    const token = res.body.token as string;
    // The url opens the challenge.
    const opened = await fetch(res.body.url, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe(`/pay/${token}/challenge/`);
    const done = await post(token, `/pay/${token}/challenge/`, { answer: 'completed' });
    expect(done.body).toMatchObject({ outcome: 'redirect', kind: 'completed', location: RETURN });
    expect(await statusOf(res.body.id)).toMatchObject({ status: 'active', card: { last4: '3184' }, url: null });

    // A plain raw card is stored at once, as before.
    const plain = await api.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'Ada' } });
    expect(plain.body).toMatchObject({ status: 'active', token: null, url: null });
  });

  it('a raw card whose challenge fails ends failed, with its event', async () => {
    const res = await api.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.challenged, expiry: '12/34', cvc: '123', name: 'Ada' } });
    expect(res.body.status).toBe('requires_action');
    const failed = await post(res.body.token, `/pay/${res.body.token}/challenge/`, { answer: 'failed' });
    expect(failed.body.view.status).toBe('expired');
    expect((await statusOf(res.body.id)).status).toBe('failed');
    const events = (await api.get(`/event/?type=authorization.failed&object_id=${res.body.id}`)).body.results as any[];
    expect(events).toHaveLength(1);
  });

  it('raw_card_numbers off: a raw card is refused with a problem that points to the hosted page; without a card it works', async () => {
    const shop = await t.newEnvironment('No Raw Cards');
    expect(await setRawCardNumbers(t.service.deps.database.db, shop.keys.environment_id, false)).toBe(true);
    const refused = await shop.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'Ada' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ type: 'urn:problem:raw-cards-off', errors: [{ path: 'card' }] });
    expect(refused.body.detail).toContain('url');
    expect((await shop.get('/authorization/')).body.count).toBe(0);
    const hosted = await shop.post('/authorization/', { gateway: SANDBOX_CARD });
    expect(hosted.status).toBe(201);
    expect(hosted.body.url).toMatch(SAVE_URL);
    // The other environment keeps its default: on.
    const other = await api.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'Ada' } });
    expect(other.status).toBe(201);
  });

  it('the page token belongs to its environment: another environment cannot see the authorization, and unknown tokens are not found', async () => {
    const created = await saveRequest();
    const other = await t.newEnvironment('Other Shop');
    expect((await other.get(`/authorization/${created.id}/`)).status).toBe(404);
    expect((await other.post(`/authorization/${created.id}/charge/`, { amount: 1, currency: 'EUR' })).status).toBe(404);
    expect((await other.get('/authorization/')).body.results.map((a: any) => a.id)).not.toContain(created.id);
    const { view } = await pageState(created.token);
    expect(view.merchantName).toBe('Save Shop');
    const unknown = `sav_${'A'.repeat(32)}`;
    expect((await fetch(`${t.url}/pay/${unknown}/`)).status).toBe(404);
    expect((await fetch(`${t.url}/pay/${unknown}/challenge/`)).status).toBe(404);
    // A forged post (no CSRF token) changes nothing.
    const forged = await fetch(`${t.url}/pay/${created.token}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'pay', gateway: SANDBOX_CARD, fields: { card_number: TEST_CARDS.approved, ...FIELDS } }),
    });
    expect(forged.status).toBe(403);
    expect((await statusOf(created.id)).status).toBe('pending');
  });

  // The widget hears why a frame stays empty, as for a payment (docs/widget.md): the save
  // and sign-up pages answered a disallowed origin with the page itself (framable by none)
  // and an unknown token with a plain 404, so the merchant saw `network` after 10 s.
  it('in a frame of an origin that may not embed them, the save and sign-up pages post checkout:error', async () => {
    const evil = 'https://evil.example';
    const created = await saveRequest();
    const plan = (await api.post('/plan/', { name: 'Pro', amount: 9.99, currency: 'EUR', interval: 'month' })).body.id;
    const signup = new URL((await api.post('/subscription/', { plan })).body.payment_url).pathname;
    for (const [path, status, code] of [
      [`/pay/${created.token}/`, 403, 'origin_not_allowed'],
      [signup, 403, 'origin_not_allowed'],
      [`/pay/sav_${'A'.repeat(32)}/`, 404, 'token_unknown'],
      [`/pay/sub_${'A'.repeat(32)}/`, 404, 'token_unknown'],
    ] as const) {
      const res = await fetch(`${t.url}${path}?embed=1&origin=${encodeURIComponent(evil)}`);
      const html = await res.text();
      expect(res.status, path).toBe(status);
      expect(/frame-ancestors ([^;]+)/.exec(res.headers.get('content-security-policy') ?? '')?.[1], path).toBe(evil);
      expect(html, path).toContain(`"code":"${code}"`);
      expect(html, path).not.toContain('id="checkout-state"');
    }
  });

  it("\"Don't save a card\" goes to cancel_url and changes nothing: the link keeps working", async () => {
    const created = await saveRequest({ cancel_url: 'https://shop.example/account' });
    const left = await post(created.token, `/pay/${created.token}/`, { action: 'cancel' });
    expect(left.body).toEqual({ outcome: 'redirect', location: 'https://shop.example/account', kind: 'cancelled', strings: outcomeStrings('en', 'save') });
    expect((await statusOf(created.id)).status).toBe('pending');
    expect((await saveWith(created.token, TEST_CARDS.approved)).body.view.status).toBe('paid');
  });

  it('bad inputs are 400s naming the field', async () => {
    const bad = await api.post('/authorization/', { gateway: SANDBOX_CARD, return_url: 'ftp://shop.example/' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('return_url');
  });
});
