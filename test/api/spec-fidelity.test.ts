import { describe, expect, it } from 'vitest';
import { ENGINES, problemPaths, rawRequest, useTestService } from './harness';

// Points where the service followed the spec less closely than it could (issue #18):
// catalogue products without a currency, disabled references, 405 for a wrong method.

describe.each(ENGINES)('spec fidelity on %s', (engine) => {
  const svc = useTestService(engine, 'Fidelity');

  describe('a catalogue product without a currency', () => {
    it('is created without one, as the spec\'s product model has none, and reads back with currency null', async () => {
      const res = await svc.api.post('/product/', { name: 'Sticker', price: 2.5, product_id: 'sku-sticker', description: 'Round' });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ name: 'Sticker', price: 2.5, currency: null, product_id: 'sku-sticker', description: 'Round' });
      expect((await svc.api.get(`/product/${res.body.id}/`)).body).toEqual(res.body);
      // Up to 4 decimals (the most any currency has) are kept exactly.
      const fine = await svc.api.post('/product/', { name: 'Grain', price: 0.0125 });
      expect(fine.body.price).toBe(0.0125);
      const tooFine = await svc.api.post('/product/', { name: 'Dust', price: 0.00001 });
      expect(tooFine.status).toBe(400);
      expect(problemPaths(tooFine)).toEqual(['price']);
      // At that scale, past 10^11 the units would pass 2^53: refused, naming the limit.
      const tooLarge = await svc.api.post('/product/', { name: 'Yacht', price: 1e11 + 1 });
      expect(problemPaths(tooLarge)).toEqual(['price']);
      expect((await svc.api.post('/product/', { name: 'Ship', price: 1e11 })).status).toBe(201);
    });

    it('takes the currency of the transaction that uses it, priced in its minor units', async () => {
      const p = (await svc.api.post('/product/', { name: 'Sticker', price: 2.5 })).body;
      const eur = await svc.api.post('/transaction/', { currency: 'EUR', products: [{ amount: 3, product_id: p.id }] });
      expect(eur.status, eur.text).toBe(201);
      expect(eur.body).toMatchObject({ currency: 'EUR', items_price: 7.5, total_price: 7.5 });
      expect(eur.body.products[0]).toMatchObject({ product_id: p.id, product: { name: 'Sticker', price: 2.5 }, total: 7.5 });
      const kwd = await svc.api.post('/transaction/', { currency: 'KWD', products: [{ amount: 1, product_id: p.id }] });
      expect(kwd.status, kwd.text).toBe(201);
      expect(kwd.body.total_price).toBe(2.5);
      const whole = (await svc.api.post('/product/', { name: 'Ticket', price: 300 })).body;
      const jpy = await svc.api.post('/transaction/', { currency: 'JPY', products: [{ amount: 2, product_id: whole.id }] });
      expect(jpy.status, jpy.text).toBe(201);
      expect(jpy.body.total_price).toBe(600);
    });

    it('is a 400 naming the product line when its price has more decimals than the transaction currency', async () => {
      const half = (await svc.api.post('/product/', { name: 'Half', price: 2.5 })).body;
      const mils = (await svc.api.post('/product/', { name: 'Mils', price: 1.234 })).body;
      const before = await svc.api.count('/transaction/');
      const jpy = await svc.api.post('/transaction/', { currency: 'JPY', products: [{ amount: 1, product_id: half.id }] });
      expect(jpy.status).toBe(400);
      expect(problemPaths(jpy)).toEqual(['products.0.product_id']);
      expect(jpy.body.detail).toMatch(/2\.5.*JPY/);
      const eur = await svc.api.post('/transaction/', {
        currency: 'EUR',
        products: [{ amount: 1, product_id: half.id }, { amount: 1, product_id: mils.id }],
      });
      expect(eur.status).toBe(400);
      expect(problemPaths(eur)).toEqual(['products.1.product_id']);
      expect(await svc.api.count('/transaction/')).toBe(before);
      // The same product is fine in a currency with three decimals.
      expect((await svc.api.post('/transaction/', { currency: 'BHD', products: [{ amount: 1, product_id: mils.id }] })).status).toBe(201);
    });

    it('a product with a currency keeps it: another transaction currency is a 400', async () => {
      const p = (await svc.api.post('/product/', { name: 'Mug', price: 3, currency: 'EUR' })).body;
      const res = await svc.api.post('/transaction/', { currency: 'USD', products: [{ amount: 1, product_id: p.id }] });
      expect(res.status).toBe(400);
      expect(problemPaths(res)).toEqual(['products.0.product_id']);
    });

    it('PATCH gives it a currency (its price re-checked) or takes it away; the currency filter sees it', async () => {
      const p = (await svc.api.post('/product/', { name: 'Bolt', price: 1.234 })).body;
      const refused = await svc.api.patch(`/product/${p.id}/`, { currency: 'EUR' });
      expect(refused.status).toBe(400);
      expect(problemPaths(refused)).toEqual(['price']);
      const priced = await svc.api.patch(`/product/${p.id}/`, { currency: 'KWD' });
      expect(priced.body).toMatchObject({ price: 1.234, currency: 'KWD' });
      const freed = await svc.api.patch(`/product/${p.id}/`, { currency: null });
      expect(freed.body).toMatchObject({ price: 1.234, currency: null });
      const kwd = (await svc.api.get('/product/?currency=KWD')).body.results.map((r: { id: string }) => r.id);
      expect(kwd).not.toContain(p.id);
    });
  });

  describe('disabled catalogue references', () => {
    it.each([
      ['tax', '/tax/', { name: 'VAT', rate: 21, enabled: false }],
      ['shipping', '/shipping/', { name: 'Courier', price: 5, currency: 'EUR', enabled: false }],
      ['coupon', '/coupon/', { name: 'Ten off', kind: 'percent', value: 10, enabled: false }],
    ])('a disabled %s is refused like a disabled product, until enabled again', async (field, base, create) => {
      const ref = (await svc.api.post(base, create)).body;
      const body = { currency: 'EUR', products: [{ amount: 1, product: { name: 'Mug', price: 10 } }], [field]: ref.id };
      const before = await svc.api.count('/transaction/');
      const res = await svc.api.post('/transaction/', body);
      expect(res.status).toBe(400);
      expect(problemPaths(res)).toEqual([field]);
      expect(res.body.detail).toMatch(/disabled/);
      // An explicit *_value does not make a disabled reference usable either.
      const explicit = await svc.api.post('/transaction/', { ...body, [`${field}_value`]: 1 });
      expect(explicit.status).toBe(400);
      expect(problemPaths(explicit)).toEqual([field]);
      expect(await svc.api.count('/transaction/')).toBe(before);
      expect((await svc.api.patch(`${base}${ref.id}/`, { enabled: true })).status).toBe(200);
      const ok = await svc.api.post('/transaction/', body);
      expect(ok.status, ok.text).toBe(201);
      expect(ok.body[field]).toBe(ref.id);
    });
  });

  describe('a wrong method on an existing path', () => {
    const someId = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';
    const ALL = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

    it('is a 405 problem whose Allow lists the methods of the OpenAPI document, on every path', async () => {
      const doc = (await rawRequest(`${svc.t.url}/v1/openapi.json`)).body as { paths: Record<string, Record<string, unknown>> };
      const paths = Object.entries(doc.paths);
      expect(paths.length).toBeGreaterThan(20);
      for (const [template, operations] of paths) {
        const path = template.replace(/\{\w+\}/g, someId);
        const declared = Object.keys(operations).map((m) => m.toUpperCase());
        const allowed = declared.includes('GET') ? [...declared, 'HEAD'] : declared;
        for (const method of ALL.filter((m) => !allowed.includes(m))) {
          const res = await svc.api.request(method, path, { body: ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined });
          expect(res.status, `${method} ${path}`).toBe(405);
          if (method !== 'HEAD') {
            expect(problemPaths(res)).toEqual([]);
            expect(res.body.type).toBe('urn:problem:method-not-allowed');
          }
          const allow = res.headers.get('allow')!.split(', ');
          expect(allow.sort(), `${method} ${path}`).toEqual([...allowed, 'OPTIONS'].sort());
        }
      }
    });

    it('a document cannot be edited or deleted: 405, Allow: GET, HEAD, OPTIONS', async () => {
      const res = await svc.api.request('DELETE', `/client/${someId}/document/${someId}/`);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    });

    it('the OpenAPI document is read-only too; unknown paths stay 404, and credentials come first', async () => {
      const doc = await rawRequest(`${svc.t.url}/v1/openapi.json`, { method: 'POST' });
      expect(doc.status).toBe(405);
      expect(doc.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      problemPaths(doc);
      expect((await svc.api.request('PUT', '/nope/', { body: {} })).status).toBe(404);
      expect((await svc.api.request('DELETE', `/transaction/${someId}/extra/`)).status).toBe(404);
      const anonymous = await svc.api.request('PUT', '/transaction/', { body: {}, auth: null });
      expect(anonymous.status).toBe(401);
    });
  });
});
