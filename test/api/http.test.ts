import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { clientBody } from './documents';
import { ENGINES, problemPaths, rawRequest, type Reply, transactionBody, useTestService } from './harness';

// HTTP-level rules that hold for every route: trailing slashes, unknown routes, headers,
// problem bodies, request ids and the body size limit.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const STACK = /\n\s*at\s|\bat [\w.<>]+ \(|node_modules|\.[cm]?[jt]s:\d+|Error:|stack/;

function expectSecurityHeaders(res: Reply, what: string) {
  const h = res.headers;
  expect(h.get('x-content-type-options'), what).toBe('nosniff');
  const csp = h.get('content-security-policy') ?? '';
  expect(csp, what).toMatch(/(^|;)\s*default-src 'none'/);
  expect(csp, what).toMatch(/(^|;)\s*frame-ancestors 'none'/);
  expect(h.get('x-powered-by'), what).toBeNull();
  expect(h.get('referrer-policy'), what).toBe('no-referrer');
  expect(h.get('x-request-id') ?? '', what).toMatch(UUID);
}

describe.each(ENGINES)('HTTP rules on %s', (engine) => {
  const svc = useTestService(engine);

  describe('trailing slash', () => {
    it('GET without the slash answers 308 to the slashed path, query kept', async () => {
      const res = await svc.api.get('/transaction?page=2&page_size=5&order_id=a%20b');
      expect(res.status).toBe(308);
      expect(res.headers.get('location')).toBe('/v1/transaction/?page=2&page_size=5&order_id=a%20b');
      const bare = await svc.api.get('/transaction');
      expect(bare.status).toBe(308);
      expect(bare.headers.get('location')).toBe('/v1/transaction/');
      // Every body the API answers is JSON: this one has none, whatever the client accepts.
      for (const accept of ['text/html', '*/*']) {
        const res = await fetch(`${svc.t.url}/v1/transaction`, { headers: { accept }, redirect: 'manual' });
        expect(res.status).toBe(308);
        expect(await res.text()).toBe('');
        expect(res.headers.get('content-type')).toBeNull();
      }
    });

    it('item paths are redirected too, before authentication', async () => {
      const id = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';
      for (const path of [`/product/${id}`, `/coupon/${id}`, '/currency', `/gateway/${id}`]) {
        const res = await svc.api.request('GET', path, { auth: null });
        expect(res.status, path).toBe(308);
        expect(res.headers.get('location')).toBe(`/v1${path}/`);
      }
    });

    it('POST without the slash is 308 (method and body kept), and following it creates once', async () => {
      const before = await svc.api.count('/transaction/');
      const res = await svc.api.post('/transaction', transactionBody());
      expect(res.status).toBe(308);
      expect(res.headers.get('location')).toBe('/v1/transaction/');
      expect(await svc.api.count('/transaction/')).toBe(before);

      const followed = await fetch(`${svc.t.url}/v1/transaction`, {
        method: 'POST',
        headers: { authorization: svc.api.auth, 'content-type': 'application/json' },
        body: JSON.stringify(transactionBody({ order_id: 'via-308' })),
        redirect: 'follow',
      });
      expect(followed.status).toBe(201);
      expect(((await followed.json()) as { order_id: string }).order_id).toBe('via-308');
      expect(await svc.api.count('/transaction/')).toBe(before + 1);
    });

    it('PATCH and DELETE without the slash are 308 too', async () => {
      const p = await svc.api.post('/tax/', { name: 'VAT', rate: 21 });
      for (const method of ['PATCH', 'DELETE']) {
        const res = await svc.api.request(method, `/tax/${p.body.id}`, { body: { rate: 10 } });
        expect(res.status).toBe(308);
        expect(res.headers.get('location')).toBe(`/v1/tax/${p.body.id}/`);
      }
      expect((await svc.api.get(`/tax/${p.body.id}/`)).body.rate).toBe(21);
    });
  });

  describe('unknown routes and methods', () => {
    it.each([
      ['GET', '/nope/'],
      ['GET', '/transactions/'],
      ['POST', '/nope/'],
      ['GET', '/transaction/0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e/extra/'],
    ])('%s %s (no such path) is a 404 problem', async (method, path) => {
      const res = await svc.api.request(method, path, { body: method === 'GET' ? undefined : {} });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('urn:problem:not-found');
      expect(res.text).not.toMatch(STACK);
      expectSecurityHeaders(res, `${method} ${path}`);
    });

    it.each([
      ['PUT', '/transaction/', 'GET, HEAD, POST, OPTIONS'],
      ['DELETE', '/transaction/', 'GET, HEAD, POST, OPTIONS'],
      ['PATCH', '/currency/', 'GET, HEAD, OPTIONS'],
      ['POST', '/gateway/', 'GET, HEAD, OPTIONS'],
      ['PUT', '/product/0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e/', 'GET, HEAD, PATCH, DELETE, OPTIONS'],
      ['GET', '/sale/0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e/refund/', 'POST, OPTIONS'],
    ])('%s %s (a path without that method) is a 405 problem with Allow', async (method, path, allow) => {
      const res = await svc.api.request(method, path, { body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect(res.status).toBe(405);
      expect(res.body).toMatchObject({ type: 'urn:problem:method-not-allowed', status: 405 });
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.text).not.toMatch(STACK);
      expectSecurityHeaders(res, `${method} ${path}`);
    });

    it('a body sent with DELETE (or GET) is not read: no 400 or 413 where the document declares none', async () => {
      const headers = { authorization: svc.api.auth, 'content-type': 'application/json' };
      const missing = await rawRequest(`${svc.api.url}/v1/product/0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e/`, { method: 'DELETE', headers, body: '{bad' });
      expect(missing.status).toBe(404);
      const p = await svc.api.post('/product/', { name: 'Mug', price: 1, currency: 'EUR' });
      const large = await rawRequest(`${svc.api.url}/v1/product/${p.body.id}/`, { method: 'DELETE', headers, body: 'x'.repeat(200_000) });
      expect(large.status).toBe(204);
    });

    it('OPTIONS on a path answers 204 with Allow, with or without a key; a wrong method still needs credentials', async () => {
      const res = await svc.api.request('OPTIONS', '/transaction/');
      expect(res.status).toBe(204);
      expect(res.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
      for (const [path, allow] of [
        ['/transaction/', 'GET, HEAD, POST, OPTIONS'],
        ['/sale/0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e/refund/', 'POST, OPTIONS'],
      ]) {
        const keyless = await svc.api.request('OPTIONS', path!, { auth: null });
        expect(keyless.status, path).toBe(204);
        expect(keyless.headers.get('allow'), path).toBe(allow);
      }
      expect((await svc.api.request('OPTIONS', '/nope/', { auth: null })).status).toBe(401);
      const anonymous = await fetch(`${svc.api.url}/v1/transaction/`, { method: 'PUT' });
      expect(anonymous.status).toBe(401);
    });

    it('an unknown query parameter is a 400 naming it, as an unknown body field is', async () => {
      const made = await svc.api.post('/transaction/', transactionBody());
      const typo = await svc.api.get('/transaction/?orderid=nope&page=1');
      expect(typo.status).toBe(400);
      expect(typo.body.errors).toEqual([{ path: 'query.orderid', message: 'is not a known field' }]);
      const onOne = await svc.api.get(`/transaction/${made.body.id}/?expand=sale`);
      expect(onOne.status).toBe(400);
      expect(onOne.body.errors).toEqual([{ path: 'query.expand', message: 'is not a known field' }]);
      const onPost = await svc.api.request('POST', '/transaction/?dry_run=1', { body: transactionBody() });
      expect(onPost.status).toBe(400);
      expect(onPost.body.errors).toEqual([{ path: 'query.dry_run', message: 'is not a known field' }]);
      // Known parameters still filter.
      expect((await svc.api.get('/transaction/?page=1&page_size=5')).status).toBe(200);
    });
  });

  // UUIDs are the same in either case (RFC 9562); stored in lower case, an id in upper case
  // matched nothing, and an event cursor in upper case sorted before every event (100 old
  // events again, and a cursor moved back).
  it('an id in upper case names the same object: in a path, a body, a filter and the event cursor', async () => {
    const { api } = svc;
    const product = (await api.post('/product/', { name: 'Tea', price: 3, currency: 'EUR' })).body;
    const upper = product.id.toUpperCase();
    expect((await api.get(`/product/${upper}/`)).body.id).toBe(product.id);
    const made = await api.post('/transaction/', { currency: 'EUR', products: [{ amount: 2, product_id: upper }] });
    expect(made.status, made.text).toBe(201);
    expect(made.body.products[0]).toMatchObject({ product_id: product.id });
    const client = (await api.post('/client/', clientBody())).body;
    const events = (await api.get(`/event/?object_id=${client.id.toUpperCase()}`)).body;
    expect(events.results.map((e: { type: string }) => e.type)).toEqual(['client.created']);
    const cursor = (await api.get('/event/poll/?wait=0')).body.cursor as string;
    await api.post('/client/', clientBody());
    const lower = (await api.get(`/event/poll/?wait=0&after=${cursor}`)).body;
    expect(lower.events).toHaveLength(1);
    expect((await api.get(`/event/poll/?wait=0&after=${cursor.toUpperCase()}`)).body).toEqual(lower);
  });

  describe('headers', () => {
    it('every kind of API response carries the security headers and a request id', async () => {
      const p = await svc.api.post('/product/', { name: 'Mug', price: 1, currency: 'EUR' });
      const responses: [string, Reply][] = [
        ['200 list', await svc.api.get('/transaction/')],
        ['201 create', await svc.api.post('/transaction/', transactionBody())],
        ['204 delete', await svc.api.delete(`/product/${p.body.id}/`)],
        ['308 redirect', await svc.api.get('/transaction')],
        ['400 invalid', await svc.api.post('/transaction/', {})],
        ['401 no key', await svc.api.request('GET', '/transaction/', { auth: null })],
        ['404 unknown', await svc.api.get('/nope/')],
        ['413 too large', await svc.api.post('/transaction/', transactionBody({ note: 'x'.repeat(200_000) }))],
        ['415 media type', await svc.api.request('POST', '/transaction/', { raw: '{}', headers: { 'content-type': 'text/plain' } })],
        ['openapi', await rawRequest(`${svc.t.url}/v1/openapi.json`)],
      ];
      for (const [what, res] of responses) expectSecurityHeaders(res, what);
      // Every problem names its request (the id the answer's header carries) and its page on this service.
      for (const [what, res] of responses.filter(([, r]) => r.status >= 400 && r.body)) {
        expect(res.body.request_id, what).toBe(res.headers.get('x-request-id'));
        expect(res.body.doc_url, what).toBe(`${svc.t.url}/docs/errors#${res.body.type.slice('urn:problem:'.length)}`);
        const page = await rawRequest(res.body.doc_url);
        expect(page.status, what).toBe(200);
        expect(page.text, what).toContain(`<section id="${new URL(res.body.doc_url).hash.slice(1)}"`);
      }
    });

    it('X-Request-Id is a fresh UUID on each response, not taken from the client', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const res = await svc.api.get('/transaction/', { 'x-request-id': 'client-chosen' });
        const id = res.headers.get('x-request-id') ?? '';
        expect(id).toMatch(UUID);
        ids.add(id);
      }
      expect(ids.size).toBe(5);
    });

    it('JSON responses say so; problem responses are application/problem+json', async () => {
      expect((await svc.api.get('/currency/')).headers.get('content-type')).toMatch(/^application\/json/);
      expect((await svc.api.get('/nope/')).headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });
  });

  describe('problem bodies', () => {
    it('never carry a stack trace or internals, whatever failed', async () => {
      const responses: Reply[] = [
        await svc.api.request('POST', '/transaction/', { raw: '{"currency":', headers: { 'content-type': 'application/json' } }),
        await svc.api.request('POST', '/transaction/', { raw: '{"a":1}', headers: { 'content-type': 'application/json; charset=utf-16' } }),
        await svc.api.request('POST', '/transaction/', { raw: 'garbage', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
        await svc.api.request('POST', '/transaction/', { raw: '{}', headers: { 'content-type': 'application/json', 'content-encoding': 'br-unknown' } }),
        await svc.api.post('/transaction/', transactionBody({ note: 'x'.repeat(200_000) })),
        await svc.api.post('/transaction/', { currency: 'EUR', products: [{ amount: 1, product_id: '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e' }] }),
        await svc.api.request('POST', '/transaction/', {
          raw: JSON.stringify(transactionBody()).replace(/}$/, ',"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
          headers: { 'content-type': 'application/json' },
        }),
        await svc.api.get('/transaction/not-an-id/'),
        await svc.api.get('/transaction/?page=999999999999'),
        await svc.api.request('GET', '/transaction/', { auth: 'AppKeys a:b' }),
      ];
      for (const res of responses) {
        expect(res.status, res.text).toBeGreaterThanOrEqual(400);
        expect(res.status, res.text).toBeLessThan(500);
        problemPaths(res);
        expect(res.text).not.toMatch(STACK);
        expect(Object.keys(res.body).every((k) => ['type', 'title', 'status', 'detail', 'errors', 'request_id', 'doc_url'].includes(k))).toBe(true);
      }
      // The service runs in this process: a polluted prototype would show here.
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('a 401 names an absent header or an empty key (unset shell variables); a pair that opens nothing gets one answer', async () => {
      const detail = async (auth: string | null) => {
        const res = await svc.api.request('GET', '/transaction/', { auth });
        expect(res.status, String(auth)).toBe(401);
        expect(res.headers.get('www-authenticate'), String(auth)).toMatch(/^AppKeys/);
        return res.body.detail as string;
      };
      expect(await detail(null)).toMatch(/^No Authorization header/);
      expect(await detail('AppKeys :')).toMatch(/missing its public key and secret key \(were PUBLIC_KEY and SECRET_KEY exported\?\)/);
      expect(await detail('AppKeys')).toMatch(/missing its public key and secret key/);
      expect(await detail('AppKeys pk_test_abc:')).toMatch(/missing its secret key \(/);
      expect(await detail('AppKeys :sk_test_abc')).toMatch(/missing its public key \(/);
      const [publicKey, secretKey] = svc.api.auth.replace('AppKeys ', '').split(':');
      const wrongSecret = await detail(`AppKeys ${publicKey}:${secretKey!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`);
      const unknownKey = await detail('AppKeys pk_test_unknown:sk_test_unknown');
      expect(wrongSecret).toBe(unknownKey);
      expect(wrongSecret).not.toMatch(/missing/);
    });

    it('a gzip-encoded JSON body is read like a plain one', async () => {
      const gz = await fetch(`${svc.t.url}/v1/transaction/`, {
        method: 'POST',
        headers: { authorization: svc.api.auth, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify(transactionBody({ order_id: 'gz' }))),
      });
      expect(gz.status).toBe(201);
    });
  });

  describe('body size limit (100kb)', () => {
    it('a body over the limit is a 413 and creates nothing', async () => {
      const before = await svc.api.count('/transaction/');
      const res = await svc.api.post('/transaction/', transactionBody({ note: 'x'.repeat(150 * 1024) }));
      expect(res.status).toBe(413);
      expect(res.body.type).toBe('urn:problem:payload-too-large');
      expect(await svc.api.count('/transaction/')).toBe(before);
    });

    it('a large body under the limit is parsed: 1000 product lines in one transaction', async () => {
      const products = Array.from({ length: 1000 }, (_, i) => ({ amount: 1, product: { name: `Item ${i}`, price: 0.01 } }));
      const body = JSON.stringify({ currency: 'EUR', products });
      expect(body.length).toBeLessThan(100 * 1024);
      expect(body.length).toBeGreaterThan(50 * 1024);
      const res = await svc.api.post('/transaction/', { currency: 'EUR', products });
      expect(res.status, res.text.slice(0, 200)).toBe(201);
      expect(res.body.items_price).toBe(10);
      expect(res.body.products).toHaveLength(1000);
      expect(res.body.products[999].product.name).toBe('Item 999');
      const read = await svc.api.get(`/transaction/${res.body.id}/`);
      expect(read.body).toEqual(res.body);
    });

    it('an unauthenticated client gets its 401 before any body is read', async () => {
      const res = await svc.api.request('POST', '/transaction/', { body: transactionBody({ note: 'x'.repeat(150 * 1024) }), auth: null });
      expect(res.status).toBe(401);
    });
  });
});
