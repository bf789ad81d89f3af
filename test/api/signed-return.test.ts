import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReturnUrl } from '../../packages/sdk/src/index';
import { verifyReturn } from '../../server/notify/return-signature';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { type Client, ENGINES, startTestService, type TestService, transactionBody } from './harness';
import { payWithCard, SANDBOX_CARD, screenPost } from './pay';

// Returns to return_url and cancel_url are signed with the environment's return-signing
// secret (readable and rollable by the API, not the webhook secret): what a merchant's
// server verifies, a stale or altered one fails.

const RETURN = 'https://shop.example/thanks?order=R-1';
const CANCEL = 'https://shop.example/basket';
const MINUTE = 60_000;

describe.each(ENGINES)('signed returns on %s', (engine) => {
  let t: TestService;
  let api: Client;

  beforeAll(async () => {
    t = await startTestService(engine);
    api = await t.newEnvironment('Signed Shop');
  });
  afterAll(() => t?.close());

  const secret = async () => {
    const res = await api.get('/environment/return_secret/');
    expect(res.status).toBe(200);
    return res.body.secret as string;
  };

  /** Pays or cancels a hosted page (a payment's or a sign-up's) through its form, as a browser without JavaScript; the 303's Location. */
  async function leavePage(token: string, action: 'pay' | 'cancel') {
    const html = await (await fetch(`${t.url}/pay/${token}/`)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const fields: Record<string, string> =
      action === 'pay'
        ? { action, gateway: SANDBOX_CARD, fields_of: SANDBOX_CARD, card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'A' }
        : { action, confirm: '1' };
    const res = await fetch(`${t.url}/pay/${token}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, ...fields }),
    });
    expect(res.status).toBe(303);
    return res.headers.get('location')!;
  }

  /** A payment paid or cancelled on its page without JavaScript. */
  async function leave(action: 'pay' | 'cancel') {
    const created = await api.post('/transaction/', transactionBody({ return_url: RETURN, cancel_url: CANCEL }));
    const { token, id } = created.body as { token: string; id: string };
    return { id, token, location: await leavePage(token, action) };
  }

  it('paid: return_url gets transaction_id, status D, timestamp and a signature that verifies with the return secret', async () => {
    const { id, location } = await leave('pay');
    expect(location.startsWith(`${RETURN}&transaction_id=${id}&status=D&timestamp=`)).toBe(true);
    expect(verifyReturn(location, await secret(), new Date())).toMatchObject({ valid: true, transaction_id: id, status: 'D' });
  });

  it('cancelled: cancel_url is signed with status C', async () => {
    const { id, location } = await leave('cancel');
    expect(location.startsWith(`${CANCEL}?transaction_id=${id}&status=C&`)).toBe(true);
    expect(verifyReturn(location, await secret(), new Date())).toMatchObject({ valid: true, status: 'C' });
  });

  it('a stale return (over ten minutes) or an altered one fails; the webhook secret does not verify it', async () => {
    const { location } = await leave('pay');
    const key = await secret();
    expect(verifyReturn(location, key, new Date(Date.now() + 11 * MINUTE))).toEqual({ valid: false, reason: 'stale' });
    expect(verifyReturn(location.replace('status=D', 'status=C'), key, new Date())).toEqual({ valid: false, reason: 'forged' });
    expect(verifyReturn(location.replace('order=R-1', 'order=R-2'), key, new Date())).toEqual({ valid: false, reason: 'forged' });
    expect(verifyReturn(location, api.keys.webhook_secret, new Date())).toEqual({ valid: false, reason: 'forged' });
  });

  it('the hydrated screen gets the same signed URL, and the widget\'s frame reports it as its redirect', async () => {
    const created = await api.post('/transaction/', transactionBody({ return_url: RETURN }));
    const res = await payWithCard(t.url, created.body.token);
    const body = (await res.json()) as any;
    expect(body.kind).toBe('completed');
    expect(verifyReturn(body.location, await secret(), new Date())).toMatchObject({ valid: true, transaction_id: created.body.id });
    // The paid page's "Back to shop" link is signed too.
    expect(verifyReturn(body.view.returnUrl, await secret(), new Date()).valid).toBe(true);
  });

  /** A subscription with a 14-day trial (nothing due today) and its sign-up page's token. */
  async function signup() {
    const plan = await api.post('/plan/', { name: 'Beans monthly', amount: 9.5, currency: 'EUR', interval: 'month', trial_days: 14 });
    const sub = await api.post('/subscription/', { plan: plan.body.id, return_url: RETURN, cancel_url: CANCEL });
    expect(sub.status).toBe(201);
    return { id: sub.body.id as string, token: new URL(sub.body.payment_url).pathname.split('/')[2]! };
  }

  it("a sign-up's return is signed with the subscription's id and status, and the SDK verifies it", async () => {
    const { id, token } = await signup();
    const location = await leavePage(token, 'pay');
    expect(location.startsWith(`${RETURN}&subscription_id=${id}&status=trialing&timestamp=`)).toBe(true);
    const check = verifyReturnUrl(location, await secret());
    expect(check).toMatchObject({ valid: true, subscription_id: id, status: 'trialing' });
    expect(check.valid && check.transaction_id).toBeUndefined();
    expect(verifyReturnUrl(location.replace('status=trialing', 'status=active'), await secret())).toEqual({ valid: false, reason: 'forged' });
  });

  it('a sign-up the customer leaves goes to cancel_url, signed with the status it still has', async () => {
    const { id, token } = await signup();
    const location = await leavePage(token, 'cancel');
    expect(location.startsWith(`${CANCEL}?subscription_id=${id}&status=waiting&`)).toBe(true);
    expect(verifyReturn(location, await secret(), new Date())).toMatchObject({ valid: true, subscription_id: id, status: 'waiting' });
  });

  it('the hydrated sign-up gets the signed URL with the confirmed view, to show "Subscription confirmed" first', async () => {
    const { id, token } = await signup();
    const res = await screenPost(t.url, token, `/pay/${token}/`, {
      action: 'pay',
      gateway: SANDBOX_CARD,
      fields: { card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'A' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'redirect', kind: 'completed', view: { status: 'paid', subscription: { trialDays: 14 } } });
    expect(verifyReturnUrl(res.body.location, await secret())).toMatchObject({ valid: true, subscription_id: id, status: 'trialing' });
  });

  it('rolling: a new secret; with an overlap the old one still verifies, without one it no longer does', async () => {
    const old = await secret();
    const rolled = await api.post('/environment/return_secret/roll/', { overlap_seconds: 600 });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(old);
    expect(Date.parse(rolled.body.previous_expires)).toBeGreaterThan(Date.now());
    const during = (await leave('pay')).location;
    expect(verifyReturn(during, old, new Date()).valid).toBe(true);
    expect(verifyReturn(during, rolled.body.secret, new Date()).valid).toBe(true);

    const again = await api.post('/environment/return_secret/roll/', { overlap_seconds: 0 });
    expect(again.body.previous_expires).toBeNull();
    const after = (await leave('pay')).location;
    expect(verifyReturn(after, rolled.body.secret, new Date())).toEqual({ valid: false, reason: 'forged' });
    expect(verifyReturn(after, again.body.secret, new Date()).valid).toBe(true);
  });

  it('a roll with a bad overlap is a 400 naming the field; each environment has its own secret', async () => {
    const bad = await api.post('/environment/return_secret/roll/', { overlap_seconds: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('overlap_seconds');
    const other = await t.newEnvironment('Other Shop');
    expect((await other.get('/environment/return_secret/')).body.secret).not.toBe(await secret());
  });
});
