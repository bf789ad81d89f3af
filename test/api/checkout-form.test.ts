import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { type Client, ENGINES, startTestService, type TestService, transactionBody } from './harness';
import { SANDBOX_CARD } from './pay';

// The checkout form as a browser without JavaScript posts it (urlencoded, answered with
// HTML or a 303): cancelling asks first, the gateway is chosen before its fields are
// judged, and a failed post gives back the fields it may; the sign-up page's the same, with
// one card stored however many posts arrive at once.

describe.each(ENGINES)('the no-JavaScript checkout form on %s', (engine) => {
  let t: TestService;
  let api: Client;

  beforeAll(async () => {
    t = await startTestService(engine);
    api = await t.newEnvironment('Form Shop');
  });
  afterAll(() => t?.close());

  async function open(over: Record<string, unknown> = {}) {
    const res = await api.post('/transaction/', transactionBody({ cancel_url: 'https://shop.example/basket', ...over }));
    expect(res.status, res.text).toBe(201);
    const html = await (await fetch(`${t.url}/pay/${res.body.token}/`)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const post = (fields: Record<string, string>) =>
      fetch(`${t.url}/pay/${res.body.token}/`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, ...fields }),
      });
    const status = async () => (await api.get(`/transaction/${res.body.id}/`)).body.status as string;
    return { post, status };
  }

  it('cancel: the first post asks and changes nothing, the confirmed one cancels', async () => {
    const tx = await open();
    const ask = await tx.post({ action: 'cancel' });
    expect(ask.status).toBe(200);
    const html = await ask.text();
    expect(html).toContain('id="cancel-confirm-title"');
    expect(html).toContain('<input type="hidden" name="confirm" value="1"/>');
    expect(await tx.status()).toBe('N');

    const confirmed = await tx.post({ action: 'cancel', confirm: '1' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toMatch(/^https:\/\/shop\.example\/basket\?transaction_id=[0-9a-f-]{36}&status=C&timestamp=\d+&signature=[^&]+$/);
    expect(await tx.status()).toBe('C');
  });

  it('a forged confirm value is a 400, not a cancel', async () => {
    const tx = await open();
    expect((await tx.post({ action: 'cancel', confirm: 'yes' })).status).toBe(400);
    expect(await tx.status()).toBe('N');
  });

  it('choosing the card gateway on a page that showed no fields shows them, without errors', async () => {
    const tx = await open({ gateway_selected: false });
    const res = await tx.post({ action: 'pay', gateway: SANDBOX_CARD, fields_of: '' });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('name="card_number"');
    expect(html).not.toContain('aria-invalid');
    expect(html).toContain(`name="fields_of" value="${SANDBOX_CARD}"`);
    expect(await tx.status()).toBe('N');
  });

  it('a failed post gives back the expiry and the name, never the card number or the CVC', async () => {
    const tx = await open();
    const fields = { card_number: TEST_CARDS.approved, card_expiry: '1234', card_cvc: '12', card_name: 'Ada Lovelace' };
    const res = await tx.post({ action: 'pay', gateway: SANDBOX_CARD, fields_of: SANDBOX_CARD, ...fields });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(/<input[^>]*name="card_expiry"[^>]*value="1234"/);
    expect(html).toMatch(/<input[^>]*name="card_name"[^>]*value="Ada Lovelace"/);
    expect(html).not.toContain('4242');
    expect(html).not.toMatch(/name="card_cvc"[^>]*value="12"/);
  });

  it('digits-only expiry and a grouped number are accepted as the browser sends them', async () => {
    const tx = await open();
    const fields = { card_number: '4242 4242 4242 4242', card_expiry: '1234', card_cvc: '123', card_name: 'Ada' };
    const res = await tx.post({ action: 'pay', gateway: SANDBOX_CARD, fields_of: SANDBOX_CARD, ...fields });
    expect(res.status).toBe(200);
    expect(await tx.status()).toBe('D');
  });

  describe('the sign-up page', () => {
    async function signup() {
      const plan = await api.post('/plan/', { name: 'Beans monthly', amount: 9.5, currency: 'EUR', interval: 'month' });
      const sub = await api.post('/subscription/', { plan: plan.body.id, cancel_url: 'https://shop.example/later' });
      expect(sub.status, sub.text).toBe(201);
      const url = sub.body.payment_url as string;
      const page = async () => (await fetch(url)).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(await page())![1]!;
      const post = (fields: Record<string, string>) =>
        fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...fields }) });
      const status = async () => (await api.get(`/subscription/${sub.body.id}/`)).body.status as string;
      return { id: sub.body.id as string, page, post, status };
    }

    it('is titled as a sign-up, and cancelling asks first: the first post changes nothing, the confirmed one leaves', async () => {
      const sub = await signup();
      expect(await sub.page()).toContain('<title>Subscribe to Form Shop</title>');
      const ask = await sub.post({ action: 'cancel' });
      expect(ask.status).toBe(200);
      const html = await ask.text();
      expect(html).toContain('id="cancel-confirm-title"');
      expect(html).toContain('<input type="hidden" name="confirm" value="1"/>');
      const left = await sub.post({ action: 'cancel', confirm: '1' });
      expect(left.status).toBe(303);
      expect(left.headers.get('location')).toMatch(/^https:\/\/shop\.example\/later\?subscription_id=/);
      expect(await sub.status()).toBe('waiting');
    });

    it('a failed post gives back the email, the expiry and the name, never the card number or the CVC', async () => {
      const sub = await signup();
      const fields = { customer_email: 'ada@example.com', card_number: '4242 4242 4242 4241', card_expiry: '12/34', card_cvc: '123', card_name: 'Ada Lovelace' };
      const res = await sub.post({ action: 'pay', gateway: SANDBOX_CARD, fields_of: SANDBOX_CARD, ...fields });
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toMatch(/<input[^>]*name="customer_email"[^>]*value="ada@example.com"/);
      expect(html).toMatch(/<input[^>]*name="card_expiry"[^>]*value="12\/34"/);
      expect(html).toMatch(/<input[^>]*name="card_name"[^>]*value="Ada Lovelace"/);
      expect(html).not.toContain('4241');
      expect(html).not.toMatch(/name="card_cvc"[^>]*value="123"/);
    });

    it('posts sent at once save one card: one signs up, the others store nothing and are told the card is being checked', async () => {
      const sub = await signup();
      const before = await api.count('/authorization/');
      const card = { customer_email: 'ada@example.com', card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'Ada Lovelace' };
      const answers = await Promise.all(Array.from({ length: 6 }, () => sub.post({ action: 'pay', gateway: SANDBOX_CARD, fields_of: SANDBOX_CARD, ...card })));
      expect(await api.count('/authorization/')).toBe(before + 1);
      expect(answers.filter((r) => r.status === 200 || r.status === 303).length).toBeGreaterThanOrEqual(1);
      expect(await sub.status()).toBe('active');
    });

    it('a stopped sign-up says its link can no longer be used, in its own words, and announces no charge', async () => {
      const sub = await signup();
      expect((await api.post(`/subscription/${sub.id}/stop/`, {})).status).toBe(200);
      const html = await sub.page();
      expect(html).toMatch(/>This sign-up link can no longer be used</);
      expect(html).not.toMatch(/>This payment link has expired</);
      expect(html).not.toContain('terms__when');
    });
  });
});
