import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { IBANS } from '../api/documents';
import { ENGINES } from '../api/harness';
import { SANDBOX_CARD } from '../api/pay';
import { processScope, type ServiceProcess } from '../api/process';
import { createShopKeys } from '../shop-keys';
import { PROCESSOR_REQUEST } from '../../server/api/examples';
import { type StripeDouble, startStripeDouble } from '../stripe/server';

// No request body in any log (issue 25, item 5): every operation of the OpenAPI document,
// and every checkout route, posted with the test cards, well-formed and malformed (broken
// JSON, JSON null, the wrong content type, over the limit), to a real service process at
// debug level; then its whole stdout and stderr are searched for the cards, CVCs, IBANs,
// the secret key and the Authorization header.

const CVC = '987';
const CARD: { number: string; expiry: string; cvc: string; name: string } = { number: TEST_CARDS.approved, expiry: '12/34', cvc: CVC, name: 'Card Holder' };
const DECLINED_CARD = { ...CARD, number: TEST_CARDS.declined };
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const IBAN_SPACED = IBANS.ES.replace(/(.{4})/g, '$1 ').trim();

/** Card fields as the checkout's form names them. */
const cardFields = (card: typeof CARD) => ({ card_number: card.number, card_expiry: card.expiry, card_cvc: card.cvc, card_name: card.name });

/** What a careless client might send along: the card and an IBAN, at the top and nested. */
const withSecrets = (body: unknown) => ({
  ...(body && typeof body === 'object' ? body : {}),
  card: DECLINED_CARD,
  card_number: TEST_CARDS.approved,
  cvc: CVC,
  iban: IBAN_SPACED,
  nested: { deeper: { card_number: TEST_CARDS.declined.replace(/ /g, ''), card_cvc: CVC } },
});

/** The CSRF token a checkout page hands its form. */
const csrfOf = (html: string) =>
  (JSON.parse(/<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!) as { view: { csrf: string } }).view.csrf;

/** Malformed variants of a body that carries the secrets. */
function malformed(body: unknown): { headers: Record<string, string>; body: string }[] {
  const json = JSON.stringify(withSecrets(body));
  return [
    { headers: { 'content-type': JSON_TYPE }, body: json.slice(0, -3) },
    { headers: { 'content-type': JSON_TYPE }, body: 'null' },
    { headers: { 'content-type': 'text/plain' }, body: json },
    { headers: { 'content-type': `${JSON_TYPE}; charset=utf-16` }, body: json },
    { headers: { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' }, body: json },
    { headers: { 'content-type': JSON_TYPE }, body: JSON.stringify({ ...withSecrets(body), pad: `${TEST_CARDS.approved} cvc ${CVC} `.repeat(8000) }) },
    { headers: { 'content-type': FORM }, body: new URLSearchParams({ ...cardFields(CARD), iban: IBANS.ES, pad: TEST_CARDS.approved.repeat(2000) }).toString() },
  ];
}

describe.each(ENGINES)('no secrets in the logs (%s)', (engine) => {
  const scope = processScope();
  let service: ServiceProcess;
  let authorization: string;
  let secretKey: string;
  // Connecting a processor asks Stripe once: the double stands in for it (STRIPE_API_URL).
  let stripe: StripeDouble;
  const ids: Record<string, string> = {};

  const send = async (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}, auth: string | null = authorization) => {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: { ...(auth ? { authorization: auth } : {}), ...init.headers },
      body: method === 'GET' || method === 'DELETE' ? undefined : init.body,
      redirect: 'manual',
    });
    const text = await res.text();
    return { status: res.status, text, id: res.headers.get('x-request-id') };
  };
  const sendJson = (method: string, path: string, body: unknown) =>
    send(method, path, { headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(body) });

  beforeAll(async () => {
    stripe = await startStripeDouble();
    const env = await scope.environment(engine, { LOG_LEVEL: 'debug', DEMO: 'true', STRIPE_API_URL: stripe.url });
    const keys = await createShopKeys('Log secrets shop', env);
    secretKey = keys.secret_key;
    authorization = `AppKeys ${keys.public_key}:${keys.secret_key}`;
    service = await scope.started(env);
    // Objects for the paths' ids, so well-formed requests reach the use cases.
    const created = async (path: string, body: unknown) => {
      const res = await sendJson('POST', path, body);
      expect(res.status, `${path}: ${res.text}`).toBe(201);
      return JSON.parse(res.text) as { id: string; token?: string; payment_url?: string };
    };
    ids.authorization = (await created('/v1/authorization/', { gateway: SANDBOX_CARD, card: CARD })).id;
    const tx = await created('/v1/transaction/', { currency: 'EUR', products: [{ amount: 1, product: { name: 'Tea', price: 3 } }] });
    ids.transaction = tx.id;
    ids.token = tx.token!;
    ids.sale = (await created(`/v1/authorization/${ids.authorization}/charge/`, { amount: 2, currency: 'EUR' })).id;
    ids.client = (await created('/v1/client/', { name: 'Log Client', id_country: 'ES', id_number: 'X1' })).id;
    ids.product = (await created('/v1/product/', { name: 'Mug', price: 1 })).id;
    const plan = await created('/v1/plan/', { name: 'Pro', amount: 9.99, currency: 'EUR', interval: 'month' });
    ids.plan = plan.id;
    const sub = await created('/v1/subscription/', { plan: plan.id });
    ids.subscription = sub.id;
    ids.signup = new URL(sub.payment_url!).pathname.split('/')[2]!;
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await stripe?.close();
  });

  /** A path of the document with its ids filled in: ours where we have one, else a random one. */
  function fill(path: string): string {
    const first = path.split('/')[1]!;
    return path
      .replace('{clientId}', ids.client!)
      .replace('{id}', ids[first] ?? randomUUID())
      .replace(/\{\w+\}/g, () => randomUUID());
  }

  it('sends every operation and checkout route the cards, and logs none of them', { timeout: 180_000 }, async () => {
    const document = JSON.parse((await send('GET', '/v1/openapi.json', {}, null)).text) as {
      paths: Record<string, Record<string, { operationId?: string; requestBody?: { content: Record<string, { example?: unknown }> } }>>;
    };
    let operations = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op.operationId) continue;
        operations++;
        const url = `/v1${fill(path)}`;
        const verb = method.toUpperCase();
        const example = op.requestBody?.content[JSON_TYPE]?.example ?? {};
        // Well-formed, the documented example; with the secrets alongside; malformed.
        const results = [await sendJson(verb, url, example), await sendJson(verb, url, withSecrets(example))];
        for (const bad of malformed(example)) results.push(await send(verb, url, bad));
        // Unauthenticated, and with the secret key under the wrong public key.
        results.push(await sendJson(verb, url, withSecrets(example)));
        results.push(await send(verb, url, { headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(withSecrets(example)) }, `AppKeys pk_wrong:${secretKey}`));
        for (const r of results) expect(r.status, `${verb} ${url}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
      }
    }
    expect(operations).toBeGreaterThan(60);

    // The checkout: its page, the pay form (JSON and urlencoded), the sign-up, the provider's return, the demo.
    const page = await send('GET', `/pay/${ids.token}/`, {}, null);
    const csrf = csrfOf(page.text);
    const signupPage = await send('GET', `/pay/${ids.signup}/`, {}, null);
    const signupCsrf = csrfOf(signupPage.text);
    const checkout: [string, string, { headers?: Record<string, string>; body?: string }][] = [];
    for (const [token, token_csrf] of [
      [ids.token!, csrf],
      [ids.signup!, signupCsrf],
    ] as const) {
      const pay = (card: typeof CARD) => ({ action: 'pay', gateway: SANDBOX_CARD, fields: cardFields(card) });
      checkout.push(
        ['POST', `/pay/${token}/`, { headers: { 'content-type': JSON_TYPE, 'x-csrf-token': token_csrf }, body: JSON.stringify(pay(DECLINED_CARD)) }],
        ['POST', `/pay/${token}/`, { headers: { 'content-type': FORM }, body: new URLSearchParams({ action: 'pay', gateway: SANDBOX_CARD, csrf: token_csrf, ...cardFields(DECLINED_CARD) }).toString() }],
        ['POST', `/pay/${token}/`, { headers: { 'content-type': JSON_TYPE, 'x-csrf-token': 'forged' }, body: JSON.stringify({ ...pay(CARD), fields: { ...cardFields(CARD), card_name: 'A\u0000' } }) }],
        ...malformed(pay(CARD)).map((bad) => ['POST', `/pay/${token}/`, { headers: { ...bad.headers, 'x-csrf-token': token_csrf }, body: bad.body }] as [string, string, typeof bad]),
        ['POST', `/pay/${token}/return/gc_00000000-0000-7000-8000-000000000000/`, { headers: { 'content-type': FORM }, body: new URLSearchParams({ decision: 'approve', csrf: token_csrf, ...cardFields(CARD) }).toString() }],
        ...malformed(pay(CARD)).map((bad) => ['POST', `/pay/${token}/return/gc_00000000-0000-7000-8000-000000000000/`, bad] as [string, string, typeof bad]),
      );
    }
    checkout.push(
      ['GET', '/demo/', {}],
      ['POST', '/demo/', { headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(withSecrets({})) }],
      ['GET', `/pay/${ids.token}/provider/gc_00000000-0000-7000-8000-000000000000/`, {}],
      ['POST', '/pay/%ff/', { headers: { 'content-type': FORM }, body: new URLSearchParams(cardFields(CARD)).toString() }],
    );
    for (const [method, path, init] of checkout) {
      const r = await send(method, path, init, null);
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
    }
    // Last, the approving card through a fresh page: a payment that succeeds logs a line too.
    const fresh = JSON.parse((await sendJson('POST', '/v1/transaction/', { currency: 'EUR', products: [{ amount: 1, product: { name: 'Tea', price: 3 } }] })).text) as { token: string };
    const freshCsrf = csrfOf((await send('GET', `/pay/${fresh.token}/`, {}, null)).text);
    const paid = await send('POST', `/pay/${fresh.token}/`, {
      headers: { 'content-type': JSON_TYPE, 'x-csrf-token': freshCsrf },
      body: JSON.stringify({ action: 'pay', gateway: SANDBOX_CARD, fields: cardFields(CARD) }),
    }, null);
    expect(paid.status).toBe(200);

    // Every line is out once the last request's access line is.
    await expect.poll(() => service.output.some((l) => l.includes(paid.id!) && l.includes('"status"')), { timeout: 10_000 }).toBe(true);
    expect(service.output.some((l) => l.includes('payment approved'))).toBe(true);
    // All of stdout but the banner written before `listening` for whoever starts the
    // service by hand (DEMO=true: the demo's keys and its test card), and all of stderr.
    const listening = service.output.findIndex((l) => l.includes('"listening"'));
    const lines = service.output.filter((l, i) => i >= listening || l.startsWith('{'));
    const log = `${lines.join('\n')}\n${service.stderr()}`;
    const secrets = [
      TEST_CARDS.approved,
      TEST_CARDS.declined,
      TEST_CARDS.approved.replace(/ /g, ''),
      TEST_CARDS.declined.replace(/ /g, ''),
      IBANS.ES,
      IBAN_SPACED,
      secretKey,
      authorization,
      PROCESSOR_REQUEST.secret_key,
      PROCESSOR_REQUEST.webhook_secret,
      PROCESSOR_REQUEST.publishable_key,
      csrf,
      signupCsrf,
      freshCsrf,
      fresh.token,
      ids.token!,
      ids.signup!,
    ];
    for (const secret of secrets) expect(log, secret).not.toContain(secret);
    expect(log).not.toMatch(/cvc[^0-9\n]{0,12}\d{3,4}/i);
  });
});
