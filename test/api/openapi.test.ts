import { dereference, validate, compileErrors } from '@readme/openapi-parser';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../server/api/index';
import { PROBLEM_CATALOGUE } from '../../server/http/problem';
import { undescribed } from '../openapi/undescribed';
import { clientBody, documentBody, IBANS } from './documents';
import { type Client, ENGINES, rawRequest, startTestService, type TestService, transactionBody } from './harness';

// The published contract: valid OpenAPI 3.1, complete, and no looser or stricter than
// the API where JSON Schema can say so.

type Schema = Record<string, any>;

/**
 * The subset of JSON Schema 2020-12 the generated document uses, on a dereferenced schema.
 * Formats are not checked (a looser check only makes the comparisons below weaker).
 */
function accepts(schema: Schema, value: unknown): boolean {
  if (schema.anyOf && !schema.anyOf.some((s: Schema) => accepts(s, value))) return false;
  if (schema.oneOf && schema.oneOf.filter((s: Schema) => accepts(s, value)).length !== 1) return false;
  if (schema.allOf && !schema.allOf.every((s: Schema) => accepts(s, value))) return false;
  if (schema.enum && !schema.enum.some((e: unknown) => e === value)) return false;
  if ('const' in schema && schema.const !== value) return false;
  if (schema.type) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    const kind =
      value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' && Number.isInteger(value) ? 'integer' : typeof value;
    if (!types.some((t) => t === kind || (t === 'number' && kind === 'integer'))) return false;
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength) return false;
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) return false;
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) return false;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return false;
    if (schema.maximum !== undefined && value > schema.maximum) return false;
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return false;
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return false;
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return false;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return false;
    if (schema.items && !value.every((v) => accepts(schema.items, v))) return false;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) return false;
    if (schema.required && !schema.required.every((k: string) => k in obj)) return false;
    for (const k of keys) {
      const prop = schema.properties?.[k];
      if (prop) {
        if (!accepts(prop, obj[k])) return false;
      } else if (schema.additionalProperties === false) {
        return false;
      }
    }
  }
  return true;
}

describe.each(ENGINES)('OpenAPI document on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let doc: Schema;
  let deref: Schema;
  const requestSchema = (method: string, path: string): Schema =>
    deref.paths[path][method].requestBody.content['application/json'].schema;

  beforeAll(async () => {
    t = await startTestService(engine);
    api = await t.newEnvironment();
    const res = await rawRequest(`${t.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = res.body;
    deref = await dereference(structuredClone(doc) as Parameters<typeof dereference>[0]);
  });
  afterAll(() => t.close());

  it('is public JSON, OpenAPI 3.1, and valid', async () => {
    const res = await rawRequest(`${t.url}/v1/openapi.json`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('lists every route of apiRoutes() with its method, and nothing else', () => {
    const declared = apiRoutes().map((r) => `${r.method} ${r.path}`).sort();
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).filter((m) => m !== 'parameters').map((m) => `${m} ${path}`))
      .sort();
    expect(documented).toEqual(declared);
    for (const r of apiRoutes()) {
      const op = doc.paths[r.path][r.method];
      expect(op.responses[String(r.status)], `${r.method} ${r.path}`).toBeDefined();
      expect(op.responses['401'], `${r.method} ${r.path}`).toBeDefined();
      if (r.path.includes('{id}')) {
        expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'id', in: 'path', required: true }));
        expect(op.responses['404']).toBeDefined();
      }
      if (r.body) expect(op.requestBody.content['application/json'].schema).toBeDefined();
      expect(r.path.endsWith('/'), r.path).toBe(true);
    }
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) =>
      Object.values(ops).map((o) => o.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes every operation, parameter and property', () => {
    expect(undescribed(doc)).toEqual([]);
    // The check itself finds what is missing.
    const broken = structuredClone(doc);
    delete broken.components.schemas.Transaction.properties.token.description;
    delete broken.paths['/sale/{id}/capture/'].post.description;
    expect(undescribed(broken)).toEqual(['Transaction.token', 'post /sale/{id}/capture/ (operation)']);
  });

  it('every amount a request sends in a currency states its decimals rule', () => {
    // Amounts in major units, found by their description, in every request body.
    const silent: string[] = [];
    const walk = (schema: Schema, at: string) => {
      if (schema.type === 'number' && /major units/i.test(schema.description ?? '') && !/decimals/.test(schema.description)) silent.push(at);
      for (const [name, prop] of Object.entries<Schema>(schema.properties ?? {})) walk(prop, `${at}.${name}`);
      for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const sub of schema[key] ?? []) walk(sub, at);
      if (schema.items) walk(schema.items, `${at}[]`);
    };
    const amounts: string[] = [];
    for (const [path, item] of Object.entries<Schema>(deref.paths)) {
      for (const [method, op] of Object.entries<Schema>(item)) {
        const body = op.requestBody?.content?.['application/json']?.schema;
        if (!body) continue;
        walk(body, `${method} ${path}`);
        if (/major units/i.test(JSON.stringify(body))) amounts.push(`${method} ${path}`);
      }
    }
    expect(silent).toEqual([]);
    // The walk reaches the amounts: a transaction's lines, a charge, a refund, a transfer.
    expect(amounts).toEqual(expect.arrayContaining(['post /transaction/', 'post /authorization/{id}/charge/', 'post /sale/{id}/refund/', 'post /transfer/']));
  });

  it('names operations as a person would, and tags them with described tags', () => {
    const ids = Object.fromEntries(
      Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, ops]) =>
        Object.entries(ops).map(([method, op]) => [`${method} ${path}`, op.operationId]),
      ),
    );
    expect(ids).toMatchObject({
      'get /transaction/': 'listTransactions',
      'post /transaction/': 'createTransaction',
      'get /transaction/{id}/': 'getTransaction',
      'post /sale/{id}/capture/': 'captureSale',
      'post /sale/{id}/refund/': 'refundSale',
      'post /sale/{id}/void/': 'voidSale',
      'get /wallet/': 'listWallets',
      'patch /wallet/{id}/': 'updateWallet',
      'get /shipping/': 'listShippingOptions',
      'delete /coupon/{id}/': 'deleteCoupon',
    });
    for (const id of Object.values(ids)) expect(id).toMatch(/^[a-z]+[A-Za-z]*$/);
    const tags = (doc.tags as { name: string; description: string }[]).map((t) => t.name);
    const used = new Set(Object.values(doc.paths as Record<string, Record<string, Schema>>).flatMap((ops) => Object.values(ops).flatMap((o) => o.tags)));
    expect(new Set(tags)).toEqual(used);
    for (const tag of doc.tags) expect(tag.description, tag.name).toBeTruthy();
  });

  it('names an absolute server: the origin the document was asked from, or PUBLIC_URL', async () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: `${t.url}/v1` })]);
    expect(doc.info.contact).toBeDefined();
    expect(doc.info.license.name).toBe('Proprietary');
    const other = await startTestService(engine, { env: { PUBLIC_URL: 'https://pay.shop.test/' } });
    try {
      const res = await rawRequest(`${other.url}/v1/openapi.json`);
      expect(res.body.servers[0].url).toBe('https://pay.shop.test/v1');
    } finally {
      await other.close();
    }
  });

  it('one Problem component, its type an enum of every problem the service answers, and every status declared', () => {
    expect(doc.components.schemas.Problem.properties.type.enum).toEqual(PROBLEM_CATALOGUE.map((p) => p.type));
    for (const response of Object.values(doc.components.responses as Record<string, Schema>)) {
      expect(response.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    }
    const op = (method: string, path: string) => doc.paths[path][method];
    const statuses = (method: string, path: string) => Object.keys(op(method, path).responses).sort();
    expect(statuses('post', '/transaction/')).toEqual(['201', '202', '400', '401', '402', '409', '413', '415', '422', '429', '503']);
    expect(statuses('get', '/transaction/{id}/')).toEqual(['200', '400', '401', '404', '429', '503']);
    expect(statuses('post', '/sale/{id}/capture/')).toEqual(['200', '202', '400', '401', '404', '409', '413', '415', '422', '429', '502', '503']);
    for (const path of ['/client/{id}/', '/wallet/{id}/', '/client/{clientId}/iban/{id}/']) expect(statuses('patch', path)).toContain('409');
    expect(op('get', '/transaction/').responses['200'].headers['X-Request-Id']).toBeDefined();
    expect(op('post', '/transaction/').responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    expect(op('post', '/transaction/').parameters).toContainEqual({ $ref: '#/components/parameters/Idempotency-Key' });
    expect(doc.components.responses.Unauthorized.headers['WWW-Authenticate']).toBeDefined();
    expect(doc.components.responses.TooManyRequests.headers['Retry-After']).toBeDefined();
    expect(op('get', '/transaction/').responses['200'].headers.RateLimit).toBeDefined();
    expect(doc.components.responses.ServiceUnavailable.headers['Retry-After']).toBeDefined();
    // The merchant reference lists the same problem types, each with its status.
    const reference = readFileSync(join(import.meta.dirname, '../../docs/api.md'), 'utf8');
    for (const p of PROBLEM_CATALOGUE) expect(reference, p.type).toContain(`| \`${p.type}\` | ${p.status} |`);
  });

  it('request components leave defaulted fields optional; answers always carry them', () => {
    const input = doc.components.schemas.TransactionInput;
    expect(input.required).not.toContain('gateway_selected');
    expect(input.required).not.toContain('authorize');
    expect(input.properties.authorize.default).toBeUndefined();
    expect(input.properties.authorize.description).toMatch(/Default: false/);
    const output = doc.components.schemas.Transaction;
    expect(output.required).toEqual(expect.arrayContaining(['gateway_selected', 'authorize', 'id', 'token']));
    expect(doc.paths['/transaction/'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TransactionInput' });
  });

  it('page and page_size are integers with the bounds the service enforces', async () => {
    const params = doc.paths['/transaction/'].get.parameters as Schema[];
    const param = (name: string) => params.find((p) => p.name === name)!.schema;
    expect(param('page')).toMatchObject({ type: 'integer', minimum: 1, maximum: 1_000_000 });
    expect(param('page_size')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect((await api.get('/transaction/?page_size=100')).status).toBe(200);
    expect((await api.get('/transaction/?page_size=101')).status).toBe(400);
    expect((await api.get('/transaction/?page=0')).status).toBe(400);
  });

  it('every timestamp of an answer is a date-time', () => {
    const loose: string[] = [];
    const walk = (s: Schema | undefined, at: string) => {
      if (!s || typeof s !== 'object') return;
      for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
        if (/^(created|updated|date|expired_date|started|paused|stopped|reviewed|delivered|next_attempt|trial_end|.*_(start|end|date))$/.test(name)) {
          const formats = [prop.format, ...(prop.anyOf ?? []).map((a: Schema) => a.format)];
          if (!formats.includes('date-time') && !formats.includes('date')) loose.push(`${at}.${name}`);
        }
        walk(prop, `${at}.${name}`);
      }
      if (s.items) walk(s.items, `${at}[]`);
      (s.anyOf ?? []).forEach((sub: Schema) => walk(sub, at));
    };
    for (const [name, schema] of Object.entries(deref.components.schemas as Record<string, Schema>)) {
      if (!name.endsWith('Input')) walk(schema, name);
    }
    expect(loose).toEqual([]);
  });

  it('a body is required only where the API refuses none; the remove action declares the body it takes', async () => {
    for (const action of ['capture', 'refund', 'void']) {
      expect(doc.paths[`/sale/{id}/${action}/`].post.requestBody.required, action).toBe(false);
    }
    expect(doc.paths['/transaction/'].post.requestBody.required).toBe(true);
    const remove = deref.paths['/authorization/{id}/remove/'].post.requestBody;
    expect(remove.required).toBe(false);
    expect(remove.content['application/json'].schema).toMatchObject({ type: 'object', additionalProperties: false });
    const missing = '/authorization/01943a6e-0000-7000-8000-000000000000/remove/';
    expect((await api.request('POST', missing)).status).toBe(404);
    expect((await api.post(missing, { unknown: 1 })).status).toBe(400);
    expect((await api.request('POST', missing, { raw: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
  });

  it('declares the AppKeys scheme and requires it everywhere', () => {
    expect(doc.components.securitySchemes.AppKeys).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.components.securitySchemes.AppKeys.description).toMatch(/AppKeys <public_key>:<secret_key>/);
    expect(doc.security).toEqual([{ AppKeys: [] }]);
  });

  it('every shared schema is a real schema, not a reference to itself', () => {
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Schema>)) {
      expect(schema.$ref, name).not.toBe(`#/components/schemas/${name}`);
      expect(schema.type ?? schema.anyOf ?? schema.oneOf, name).toBeDefined();
    }
    const tx = deref.components.schemas.TransactionInput;
    expect(tx.type).toBe('object');
    expect(tx.properties.products.type).toBe('array');
  });

  it('TransactionInput requires currency and products and refuses what the API refuses', async () => {
    const schema = requestSchema('post', '/transaction/');
    expect(schema.required).toEqual(expect.arrayContaining(['currency', 'products']));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.language.enum).toEqual(['au', 'es', 'en', 'fr']);

    const refused: unknown[] = [
      { products: [{ amount: 1, product: { name: 'x', price: 1 } }] },
      { currency: 'EUR' },
      transactionBody({ currency: 'eur' }),
      transactionBody({ products: [] }),
      transactionBody({ products: [{ amount: 0, product: { name: 'x', price: 1 } }] }),
      transactionBody({ products: [{ amount: 1, product: { name: 'x', price: -1 } }] }),
      transactionBody({ products: [{ amount: 1, product: { name: 'x', price: 1e13 } }] }),
      transactionBody({ products: [{ amount: 1, product: { name: '', price: 1 } }] }),
      transactionBody({ products: [{ amount: 1, product: { name: 'x', price: 1, colour: 'red' } }] }),
      transactionBody({ products: [{ product: { name: 'x', price: 1 } }] }),
      transactionBody({ unknown: 1 }),
      transactionBody({ language: 'de' }),
      transactionBody({ gateway_selected: 'yes' }),
      transactionBody({ note: 'n'.repeat(2001) }),
      transactionBody({ tax: 'VAT' }),
      transactionBody({ source: [{ amount: 0 }] }),
    ];
    for (const body of refused) {
      expect(accepts(schema, body), JSON.stringify(body).slice(0, 200)).toBe(false);
      const res = await api.post('/transaction/', body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
    }
    expect(accepts(schema, transactionBody())).toBe(true);
  });

  it('a body the API accepts is never refused by the schema (random bodies)', async () => {
    const schema = requestSchema('post', '/transaction/');
    const product = (await api.post('/product/', { name: 'Mug', price: 2, currency: 'EUR' })).body.id;
    // Mostly good values with a bad one now and then, so both outcomes are common.
    const pick = <T, U>(good: T[], bad: U[]) =>
      fc.oneof({ arbitrary: fc.constantFrom(...good), weight: 12 }, { arbitrary: fc.constantFrom(...bad), weight: 1 });
    const line = fc.oneof(
      fc.record({
        amount: pick([1, 2.5, 0.001, 1000], [0, -1, 1e7, 0.0001, '1']),
        product: fc.record({ name: pick(['Mug', 'Tea'], ['', 7]), price: pick([0, 1.5, 3.33, 1e12], [-1, 1e13, 1.001, null]) }),
      }),
      fc.record({ amount: pick([1, 3], [0]), product_id: pick([product], ['nope', '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e']) }),
    );
    const body = fc.record(
      {
        currency: pick(['EUR'], ['eur', 'XYZ', 1]),
        products: fc.oneof({ arbitrary: fc.array(line, { minLength: 1, maxLength: 3 }), weight: 12 }, { arbitrary: fc.constant([]), weight: 1 }),
        language: pick(['en', 'fr', 'au', 'es'], ['de', 'EN']),
        gateway_selected: pick([true, false], ['yes']),
        return_url: pick(['https://shop.example/ok'], ['javascript:alert(1)', '/ok']),
        expired_date: pick(['2099-01-01T00:00:00Z', '2099-01-01T00:00:00+02:00'], ['soon', '2099-01-01']),
        tax_value: pick([0, 1.21], [-1, 1e13]),
        source: pick([null, [{ amount: 0.01 }]], [[{ amount: 0 }], {}]),
        extra: pick(['{"a":1}'], ['not json', 5]),
      },
      { requiredKeys: ['currency', 'products'] },
    );
    let accepted = 0;
    let refusedBySchema = 0;
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await api.post('/transaction/', b);
        expect(res.status).toBeLessThan(500);
        if (res.status === 201) {
          accepted++;
          expect(accepts(schema, b), JSON.stringify(b)).toBe(true);
        }
        // And where the schema refuses, so does the API.
        if (!accepts(schema, b)) {
          refusedBySchema++;
          expect(res.status, JSON.stringify(b)).toBe(400);
        }
      }),
      { numRuns: 120 },
    );
    expect(accepted).toBeGreaterThan(10);
    expect(refusedBySchema).toBeGreaterThan(10);
  });

  it('catalogue create and PATCH schemas match the API on required fields, unknown fields and empty PATCH', async () => {
    const creates: Record<string, { ok: Record<string, unknown>; required: string[] }> = {
      // The spec's product model has no currency: a product may leave it out.
      product: { ok: { name: 'P', price: 1 }, required: ['name', 'price'] },
      plan: { ok: { name: 'P', amount: 1, currency: 'EUR', interval: 'month' }, required: ['name', 'amount', 'currency', 'interval'] },
      tax: { ok: { name: 'VAT', rate: 21 }, required: ['name', 'rate'] },
      shipping: { ok: { name: 'S', price: 1, currency: 'EUR' }, required: ['name', 'price', 'currency'] },
      coupon: { ok: { name: 'C', kind: 'percent', value: 5 }, required: ['name', 'kind', 'value'] },
    };
    for (const [group, { ok, required }] of Object.entries(creates)) {
      const create = requestSchema('post', `/${group}/`);
      expect([...create.required].sort(), group).toEqual([...required].sort());
      expect(accepts(create, ok), group).toBe(true);
      expect(accepts(create, { ...ok, unknown: 1 }), group).toBe(false);
      const made = await api.post(`/${group}/`, ok);
      expect(made.status).toBe(201);
      for (const field of required) {
        const { [field]: _, ...missing } = ok;
        expect(accepts(create, missing), `${group} without ${field}`).toBe(false);
        expect((await api.post(`/${group}/`, missing)).status).toBe(400);
      }

      const patch = requestSchema('patch', `/${group}/{id}/`);
      expect(patch.required ?? [], group).toEqual([]);
      expect(accepts(patch, { name: 'Renamed' })).toBe(true);
      for (const bad of [{}, { unknown: 1 }, { name: '' }]) {
        expect(accepts(patch, bad), `${group} PATCH ${JSON.stringify(bad)}`).toBe(false);
        expect((await api.patch(`/${group}/${made.body.id}/`, bad)).status).toBe(400);
      }
    }
  });

  it('client schemas: the three required fields, real answers accepted, the file route binary', async () => {
    const create = requestSchema('post', '/client/');
    expect([...create.required].sort()).toEqual(['id_country', 'id_number', 'name']);
    expect(create.properties.client_type.anyOf ?? [create.properties.client_type]).toContainEqual(
      expect.objectContaining({ enum: ['individual', 'company'] }),
    );
    expect(accepts(create, clientBody())).toBe(true);
    expect(accepts(create, { ...clientBody(), enabled_by_compliance: true })).toBe(false);
    const response = (method: string, path: string, status: number) =>
      deref.paths[path][method].responses[String(status)].content['application/json'].schema;

    const client = (await api.post('/client/', clientBody())).body;
    expect(accepts(response('post', '/client/', 201), client)).toBe(true);
    expect(accepts(response('get', '/client/', 200), (await api.get('/client/')).body)).toBe(true);
    const iban = (await api.post(`/client/${client.id}/iban/`, { iban: IBANS.ES })).body;
    expect(accepts(response('get', '/client/{clientId}/iban/{id}/', 200), iban)).toBe(true);
    const doc = (await api.post(`/client/${client.id}/document/`, documentBody())).body;
    expect(accepts(response('get', '/client/{clientId}/document/{id}/', 200), doc)).toBe(true);
    expect(accepts(response('get', '/client/{clientId}/document/', 200), (await api.get(`/client/${client.id}/document/`)).body)).toBe(true);

    const upload = deref.paths['/client/{clientId}/document/'].post;
    expect(upload.responses['413']).toBeDefined();
    const file = deref.paths['/client/{clientId}/document/{id}/file/'].get.responses['200'].content;
    expect(Object.keys(file).sort()).toEqual(['application/pdf', 'image/jpeg', 'image/png', 'image/webp']);
    expect(deref.paths['/client/'].post.tags).toEqual(['Clients']);
  });

  it('response schemas describe what the API returns', async () => {
    const tx = await api.post('/transaction/', transactionBody());
    const schema = deref.paths['/transaction/'].post.responses['201'].content['application/json'].schema;
    expect(accepts(schema, tx.body)).toBe(true);
    expect(accepts(schema, { ...tx.body, status: 'X' })).toBe(false);
    const list = await api.get('/transaction/');
    expect(accepts(deref.paths['/transaction/'].get.responses['200'].content['application/json'].schema, list.body)).toBe(true);
    const coupon = await api.post('/coupon/', { name: 'C', kind: 'percent', value: 5 });
    expect(accepts(deref.paths['/coupon/{id}/'].get.responses['200'].content['application/json'].schema, coupon.body)).toBe(true);
    const currencies = await api.get('/currency/?code=EUR');
    expect(accepts(deref.paths['/currency/'].get.responses['200'].content['application/json'].schema, currencies.body)).toBe(true);
  });
});
