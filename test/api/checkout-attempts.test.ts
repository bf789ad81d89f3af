import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { FAILED_ATTEMPTS_LIMIT } from '../../server/domain/payment-claim';
import { type Client, ENGINES, startTestService, type TestService, transactionBody } from './harness';
import { payToken, payWithCard, SANDBOX_CARD } from './pay';

// Card testing: the checkout takes a limited number of declined cards per transaction and
// hour, then answers 429 with Retry-After and moves no money, until the hour has passed.
// The window and the count per transaction are the pay use case's, tested in the use-case
// tier (usecase/payment-attempts.test.ts); here, how the page answers.

const HOUR = 60 * 60_000;

describe.each(ENGINES)('payment attempts on %s', (engine) => {
  let t: TestService;
  let api: Client;
  /** The service's clock is real time shifted by this much. */
  let offset = 0;
  const now = () => new Date(Date.now() + offset);

  beforeAll(async () => {
    t = await startTestService(engine, { now });
    api = await t.newEnvironment('Attempts Shop');
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    offset = 0;
  });

  async function create(over: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
    const res = await api.post('/transaction/', transactionBody(over));
    expect(res.status, res.text).toBe(201);
    return { id: res.body.id, token: res.body.token };
  }

  async function declineTimes(token: string, n: number) {
    for (let i = 0; i < n; i++) expect(await payToken(t.url, token, TEST_CARDS.declined)).not.toBe(429);
  }

  it(`refuses the attempt after ${FAILED_ATTEMPTS_LIMIT} declines with 429 and Retry-After, and charges nothing`, async () => {
    const tx = await create();
    await declineTimes(tx.token, FAILED_ATTEMPTS_LIMIT);

    const res = await payWithCard(t.url, tx.token, TEST_CARDS.approved);
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(HOUR / 1000 - 60);
    expect(retryAfter).toBeLessThanOrEqual(HOUR / 1000);
    const body = (await res.json()) as { outcome: string; view: { status: string; error: { message: string }; retryAt: string } };
    expect(body).toMatchObject({ outcome: 'view', view: { status: 'pending', error: { message: 'error.tooManyAttempts' } } });
    // The screen shows the wait as a time: the same moment as Retry-After, to the second.
    expect(Math.abs(Date.parse(body.view.retryAt) - (Date.now() + retryAfter * 1000))).toBeLessThan(60_000);

    expect((await api.get(`/transaction/${tx.id}/`)).body.status).toBe('N');
    expect((await api.get(`/sale/?transaction_id=${tx.id}`)).body.count).toBe(0);
  });

  it('a transaction that expired meanwhile answers as expired, not as waiting out its declines', async () => {
    const tx = await create({ expired_date: new Date(Date.now() + 30 * 60_000).toISOString() });
    await declineTimes(tx.token, FAILED_ATTEMPTS_LIMIT);
    offset = 31 * 60_000;
    const res = await payWithCard(t.url, tx.token);
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(((await res.json()) as { view: { status: string } }).view.status).toBe('expired');
  });

  it('answers the form post without JavaScript with the page and its message', async () => {
    const tx = await create();
    await declineTimes(tx.token, FAILED_ATTEMPTS_LIMIT);
    const page = await fetch(`${t.url}/pay/${tx.token}/`);
    const html = await page.text();
    const csrf = /"csrf":"([^"]+)"/.exec(html)![1]!;
    const res = await fetch(`${t.url}/pay/${tx.token}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.url },
      body: new URLSearchParams({ action: 'pay', gateway: SANDBOX_CARD, csrf, card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'A' }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await res.text()).toContain('Too many declined payment attempts');
  });
});
