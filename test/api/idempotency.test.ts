import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Client, ENGINES, problemPaths, transactionBody, useTestService } from './harness';
import { paidTransaction, priced } from './pay';

// Idempotency-Key on POST: a replay returns the stored response, a different body is 422,
// a repeat while the first runs is 409, and concurrent repeats create exactly one object.

const key = () => `key-${randomUUID()}`;

describe.each(ENGINES)('Idempotency-Key on %s', (engine) => {
  const svc = useTestService(engine, 'Idempotent');

  const post = (k: string, body: unknown, c: Client = svc.api, path = '/transaction/') =>
    c.post(path, body, { 'idempotency-key': k });

  it('a replay returns the same status and body with Idempotent-Replayed: true, and creates nothing', async () => {
    const k = key();
    const before = await svc.api.count('/transaction/');
    const first = await post(k, transactionBody());
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    for (let i = 0; i < 3; i++) {
      const again = await post(k, transactionBody());
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('content-type')).toMatch(/^application\/json/);
      expect(again.text).toBe(first.text);
    }
    expect(await svc.api.count('/transaction/')).toBe(before + 1);
  });

  it('the same body with its keys in another order is the same request', async () => {
    const k = key();
    const body = transactionBody({ note: 'n', tax_value: 1 });
    const first = await post(k, body);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await post(k, reordered);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it('a different body with the same key is 422 and creates nothing', async () => {
    const k = key();
    const first = await post(k, transactionBody({ order_id: 'A' }));
    expect(first.status).toBe(201);
    const before = await svc.api.count('/transaction/');
    const other = await post(k, transactionBody({ order_id: 'B' }));
    expect(other.status).toBe(422);
    problemPaths(other);
    expect(other.body.type).toBe('urn:problem:idempotency-mismatch');
    // ...as is the same key on another route.
    const elsewhere = await post(k, { name: 'VAT', rate: 21 }, svc.api, '/tax/');
    expect(elsewhere.status).toBe(422);
    expect(await svc.api.count('/transaction/')).toBe(before);
    // The stored response is still there for the original body.
    expect((await post(k, transactionBody({ order_id: 'A' }))).body.id).toBe(first.body.id);
  });

  it('20 parallel POSTs with one key create exactly one transaction; every 2xx has its id', async () => {
    const env = await svc.t.newEnvironment('Parallel');
    const k = key();
    const body = transactionBody({ order_id: 'parallel' });
    const results = await Promise.all(Array.from({ length: 20 }, () => post(k, body, env)));
    const statuses = results.map((r) => r.status);
    for (const r of results) {
      expect([201, 409], r.text).toContain(r.status);
      if (r.status === 409) expect(r.body.type).toBe('urn:problem:idempotency-in-flight');
    }
    const ok = results.filter((r) => r.status === 201);
    expect(ok.length, String(statuses)).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
    const list = await env.get('/transaction/');
    expect(list.body.count).toBe(1);
    expect(list.body.results[0].id).toBe(ok[0]!.body.id);
    // Once it is done, everyone gets the replay.
    const later = await post(k, body, env);
    expect(later.status).toBe(201);
    expect(later.body.id).toBe(ok[0]!.body.id);
  });

  it('parallel POSTs with different keys all succeed', async () => {
    const env = await svc.t.newEnvironment('Parallel distinct');
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => post(key(), transactionBody({ order_id: `o-${i}` }), env)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(await env.count('/transaction/')).toBe(10);
  });

  it('the same key in two environments is two independent requests', async () => {
    const a = await svc.t.newEnvironment('A');
    const b = await svc.t.newEnvironment('B');
    const k = key();
    const ra = await post(k, transactionBody(), a);
    const rb = await post(k, transactionBody({ order_id: 'different body' }), b);
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(ra.body.id).not.toBe(rb.body.id);
    expect(await a.count('/transaction/')).toBe(1);
    expect(await b.count('/transaction/')).toBe(1);
  });

  it('a failed (400) request frees its key: the corrected body then succeeds', async () => {
    // Refused by the schema, before the key is claimed.
    const k1 = key();
    const bad = await post(k1, transactionBody({ currency: 'eur' }));
    expect(bad.status).toBe(400);
    const good1 = await post(k1, transactionBody());
    expect(good1.status).toBe(201);
    expect(good1.headers.get('idempotent-replayed')).toBeNull();

    // Refused by the handler (unknown product), after the key was claimed.
    const k2 = key();
    const unknown = await post(k2, { currency: 'EUR', products: [{ amount: 1, product_id: randomUUID() }] });
    expect(unknown.status).toBe(400);
    expect(problemPaths(unknown)).toContain('products.0.product_id');
    const again = await post(k2, { currency: 'EUR', products: [{ amount: 1, product_id: randomUUID() }] });
    expect(again.status).toBe(400); // not replayed, not 422: the key was released
    const good2 = await post(k2, transactionBody());
    expect(good2.status).toBe(201);
    expect(good2.headers.get('idempotent-replayed')).toBeNull();
  });

  it('works on every POST that creates: catalogue too', async () => {
    const k = key();
    const first = await post(k, { name: 'Mug', price: 3, currency: 'EUR' }, svc.api, '/product/');
    const again = await post(k, { name: 'Mug', price: 3, currency: 'EUR' }, svc.api, '/product/');
    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('a key still running is 409; one abandoned by a dead process (over a minute) can be taken over; after 24 h it is free', async () => {
    const db = svc.t.service.deps.database.db;
    const k = key();
    const first = await post(k, transactionBody());
    expect(first.status).toBe(201);
    const where = (q: any) => q.where('environment_id', '=', svc.api.keys.environment_id).where('key', '=', k);

    // As a request that is still running leaves it:
    await where(db.updateTable('idempotency_keys').set({ state: 'running', status_code: null, response_body: null })).execute();
    const inFlight = await post(k, transactionBody());
    expect(inFlight.status).toBe(409);
    expect(inFlight.body.type).toBe('urn:problem:idempotency-in-flight');

    // ...and as it stays when its process was killed mid-request:
    const twoMinutesAgo = new Date(Date.now() - 2 * 60_000).toISOString();
    await where(db.updateTable('idempotency_keys').set({ created_at: twoMinutesAgo })).execute();
    const takenOver = await post(k, transactionBody());
    expect(takenOver.status).toBe(201);
    expect(takenOver.headers.get('idempotent-replayed')).toBeNull();
    expect((await post(k, transactionBody())).body.id).toBe(takenOver.body.id);

    // A finished key older than 24 h may carry a new request.
    const dayAgo = new Date(Date.now() - 25 * 3600_000).toISOString();
    await where(db.updateTable('idempotency_keys').set({ created_at: dayAgo })).execute();
    const fresh = await post(k, transactionBody({ order_id: 'next day' }));
    expect(fresh.status).toBe(201);
    expect(fresh.body.order_id).toBe('next day');
  });

  it('money-moving routes: parallel keyed captures move the money once, and a repeat replays it', async () => {
    const { sale } = await paidTransaction(svc.api, priced('EUR', 30, { authorize: true }));
    const k = key();
    const path = `/sale/${sale.id}/capture/`;
    const results = await Promise.all(Array.from({ length: 8 }, () => post(k, { amount: 1 }, svc.api, path)));
    for (const r of results) expect([200, 409], r.text).toContain(r.status);
    const done = results.filter((r) => r.status === 200);
    expect(done.length).toBeGreaterThanOrEqual(1);
    const again = await post(k, { amount: 1 }, svc.api, path);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(done[0]!.body);
    const after = (await svc.api.get(`/sale/${sale.id}/`)).body;
    expect(after).toMatchObject({ captured: 1, held: 29 });
    expect(after.operations.map((o: { kind: string }) => o.kind)).toEqual(['authorize', 'capture']);
  });

  it('GET ignores the header', async () => {
    const res = await svc.api.get('/transaction/', { 'idempotency-key': 'x'.repeat(300) });
    expect(res.status).toBe(200);
  });
});
