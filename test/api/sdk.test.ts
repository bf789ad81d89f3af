import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { ApiError, createClient, type PaymentClient, type Transaction, verifyReturnUrl, verifyWebhook } from '../../packages/sdk/src/index';
import { type Client, ENGINES, type TestService } from './harness';
import { startIsolatedService } from './database';
import { payWithCard } from './pay';
import type { Receiver } from './receiver';
import { startWebhookService } from './webhook-service';

// The SDK (packages/sdk) against the real service over a real port, on both engines: it
// creates transactions and pages through them with `for await` across several pages, a
// customer pays on the hosted page, the SDK refunds the sale (once under a repeated key),
// a webhook endpoint made through it receives the refund and verifyWebhook accepts it,
// the signed return verifies with the secret it reads; errors are ApiErrors with the
// problem; a rate-limited environment's 429s are waited out by Retry-After.

interface Sent {
  method: string;
  url: URL;
  key: string | null;
}

/** A client of `api`'s environment whose requests are recorded. */
function sdkFor(api: Client, sent: Sent[] = []): PaymentClient {
  return createClient({
    baseUrl: api.url,
    publicKey: api.keys.public_key,
    secretKey: api.keys.secret_key,
    fetch: (request) => {
      sent.push({ method: request.method, url: new URL(request.url), key: request.headers.get('idempotency-key') });
      return fetch(request);
    },
  });
}

const line = (name: string, price: number) => ({ amount: 1, product: { name, price } });

describe.each(ENGINES)('SDK on %s', (engine) => {
  let t: TestService;
  let hook: Receiver;
  let stop: () => Promise<void>;
  let api: Client;
  let sdk: PaymentClient;
  const sent: Sent[] = [];

  beforeAll(async () => {
    ({ t, hook, close: stop } = await startWebhookService(engine));
    api = await t.newEnvironment('SDK shop');
    sdk = sdkFor(api, sent);
  });
  afterAll(() => stop?.());

  it('creates transactions and iterates them with for await across pages, following next', async () => {
    const made: Transaction[] = [];
    for (let i = 1; i <= 5; i++) made.push(await sdk.transactions.create({ currency: 'EUR', order_id: `sdk-${i}`, products: [line(`Mug ${i}`, 10 + i)] }));
    expect(made.map((m) => m.status)).toEqual(['N', 'N', 'N', 'N', 'N']);
    // Each POST had its own key.
    const keys = sent.filter((s) => s.method === 'POST').map((s) => s.key);
    expect(new Set(keys).size).toBe(5);

    sent.length = 0;
    const seen: string[] = [];
    for await (const tx of sdk.transactions.list({ status: 'N', page_size: 2 })) seen.push(tx.order_id ?? '');
    // Newest first, every one once, fetched as three pages that kept the filter.
    expect(seen).toEqual(['sdk-5', 'sdk-4', 'sdk-3', 'sdk-2', 'sdk-1']);
    expect(sent.map((s) => [s.url.pathname, s.url.searchParams.get('page'), s.url.searchParams.get('status')])).toEqual([
      ['/v1/transaction/', null, 'N'],
      ['/v1/transaction/', '2', 'N'],
      ['/v1/transaction/', '3', 'N'],
    ]);

    const first = await sdk.transactions.list({ page_size: 2 }).firstPage();
    expect(first).toMatchObject({ count: 5, items_per_page: 2, previous: null });
    const pages = [];
    for await (const page of sdk.transactions.list({ page_size: 2 }).pages()) pages.push(page.results.length);
    expect(pages).toEqual([2, 2, 1]);
    expect(await sdk.transactions.list({ order_id: 'sdk-3' }).toArray()).toMatchObject([{ id: made[2]!.id }]);
    expect(await sdk.transactions.list({ page_size: 2 }).toArray(3)).toHaveLength(3);
  });

  it('a paid transaction: the signed return verifies, the SDK refunds the sale once per key, the endpoint gets a verified sale.refunded', async () => {
    const { cursor } = await sdk.events.poll({ wait: 0 });
    const endpoint = await sdk.webhookEndpoints.create({ url: hook.url, enabled_events: ['sale.refunded'], description: 'SDK test' });
    expect(endpoint.secret).toMatch(/^whsec_/);

    const tx = await sdk.transactions.create({
      currency: 'EUR',
      order_id: 'sdk-paid',
      return_url: 'https://shop.example/thanks?order=sdk-paid',
      products: [line('Kettle', 40)],
    });
    const paid = (await (await payWithCard(t.url, tx.token)).json()) as { kind: string; location: string };
    expect(paid.kind).toBe('completed');
    const { secret: returnSecret } = await sdk.returnSecret.get();
    expect(verifyReturnUrl(paid.location, returnSecret)).toMatchObject({ valid: true, transaction_id: tx.id, status: 'D' });
    expect(verifyReturnUrl(paid.location.replace('status=D', 'status=C'), returnSecret)).toEqual({ valid: false, reason: 'forged' });
    expect((await sdk.transactions.get(tx.id)).status).toBe('D');

    const [sale] = await sdk.sales.list({ transaction_id: tx.id }).toArray();
    expect(sale).toMatchObject({ transaction_id: tx.id, captured: 40, refundable: 40 });
    const refund = () => sdk.sales.refund(sale!.id, { amount: 15 }, { idempotencyKey: `refund-${tx.id}` });
    const once = await refund();
    const again = await refund();
    expect(once).toMatchObject({ refunded: 15, refundable: 25 });
    expect(again).toEqual(once);
    expect((await sdk.sales.get(sale!.id)).refunded).toBe(15);

    // A refund beyond what is left is a conflict, thrown with its problem, not retried.
    sent.length = 0;
    const over = (await sdk.sales.refund(sale!.id, { amount: 1000 }).catch((e: unknown) => e)) as ApiError;
    expect(over).toBeInstanceOf(ApiError);
    expect(over).toMatchObject({ status: 409, type: 'urn:problem:conflict', request_id: expect.any(String), doc_url: expect.stringContaining('/docs/errors#conflict') });
    expect(sent).toHaveLength(1);

    await t.service.jobs.runOnce(JOB_NAMES.delivery);
    const [delivery] = await hook.waitFor(1);
    const event = verifyWebhook(delivery!.body, delivery!.headers as Record<string, string>, endpoint.secret);
    expect(event.type).toBe('sale.refunded');
    if (event.type !== 'sale.refunded') throw new Error('narrowed above');
    expect(event.data).toMatchObject({ id: sale!.id, refunded: 15 });
    expect(() => verifyWebhook(delivery!.body, delivery!.headers as Record<string, string>, api.keys.webhook_secret)).toThrow(/no signature matches/);

    // The events API shows it; the long poll from before the payment brings it too.
    const polled = await sdk.events.poll({ after: cursor, wait: 0 });
    expect(polled.events.map((e) => e.type)).toEqual(expect.arrayContaining(['transaction.paid', 'sale.created', 'sale.refunded']));
    const listed = await sdk.events.list({ type: 'sale.refunded' }).toArray();
    expect(listed.map((e) => e.id)).toContain(event.id);
    expect((await sdk.webhookEndpoints.list().toArray()).map((e) => e.id)).toEqual([endpoint.id]);
    expect(await sdk.webhookEndpoints.delete(endpoint.id)).toBeUndefined();
  });

  it('errors are ApiErrors carrying the problem body: a 404, a 400 naming the field', async () => {
    const missing = (await sdk.transactions.get('01943a6e-0000-7000-8000-000000000000').catch((e: unknown) => e)) as ApiError;
    expect(missing).toMatchObject({ status: 404, type: 'urn:problem:not-found', title: 'Not found' });
    expect(missing.request_id).toBe(missing.response.headers.get('x-request-id'));
    expect(missing.doc_url).toMatch(/\/docs\/errors#not-found$/);
    // A body the types allow but the API refuses: an unknown currency.
    const bad = (await sdk.transactions.create({ currency: 'EUR', products: [line('Mug', -1)] }).catch((e: unknown) => e)) as ApiError;
    expect(bad).toMatchObject({ status: 400, type: 'urn:problem:invalid-request' });
    expect(bad.errors.map((e) => e.path)).toContain('products.0.product.price');
  });

  it('other resources: the catalogue, clients with their IBANs, wallets, gateways, the balance', async () => {
    const product = await sdk.products.create({ name: 'Mug', price: 12, currency: 'EUR', product_id: 'sdk-mug' });
    expect((await sdk.products.update(product.id, { name: 'Big mug' })).name).toBe('Big mug');
    expect((await sdk.products.list({ product_id: 'sdk-mug' }).toArray()).map((p) => p.id)).toEqual([product.id]);
    const client = await sdk.clients.create({ client_id: 'sdk-client', name: 'Ana Shop', id_country: 'ES', id_number: 'B12345678' });
    expect((await sdk.clients.get(client.id)).client_id).toBe('sdk-client');
    expect(await sdk.clients.ibans.list(client.id).toArray()).toEqual([]);
    const wallet = await sdk.wallets.create({ wallet_id: 'sdk-wallet', name: 'Purse', client_id: client.id, currency: 'EUR' });
    expect(await sdk.wallets.entries.list(wallet.id).toArray()).toEqual([]);
    expect((await sdk.gateways.list().toArray()).length).toBeGreaterThan(0);
    expect(await sdk.balance.get()).toBeDefined();
  });
});

describe.each(ENGINES)('SDK under a rate limit on %s', (engine) => {
  let t: TestService;
  let api: Client;

  beforeAll(async () => {
    t = await startIsolatedService(engine, { env: { API_RATE_LIMIT: '2' } });
    api = await t.newEnvironment('Limited SDK shop');
  });
  afterAll(() => t?.close());

  it('waits out the 429s by their Retry-After: every call succeeds, each once', async () => {
    const sent: Sent[] = [];
    const sdk = sdkFor(api, sent);
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await sdk.transactions.create({ currency: 'EUR', order_id: `limited-${i}`, products: [line('Tea', 3)] }));
    expect(new Set(made.map((m) => m.id)).size).toBe(4);
    expect((await sdk.transactions.list().firstPage()).count).toBe(4);
    // Some attempts were refused and sent again, with their call's key.
    const posts = sent.filter((s) => s.method === 'POST');
    expect(posts.length).toBeGreaterThan(4);
    expect(new Set(posts.map((s) => s.key)).size).toBe(4);
  }, 30_000);
});
