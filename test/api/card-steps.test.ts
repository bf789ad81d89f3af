import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outcomeStrings } from '../../widget/screen/client-strings';
import { JOB_NAMES } from '../../server/jobs';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { startIsolatedService } from './database';
import { type Client, ENGINES, type TestService, testClock } from './harness';
import { HELD_ID, withHeld } from './held-gateway';
import { pageCsrf, SANDBOX_CARD, screenPost } from './pay';

// The card steps (issue 29): the hosted sign-up runs the issuer's challenge as the save page
// does (JSON as the hydrated screen, forms without JavaScript), and starts the subscription
// only once it is completed; the stored card records how its holder was authenticated. What
// a customer never comes back to ends on the service's clock through the expiry job: a
// store's challenge left unanswered (as if left), a hosted save page without a card after
// 7 days (`expired`, `authorization.expired`). A database of its own: the job takes every due row.

const DAY = 86_400_000;
const MINUTE = 60_000;
const FIELDS = { card_expiry: '12/34', card_cvc: '123', card_name: 'Ada' };
const RETURN = 'https://shop.example/subscribed';

describe.each(ENGINES)('card steps on %s', (engine) => {
  let t: TestService;
  let api: Client;
  const clock = testClock();
  const expire = () => t.service.jobs.runOnce(JOB_NAMES.authorizationExpiry);

  beforeAll(async () => {
    t = await startIsolatedService(engine, { now: clock.now });
    api = await t.newEnvironment('Steps Shop');
  });
  afterAll(() => t?.close());

  /** A waiting subscription's sign-up token. */
  async function signup(over: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
    const plan = await api.post('/plan/', { name: 'Pro', amount: 9.99, currency: 'EUR', interval: 'month', trial_days: 14 });
    const sub = await api.post('/subscription/', { plan: plan.body.id, ...over });
    expect(sub.status, sub.text).toBe(201);
    return { id: sub.body.id, token: /\/pay\/(sub_[^/]+)\//.exec(sub.body.payment_url)![1]! };
  }

  const csrfOf = (token: string) => pageCsrf(t.url, token);

  const post = (token: string, path: string, body: Record<string, unknown>) => screenPost(t.url, token, path, body);

  const signUpWith = (token: string, card: string, email = 'ada@example.com') =>
    post(token, `/pay/${token}/`, { action: 'pay', gateway: SANDBOX_CARD, fields: { customer_email: email, card_number: card, ...FIELDS } });
  const subscriptionOf = async (id: string) => (await api.get(`/subscription/${id}/`)).body;
  const authorizationOf = async (id: string) => (await api.get(`/authorization/${id}/`)).body;
  /** The authorization the sign-up's challenge waits for. */
  async function waitingFor(subscriptionId: string): Promise<string> {
    const row = await t.service.deps.database.db.selectFrom('subscriptions').select('signup_authorization_id').where('id', '=', subscriptionId).executeTakeFirstOrThrow();
    return row.signup_authorization_id!;
  }
  const eventsOf = async (type: string, id: string) => (await api.get(`/event/?type=${type}&object_id=${id}`)).body.results as unknown[];

  it('a card declined on the sign-up reads as not saved (nothing is charged there), and the sign-up stays open', async () => {
    const sub = await signup();
    const declined = await signUpWith(sub.token, TEST_CARDS.declined);
    expect(declined.body).toMatchObject({ outcome: 'view', view: { status: 'declined', error: { message: 'error.saveDeclined' } } });
    expect(await subscriptionOf(sub.id)).toMatchObject({ status: 'waiting', authorization: null });
  });

  describe('the sign-up challenge', () => {
    it('a challenged card starts nothing until the challenge is completed; failing or leaving it keeps the sign-up open', async () => {
      const sub = await signup();
      const asked = await signUpWith(sub.token, TEST_CARDS.challenged);
      expect(asked.body).toEqual({ outcome: 'redirect', kind: 'challenge', location: `/pay/${sub.token}/challenge/`, strings: outcomeStrings('en', 'subscription') });
      const first = await waitingFor(sub.id);
      expect(await authorizationOf(first)).toMatchObject({ status: 'requires_action', card: null });
      expect(await subscriptionOf(sub.id)).toMatchObject({ status: 'waiting', authorization: null, payment_url: expect.stringContaining(sub.token) });

      const failed = await post(sub.token, asked.body.location, { answer: 'failed' });
      expect(failed.body).toMatchObject({ outcome: 'view', view: { status: 'declined', error: { message: 'error.saveAuthFailed' }, subscription: { planName: 'Pro' } } });
      expect((await authorizationOf(first)).status).toBe('failed');
      expect(await subscriptionOf(sub.id)).toMatchObject({ status: 'waiting', authorization: null });

      await signUpWith(sub.token, TEST_CARDS.challenged);
      const left = await post(sub.token, asked.body.location, { answer: 'abandoned' });
      expect(left.body).toMatchObject({ outcome: 'view', view: { status: 'pending', error: { message: 'error.saveIncomplete' } } });
      expect((await authorizationOf(await waitingFor(sub.id))).status).toBe('failed');
      expect((await subscriptionOf(sub.id)).status).toBe('waiting');

      await signUpWith(sub.token, TEST_CARDS.challenged);
      const third = await waitingFor(sub.id);
      const done = await post(sub.token, asked.body.location, { answer: 'completed' });
      expect(done.body).toMatchObject({ outcome: 'view', view: { status: 'paid' } });
      expect(await subscriptionOf(sub.id)).toMatchObject({ status: 'trialing', authorization: third, customer_email: 'ada@example.com', payment_url: null });
      expect(await authorizationOf(third)).toMatchObject({ status: 'active', card: { last4: '3184' }, authentication: { status: 'authenticated', method: 'challenge' } });
      // Answered: a second answer starts nothing else.
      const again = await post(sub.token, asked.body.location, { answer: 'completed' });
      expect(again.body.view.status).toBe('paid');
      expect((await api.get('/authorization/?status=active')).body.results.filter((a: { card: { last4: string } | null }) => a.card?.last4 === '3184')).toHaveLength(1);
    });

    it('a frictionless card starts at once, authenticated; a plain one records no authentication', async () => {
      const sub = await signup();
      const done = await signUpWith(sub.token, TEST_CARDS.frictionless);
      expect(done.body).toMatchObject({ outcome: 'view', view: { status: 'paid' } });
      const started = await subscriptionOf(sub.id);
      expect(started.status).toBe('trialing');
      expect(await authorizationOf(started.authorization)).toMatchObject({ status: 'active', authentication: { status: 'authenticated', method: 'frictionless' } });

      const plain = await signup();
      await signUpWith(plain.token, TEST_CARDS.approved);
      const plainSub = await subscriptionOf(plain.id);
      expect((await authorizationOf(plainSub.authorization)).authentication).toBeNull();
    });

    it('a card the issuer declines after a completed challenge leaves the sign-up open', async () => {
      const sub = await signup();
      const asked = await signUpWith(sub.token, TEST_CARDS.challengedThenDeclined);
      expect(asked.body.kind).toBe('challenge');
      const declined = await post(sub.token, asked.body.location, { answer: 'completed' });
      expect(declined.body).toMatchObject({ outcome: 'view', view: { status: 'declined', error: { message: 'error.saveDeclined' } } });
      expect((await authorizationOf(await waitingFor(sub.id))).status).toBe('failed');
      expect(await subscriptionOf(sub.id)).toMatchObject({ status: 'waiting', authorization: null });
    });

    it('without JavaScript: the form posts, the challenge is a page of its own, and the customer is sent back', async () => {
      const sub = await signup({ return_url: RETURN });
      const page = await (await fetch(`${t.url}/pay/${sub.token}/`)).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
      const form = (path: string, body: Record<string, string>) =>
        fetch(new URL(path, t.url), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...body }) });
      const card = { action: 'pay', gateway: SANDBOX_CARD, fields_of: SANDBOX_CARD, customer_email: '', ...FIELDS };

      const asked = await form(`/pay/${sub.token}/`, { ...card, card_number: TEST_CARDS.challenged });
      expect(asked.status).toBe(303);
      const step = asked.headers.get('location')!;
      expect(step).toBe(`/pay/${sub.token}/challenge/`);
      const stepHtml = await (await fetch(new URL(step, t.url))).text();
      expect(stepHtml).toContain('Confirm your card');
      expect(stepHtml).toContain('asks to save your card');
      expect(stepHtml).not.toContain('<script');

      const failed = await form(step, { answer: 'failed' });
      expect(failed.status).toBe(303);
      expect(failed.headers.get('location')).toBe(`/pay/${sub.token}/?result=error.saveAuthFailed`);
      const shown = await (await fetch(new URL(failed.headers.get('location')!, t.url))).text();
      expect(shown).toContain('role="alert"');
      expect(shown).toContain('could not confirm it was you');
      // Answered: the step sends the customer back to the page.
      expect((await fetch(new URL(step, t.url), { redirect: 'manual' })).headers.get('location')).toBe(`/pay/${sub.token}/?result=error.saveIncomplete`);

      await form(`/pay/${sub.token}/`, { ...card, card_number: TEST_CARDS.challenged });
      const completed = await form(step, { answer: 'completed' });
      expect(completed.status).toBe(303);
      // Signed, as every sign-up's return (docs/checkout.md "Signed returns").
      expect(completed.headers.get('location')).toMatch(new RegExp(`^${RETURN}\\?subscription_id=${sub.id}&status=trialing&timestamp=\\d+&signature=`));
      expect((await subscriptionOf(sub.id)).status).toBe('trialing');
    });

    it('refuses an answer without the page\'s CSRF token, and a challenge step of an unknown sign-up is a 404', async () => {
      const sub = await signup();
      const asked = await signUpWith(sub.token, TEST_CARDS.challenged);
      const forged = await fetch(new URL(asked.body.location, t.url), { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': 'nope' }, body: JSON.stringify({ answer: 'completed' }) });
      expect(forged.status).toBe(403);
      const odd = await post(sub.token, asked.body.location, { answer: 'maybe' });
      expect(odd.status).toBe(400);
      expect((await authorizationOf(await waitingFor(sub.id))).status).toBe('requires_action');
      expect((await fetch(`${t.url}/pay/sub_${'x'.repeat(32)}/challenge/`)).status).toBe(404);
    });
  });

  describe('expiry on the service clock', () => {
    // What earlier tests left waiting is ended first, so each test counts its own.
    beforeEach(async () => {
      clock.advance(8 * DAY);
      while ((await expire()) > 0);
    });

    it('a hosted save page without a card expires after 7 days, once, with its event; the page says so', async () => {
      const a = (await api.post('/authorization/', { gateway: SANDBOX_CARD })).body;
      const b = (await api.post('/authorization/', { gateway: SANDBOX_CARD })).body;
      const saved = (await api.post('/authorization/', { gateway: SANDBOX_CARD })).body;
      await post(saved.token, `/pay/${saved.token}/`, { action: 'pay', gateway: SANDBOX_CARD, fields: { card_number: TEST_CARDS.approved, ...FIELDS } });

      clock.advance(7 * DAY - MINUTE);
      expect(await expire()).toBe(0);
      expect((await authorizationOf(a.id)).status).toBe('pending');

      clock.advance(2 * MINUTE);
      // Two rounds at once, as two processes would run them: each page is taken by one.
      const [x, y] = await Promise.all([expire(), expire()]);
      expect(x + y).toBe(2);
      expect(await authorizationOf(a.id)).toMatchObject({ status: 'expired', token: null, url: null });
      expect((await authorizationOf(b.id)).status).toBe('expired');
      expect((await authorizationOf(saved.id)).status).toBe('active');
      expect(await eventsOf('authorization.expired', a.id)).toHaveLength(1);
      expect(await expire()).toBe(0);

      const html = await (await fetch(`${t.url}/pay/${a.token}/`)).text();
      expect(html).toContain('This link has expired');
      const late = await fetch(`${t.url}/pay/${a.token}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': await csrfOf(a.token) },
        body: JSON.stringify({ action: 'pay', gateway: SANDBOX_CARD, fields: { card_number: TEST_CARDS.approved, ...FIELDS } }),
      });
      expect(late.status).toBe(409);
      expect((await authorizationOf(a.id)).status).toBe('expired');
      expect((await api.get('/authorization/?status=expired')).body.results.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    });

    it('a page opened past its expiry ends it there, before the job', async () => {
      const a = (await api.post('/authorization/', { gateway: SANDBOX_CARD })).body;
      clock.advance(7 * DAY + MINUTE);
      const html = await (await fetch(`${t.url}/pay/${a.token}/`)).text();
      expect(html).toContain('This link has expired');
      expect((await authorizationOf(a.id)).status).toBe('expired');
      expect(await eventsOf('authorization.expired', a.id)).toHaveLength(1);
      expect(await expire()).toBe(0);
    });

    it('a raw card\'s challenge nobody answers fails after 15 minutes, as a failed one would, with its event', async () => {
      const raw = await api.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.challenged, expiry: '12/34', cvc: '123', name: 'Ada' } });
      expect(raw.body.status).toBe('requires_action');
      clock.advance(14 * MINUTE);
      expect(await expire()).toBe(0);
      expect((await authorizationOf(raw.body.id)).status).toBe('requires_action');
      clock.advance(2 * MINUTE);
      expect(await expire()).toBe(1);
      expect(await authorizationOf(raw.body.id)).toMatchObject({ status: 'failed', token: null, url: null });
      expect(await eventsOf('authorization.failed', raw.body.id)).toHaveLength(1);
      // The page's step is closed: back to the page, which says it is over.
      const step = await fetch(`${t.url}/pay/${raw.body.token}/challenge/`, { redirect: 'manual' });
      expect(step.status).toBe(303);
      expect(await expire()).toBe(0);
    });

    it('a hosted page\'s lapsed challenge opens it again, and a sign-up\'s leaves the sign-up open', async () => {
      const hosted = (await api.post('/authorization/', { gateway: SANDBOX_CARD })).body;
      await post(hosted.token, `/pay/${hosted.token}/`, { action: 'pay', gateway: SANDBOX_CARD, fields: { card_number: TEST_CARDS.challenged, ...FIELDS } });
      const sub = await signup();
      await signUpWith(sub.token, TEST_CARDS.challenged);
      const waiting = await waitingFor(sub.id);
      expect((await authorizationOf(hosted.id)).status).toBe('requires_action');

      clock.advance(16 * MINUTE);
      expect(await expire()).toBe(2);
      expect((await authorizationOf(hosted.id)).status).toBe('pending');
      expect((await authorizationOf(waiting)).status).toBe('failed');
      expect(await subscriptionOf(sub.id)).toMatchObject({ status: 'waiting', authorization: null });
      // The sign-up takes another card.
      const done = await signUpWith(sub.token, TEST_CARDS.approved);
      expect(done.body.view.status).toBe('paid');
    });
  });
});

describe.each(ENGINES)('a save page whose store is in doubt at its expiry, on %s', (engine) => {
  let t: TestService;
  let api: Client;
  const clock = testClock();
  const { gateways, held } = withHeld();
  const expire = () => t.service.jobs.runOnce(JOB_NAMES.authorizationExpiry);

  beforeAll(async () => {
    t = await startIsolatedService(engine, { now: clock.now, gateways });
    api = await t.newEnvironment('Slow Shop');
  });
  afterAll(() => t?.close());

  async function saveInFlight() {
    const created = (await api.post('/authorization/', { gateway: HELD_ID })).body as { id: string; token: string };
    const html = await (await fetch(`${t.url}/pay/${created.token}/`)).text();
    const csrf = /"csrf":"([^"]+)"/.exec(html)![1]!;
    const hold = held.hold('store');
    const saving = fetch(`${t.url}/pay/${created.token}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ action: 'pay', gateway: HELD_ID, fields: { card_number: TEST_CARDS.approved, ...FIELDS } }),
    });
    await hold.arrived;
    return { created, saving, release: hold.release };
  }
  const statusOf = async (id: string) => (await api.get(`/authorization/${id}/`)).body.status;

  it('is not expired while the store is in flight; the card the gateway stores is recorded', async () => {
    const { created, saving, release } = await saveInFlight();
    clock.advance(7 * DAY + MINUTE);
    expect(await expire()).toBe(0);
    expect(await statusOf(created.id)).toBe('pending');
    release();
    expect((await saving).status).toBe(200);
    expect(await statusOf(created.id)).toBe('active');
    expect(await expire()).toBe(0);
  });

  it('a card stored after the page expired (the sweep between the page\'s read and its store) is recorded active, as the gateway says', async () => {
    const { created, saving, release } = await saveInFlight();
    // The window the conditional write cannot close: the page read it pending, the sweep ended it before the store call was written.
    await t.service.deps.database.db.updateTable('authorizations').set({ status: 'expired' }).where('id', '=', created.id).execute();
    release();
    expect((await saving).status).toBe(200);
    expect(await statusOf(created.id)).toBe('active');
    expect((await api.get(`/event/?type=authorization.created&object_id=${created.id}`)).body.results).toHaveLength(1);
  });
});
