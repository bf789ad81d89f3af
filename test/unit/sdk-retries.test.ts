import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, type ClientOptions, createClient, IN_FLIGHT } from '../../packages/sdk/src/index';
import { backoffMs, DEFAULT_RETRY_POLICY, retryAfterMs } from '../../packages/sdk/src/retry';

// The SDK's retries against a local HTTP server that answers from a script: 429, 503 and
// a 409 in progress with Retry-After, then a success. What the server saw is the proof:
// how many attempts, how far apart, and the same Idempotency-Key on each of a call's
// attempts (a new one for the next call).

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

type Scripted = { status: number; headers?: Record<string, string>; body?: unknown } | 'drop';

const problem = (status: number, type: string, title = 'x') => ({ type, title, status, detail: `a ${status}`, request_id: `req-${status}`, doc_url: `http://docs/#${status}` });
const transaction = { id: '01943a6e-5b1c-7c3a-9f2e-1a2b3c4d5e6f', currency: 'EUR', status: 'N' };

describe('SDK retries', () => {
  let server: Server;
  let url: string;
  let seen: Seen[];
  let script: Scripted[];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() });
        const next = script.shift() ?? { status: 200, body: transaction };
        if (next === 'drop') return void req.socket.destroy();
        const json = next.body === undefined ? '' : JSON.stringify(next.body);
        const type = next.status >= 400 ? 'application/problem+json' : 'application/json';
        res.writeHead(next.status, { 'content-type': type, 'x-request-id': 'from-header', ...next.headers }).end(json);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen = [];
    script = [];
  });

  const client = (over: Partial<ClientOptions> = {}) =>
    createClient({ baseUrl: url, publicKey: 'pk', secretKey: 'sk', initialRetryDelayMs: 20, maxRetryDelayMs: 80, ...over });
  const body = { currency: 'EUR' as const, products: [{ amount: 1, product: { name: 'Mug', price: 12 } }] };

  it('a POST gets an Idempotency-Key, the same on every retry after 429, 503 and a 409 in progress, each after its Retry-After', async () => {
    script = [
      { status: 429, headers: { 'retry-after': '1' }, body: problem(429, 'urn:problem:rate-limited') },
      { status: 503, headers: { 'retry-after': '1' }, body: problem(503, 'urn:problem:service-unavailable') },
      { status: 409, headers: { 'retry-after': '1' }, body: problem(409, IN_FLIGHT) },
    ];
    const made = await client({ maxRetries: 3 }).transactions.create(body);
    expect(made.id).toBe(transaction.id);
    expect(seen).toHaveLength(4);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    // Retry-After: 1 is waited in full each time (timers may fire a millisecond early).
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.at - seen[i - 1]!.at).toBeGreaterThanOrEqual(990);
    // The same request each time: method, path, body, authorization and version.
    for (const s of seen) {
      expect(s).toMatchObject({ method: 'POST', url: '/v1/transaction/', body: JSON.stringify(body) });
      expect(s.headers).toMatchObject({ authorization: 'AppKeys pk:sk', 'content-type': 'application/json', 'payment-service-version': expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    }
    // The next call is another request: another key.
    await client().transactions.create(body);
    expect(seen[4]!.headers['idempotency-key']).not.toBe(keys[0]);
  }, 15_000);

  it('the caller\'s own key is sent, and kept across retries', async () => {
    script = [{ status: 502, body: problem(502, 'urn:problem:gateway-error') }];
    await client().sales.refund('s-1', { amount: 5 }, { idempotencyKey: 'refund-order-7' });
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['refund-order-7', 'refund-order-7']);
    expect(seen[0]!.url).toBe('/v1/sale/s-1/refund/');
  });

  it('without Retry-After, waits grow exponentially, with jitter, within the bounds', async () => {
    script = [500, 500, 500].map((status) => ({ status, body: problem(status, 'urn:problem:internal') }));
    await client({ maxRetries: 3, initialRetryDelayMs: 100, maxRetryDelayMs: 400 }).transactions.get(transaction.id);
    expect(seen).toHaveLength(4);
    const gaps = seen.slice(1).map((s, i) => s.at - seen[i]!.at);
    // Steps 100, 200, 400 ms: a random half of each is waited.
    [100, 200, 400].forEach((step, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(step / 2 - 2);
      expect(gaps[i]).toBeLessThan(step + 150);
    });
    expect(backoffMs(0, DEFAULT_RETRY_POLICY, () => 0)).toBe(250);
    expect(backoffMs(0, DEFAULT_RETRY_POLICY, () => 1)).toBe(500);
    expect(backoffMs(10, DEFAULT_RETRY_POLICY, () => 1)).toBe(DEFAULT_RETRY_POLICY.maxDelayMs);
  });

  it('gives up after maxRetries and throws the last answer as an ApiError with its problem', async () => {
    script = [429, 429, 429].map((status) => ({ status, headers: { 'retry-after': '0' }, body: problem(status, 'urn:problem:rate-limited', 'Too many requests') }));
    const err = await client({ maxRetries: 2 }).transactions.list().firstPage().catch((e: unknown) => e);
    expect(seen).toHaveLength(3);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 429,
      type: 'urn:problem:rate-limited',
      title: 'Too many requests',
      detail: 'a 429',
      errors: [],
      request_id: 'req-429',
      doc_url: 'http://docs/#429',
      retry_after: 0,
    });
  });

  it('a conflict that is not the key in progress is not retried; nor is a 4xx', async () => {
    script = [{ status: 409, body: problem(409, 'urn:problem:conflict') }];
    await expect(client().sales.capture('s-1')).rejects.toMatchObject({ status: 409, type: 'urn:problem:conflict' });
    expect(seen).toHaveLength(1);
    seen = [];
    script = [{ status: 400, body: { ...problem(400, 'urn:problem:invalid-request'), errors: [{ path: 'currency', message: 'Required' }] } }];
    const err = (await client().transactions.create(body).catch((e: unknown) => e)) as ApiError;
    expect(seen).toHaveLength(1);
    expect(err.errors).toEqual([{ path: 'currency', message: 'Required' }]);
    expect(err.message).toContain('currency: Required');
  });

  it('a PATCH is not repeated after a 5xx (it carries no key), but is after a 429', async () => {
    script = [{ status: 500, body: problem(500, 'urn:problem:internal') }];
    await expect(client().products.update('p-1', { name: 'Cup' })).rejects.toMatchObject({ status: 500 });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
    seen = [];
    script = [{ status: 429, headers: { 'retry-after': '0' }, body: problem(429, 'urn:problem:rate-limited') }];
    await client().products.update('p-1', { name: 'Cup' });
    expect(seen.map((s) => s.method)).toEqual(['PATCH', 'PATCH']);
  });

  it('a dropped connection is retried for a keyed POST and a GET, with the same key', async () => {
    script = ['drop', 'drop'];
    await client().transactions.create(body);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    seen = [];
    script = ['drop'];
    await client().transactions.get(transaction.id);
    expect(seen).toHaveLength(2);
  });

  it('a Retry-After longer than maxRetryAfterMs is not waited for; maxRetries 0 sends once', async () => {
    script = [{ status: 503, headers: { 'retry-after': '120' }, body: problem(503, 'urn:problem:service-unavailable') }];
    await expect(client().transactions.get('t')).rejects.toMatchObject({ status: 503, retry_after: 120 });
    expect(seen).toHaveLength(1);
    seen = [];
    script = [{ status: 503, headers: { 'retry-after': '0' }, body: problem(503, 'urn:problem:service-unavailable') }];
    await expect(client({ maxRetries: 0 }).transactions.get('t')).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
  });

  it('the caller\'s abort stops the wait between retries', async () => {
    script = [{ status: 503, headers: { 'retry-after': '30' }, body: problem(503, 'urn:problem:service-unavailable') }];
    const stop = new AbortController();
    const call = client().transactions.get('t', { signal: stop.signal });
    await expect.poll(() => seen.length).toBe(1);
    stop.abort();
    await expect(call).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it('an attempt that takes longer than timeoutMs is abandoned and retried', async () => {
    let first = true;
    const slow = async (request: Request) => {
      if (first) {
        first = false;
        // Never answers: only the timeout ends it.
        return new Promise<Response>((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason)));
      }
      return Response.json(transaction);
    };
    const made = await client({ fetch: slow, timeoutMs: 50 }).transactions.get(transaction.id);
    expect(made.id).toBe(transaction.id);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });

  it('a non-problem error body (a proxy\'s page) is still an ApiError, with the X-Request-Id header', async () => {
    const html = async () => new Response('<h1>Bad gateway</h1>', { status: 502, statusText: 'Bad Gateway', headers: { 'x-request-id': 'proxy-1' } });
    const err = (await client({ fetch: html, maxRetries: 0 }).transactions.get('t').catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 502, type: 'about:blank', title: 'Bad Gateway', detail: '<h1>Bad gateway</h1>', request_id: 'proxy-1', problem: undefined });
  });
});
