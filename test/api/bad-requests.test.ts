import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { assertContract } from './contract';
import { ENGINES, problemPaths, transactionBody, useTestService } from './harness';

// Requests no parser can read, and paths no router can decode, are the client's fault:
// 400, 404, 413 or 415, never a 500. Under /v1/ as problem+json; on the checkout's pages
// (a transaction's, a sign-up's, the redirect provider's) the page itself with that status,
// or its not-found page when the token names nothing.

interface Bad {
  name: string;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer>;
  status: 400 | 413 | 415;
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Bodies that fail in the parser, before any route sees them; `over` characters pass the limit. */
const unreadable = (type: string, over = 64 * 1024): Bad[] => [
  ...(type === JSON_TYPE
    ? [
        { name: 'malformed JSON', headers: { 'content-type': type }, body: '{"action":"pay",', status: 400 as const },
        { name: 'JSON declared as UTF-16', headers: { 'content-type': `${type}; charset=utf-16` }, body: '{}', status: 415 as const },
        // Latin-1 bytes sent as JSON: decoded, "é" would be stored as U+FFFD.
        { name: 'JSON whose bytes are not UTF-8', headers: { 'content-type': type }, body: new Uint8Array(Buffer.from('{"action":"pay","name":"Jos\xe9"}', 'latin1')), status: 415 as const },
      ]
    : []),
  { name: 'an unknown charset', headers: { 'content-type': `${type}; charset=klingon` }, body: 'a=1', status: 415 },
  { name: 'an unknown Content-Encoding', headers: { 'content-type': type, 'content-encoding': 'bogus' }, body: 'a=1', status: 415 },
  { name: 'gzip that is not gzip', headers: { 'content-type': type, 'content-encoding': 'gzip' }, body: 'not gzip', status: 400 },
  {
    name: 'a body over the limit (gzip, so its length is known only once inflated)',
    headers: { 'content-type': type, 'content-encoding': 'gzip' },
    body: new Uint8Array(gzipSync(type === JSON_TYPE ? JSON.stringify({ action: 'pay', pad: 'x'.repeat(over) }) : `action=pay&pad=${'x'.repeat(over)}`)),
    status: 413,
  },
  { name: 'a body over the limit', headers: { 'content-type': type }, body: type === JSON_TYPE ? `{"pad":"${'x'.repeat(over)}"}` : `pad=${'x'.repeat(over)}`, status: 413 },
];

describe.each(ENGINES)('bad requests (%s)', (engine) => {
  const svc = useTestService(engine);

  const post = (path: string, bad: Pick<Bad, 'headers' | 'body'>, auth = true) =>
    fetch(`${svc.t.url}${path}`, {
      method: 'POST',
      headers: { ...(auth ? { authorization: svc.api.auth } : {}), ...bad.headers },
      body: bad.body,
      redirect: 'manual',
    });

  async function transactionToken(): Promise<string> {
    const created = await svc.api.post('/transaction/', transactionBody());
    expect(created.status).toBe(201);
    return created.body.token;
  }

  async function signupToken(): Promise<string> {
    const plan = await svc.api.post('/plan/', { name: 'Pro', amount: 9.99, currency: 'EUR', interval: 'month' });
    expect(plan.status).toBe(201);
    const sub = await svc.api.post('/subscription/', { plan: plan.body.id });
    expect(sub.status).toBe(201);
    return new URL(sub.body.payment_url).pathname.split('/')[2]!;
  }

  /** The page answers with the status: its own screen (HTML to a form, the view as JSON to the screen). */
  async function expectPage(res: Response, status: number) {
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(status);
    const type = res.headers.get('content-type') ?? '';
    if (type.startsWith('text/html')) expect(text).toMatch(/^<!doctype html>/);
    else expect(JSON.parse(text)).toMatchObject({ outcome: 'view', view: expect.any(Object) });
  }

  describe('/v1/', () => {
    for (const bad of [
      // BODY_LIMIT is 100kb by default.
      ...unreadable(JSON_TYPE, 200 * 1024),
      { name: 'JSON null', headers: { 'content-type': JSON_TYPE }, body: 'null', status: 400 as const },
      { name: 'a JSON array', headers: { 'content-type': JSON_TYPE }, body: '[1]', status: 400 as const },
      { name: 'a JSON string', headers: { 'content-type': JSON_TYPE }, body: '"x"', status: 400 as const },
      { name: 'a form instead of JSON', headers: { 'content-type': FORM_TYPE }, body: 'currency=EUR', status: 415 as const },
    ]) {
      it(`POST /v1/transaction/ with ${bad.name}: ${bad.status} problem+json`, async () => {
        const res = await post('/v1/transaction/', bad);
        const text = await res.text();
        expect(res.status, text).toBe(bad.status);
        assertContract('POST', res.url, res.status, res.headers, text);
        problemPaths({ status: res.status, headers: res.headers, body: JSON.parse(text), text });
      });
    }

    it('JSON nested deeper than any request is a 400, with an Idempotency-Key too (its hash walks the body)', async () => {
      for (const body of [`${'['.repeat(40_000)}${']'.repeat(40_000)}`, `${'{"a":'.repeat(15_000)}1${'}'.repeat(15_000)}`]) {
        const res = await post('/v1/transaction/', { headers: { 'content-type': JSON_TYPE, 'idempotency-key': `deep-${body.length}` }, body });
        const text = await res.text();
        expect(res.status, text).toBe(400);
        expect(JSON.parse(text).detail).toMatch(/nested deeper than 32 levels/);
      }
    });

    it('an action without fields ignores a body it could not read, as the document declares', async () => {
      const plan = await svc.api.post('/plan/', { name: 'Pro', amount: 9.99, currency: 'EUR', interval: 'month' });
      const sub = await svc.api.post('/subscription/', { plan: plan.body.id });
      const res = await post(`/v1/subscription/${sub.body.id}/stop/`, { headers: { 'content-type': `${JSON_TYPE}; charset=latin1` }, body: '{' });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      assertContract('POST', res.url, res.status, res.headers, text);
    });

    it('a date-time whose instant is past the year 9999 in UTC is a 400 (it was stored as +010000-…)', async () => {
      const late = await svc.api.post('/transaction/', transactionBody({ expired_date: '9999-12-31T23:59:59-23:59' }));
      expect(late.status, late.text).toBe(400);
      expect(problemPaths(late)).toEqual(['expired_date']);
      const last = await svc.api.post('/transaction/', transactionBody({ expired_date: '9999-12-31T23:59:59+01:00' }));
      expect(last.status, last.text).toBe(201);
      expect(last.body.expired_date).toBe('9999-12-31T22:59:59.000Z');
    });

    it('a path segment that is not percent-decodable names nothing: 404 problem+json', async () => {
      const res = await svc.api.get('/transaction/%ff/');
      expect(res.status).toBe(404);
      problemPaths(res);
      const sale = await svc.api.request('POST', '/sale/%E0%A4%A/capture/', { body: {} });
      expect(sale.status).toBe(404);
    });
  });

  describe('the checkout pages', () => {
    for (const bad of [...unreadable(JSON_TYPE), { name: 'JSON null', headers: { 'content-type': JSON_TYPE }, body: 'null', status: 400 as const }]) {
      it(`POST /pay/{token}/ with ${bad.name}: the page, ${bad.status}`, async () => {
        await expectPage(await post(`/pay/${await transactionToken()}/`, bad, false), bad.status);
      });
      it(`POST /pay/{sign-up token}/ with ${bad.name}: the sign-up page, ${bad.status}`, async () => {
        await expectPage(await post(`/pay/${await signupToken()}/`, bad, false), bad.status);
      });
    }
    for (const bad of unreadable(FORM_TYPE)) {
      it(`POST /pay/{token}/ as a form with ${bad.name}: the page, ${bad.status}`, async () => {
        await expectPage(await post(`/pay/${await transactionToken()}/`, bad, false), bad.status);
      });
      it(`POST /pay/{token}/return/{reference}/ with ${bad.name}: the page, ${bad.status}`, async () => {
        await expectPage(await post(`/pay/${await transactionToken()}/return/gc_00000000-0000-7000-8000-000000000000/`, bad, false), bad.status);
      });
    }

    it('the same bodies to an unknown token: the not-found page', async () => {
      for (const bad of unreadable(JSON_TYPE)) {
        const res = await post('/pay/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/', bad, false);
        expect(res.status, bad.name).toBe(404);
        expect(await res.text()).toMatch(/^<!doctype html>/);
      }
    });

    for (const path of ['/pay/%ff/', '/pay/%ff', '/pay/%ff/return/gc_00000000-0000-7000-8000-000000000000/', '/pay/sub_%ff/']) {
      it(`GET ${path}: the not-found page`, async () => {
        const res = await fetch(`${svc.t.url}${path}`, { redirect: 'manual' });
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await res.text()).toMatch(/^<!doctype html>/);
      });
    }

    it('POST /pay/%ff/: the not-found page', async () => {
      const res = await post('/pay/%ff/', { headers: { 'content-type': FORM_TYPE }, body: 'action=pay' }, false);
      expect(res.status).toBe(404);
      expect(await res.text()).toMatch(/^<!doctype html>/);
    });
  });

  for (const path of ['/docs/%ff', '/assets/%ff', '/widget.%ff.js', '/%ff', '/demo/%ff']) {
    it(`GET ${path}: 404`, async () => {
      const res = await fetch(`${svc.t.url}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(404);
      await res.arrayBuffer();
    });
  }
});
