import { dereference } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { assertContract } from './contract';
import { createWallet, newClientId } from './ledger';
import { ENGINES, transactionBody, useTestService } from './harness';
import { SANDBOX_CARD } from './pay';
import { type StripeDouble, startStripeDouble } from '../stripe/server';

// A property-based fuzz of every operation of the OpenAPI document, over real HTTP on both
// engines: requests generated from the document's own schemas (valid by schema), and
// mutated ones (wrong types, huge numbers, control characters, unpaired surrogates, deep
// nesting, missing and unknown fields, ids that are not UUIDs or name nothing, broken
// percent-escapes), with the real key pair, none, or a wrong one. No answer may be a 5xx,
// every answer must be one the document declares, and a request valid by the document may
// be refused only for a rule it cannot state (BEYOND_THE_DOCUMENT), while one the document
// refuses (checked with ajv) is never accepted; every 400 names its fields. FUZZ_RUNS runs
// more (default 1000 per engine); FUZZ_SEED replays a failure (the seed is printed with it).

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: string; required?: boolean; schema: Schema }[];
  body?: Schema;
  /**
   * The body's schema compiled (ajv), to tell which generated bodies the document refuses;
   * compiled on first use, so the service's idle keep-alive connections are not left to
   * time out while every schema compiles.
   */
  validate?: () => ValidateFunction;
}

// `base64` is not one of ajv-formats' names: declared here, checked by the `pattern` that
// zod writes beside it (z.base64()), rather than ignored with a warning per schema.
const ajv = new Ajv2020({ strict: false, formats: { base64: true } });
addFormats.default(ajv);

/** JSON text the schema refuses; text that is not JSON (or too deep to parse) is refused too. */
function refusedBy(validate: () => ValidateFunction, text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return true;
  }
  return !validate()(value);
}

function lazily<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
interface FuzzRequest {
  op: string;
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: string;
  /** Valid by the document's schemas (apart from ids, which may name nothing). */
  valid: boolean;
  /** Everything but the body is valid (query, content type, Idempotency-Key). */
  restValid: boolean;
  /** The body is JSON that the operation's schema in the document refuses. */
  bodyRefusedByDocument: boolean;
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = Number(process.env.FUZZ_SEED ?? 25);

/** Values that break naive code: the edges of numbers, and text no database should see. */
const NASTY_NUMBERS = [1e308, -1e308, 2 ** 53 + 2, 2 ** 63, 1e21, -0, 5e-324, 0.1 + 0.2, -1, 1e-7, 123456789.12345];
const NASTY_TEXT = ['\u0000', 'a\u0000b', '\u0007', '\ud800', 'x\udfff', '\u0085', '\u007f', '\u2028', '\ufeff', '%ff', '../../etc', "'; drop table x; --", '😀'.repeat(200)];
/** In bodies also a long text (a URL that long would pass Node's header limit, a 431 before the service). */
const NASTY_STRINGS = [...NASTY_TEXT, 'x'.repeat(70_000)];

/** JSON nested `depth` deep, as text (JSON.stringify would recurse as deep). */
const nested = (depth: number, open: '[' | '{') =>
  open === '[' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** Percent-encodes every UTF-8 byte: any string becomes a path segment (an unpaired surrogate as U+FFFD). */
const segment = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** A string's patterns: its own and those of an `allOf` (zod writes a second regex there). */
const patternsOf = (schema: Schema): string[] => [schema.pattern, ...(schema.allOf ?? []).map((s: Schema) => s.pattern)].filter(Boolean);

function textArb(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 40, 40);
  const inLength = (s: string) => s.length >= min && s.length <= (schema.maxLength ?? Infinity);
  const patterns = patternsOf(schema);
  if (patterns.length) {
    const res = patterns.map((p) => new RegExp(p, 'u'));
    // The text rule's patterns: text of any script; others (codes, ids) from the pattern itself.
    const textRule = patterns.find((p) => p.startsWith('^(?:[^\\u0000'));
    const base = textRule ? fc.string({ unit: 'grapheme', minLength: min, maxLength: max }) : fc.stringMatching(new RegExp(patterns[0]!));
    return base.filter((s) => res.every((re) => re.test(s)) && inLength(s));
  }
  return fc.string({ unit: 'grapheme', minLength: min, maxLength: max }).filter(inLength);
}

/** Values valid by `schema` (a dereferenced JSON Schema of the document). */
function valueArb(schema: Schema, ids: string[], name = '', depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  // Either-or fields (`product_id` or `product`): an object with a oneOf of `required`
  // lists is one of those objects, each with its own field and without the others'.
  const choices: Schema[] | undefined = schema.oneOf;
  if (schema.properties && choices?.every((c) => Object.keys(c).join() === 'required')) {
    const { oneOf: _, ...object } = schema;
    return fc.oneof(
      ...choices.map((choice) => {
        const others = choices.flatMap((c) => c.required).filter((k: string) => !choice.required.includes(k));
        const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !others.includes(k)));
        return valueArb({ ...object, properties, required: [...(schema.required ?? []), ...choice.required] }, ids, name, depth);
      }),
    );
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((s: Schema) => valueArb(s, ids, name, depth)));
  // An allOf of patterns belongs to a string (textArb reads them); any other is merged.
  if (schema.allOf && !schema.allOf.every((s: Schema) => Object.keys(s).join() === 'pattern')) {
    return valueArb(Object.assign({}, ...schema.allOf), ids, name, depth);
  }
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'string'];
  if (types.length > 1) return fc.oneof(...types.map((type) => valueArb({ ...schema, type }, ids, name, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum : -1e6);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum : 1e6);
      const ok = (n: number) =>
        n >= min && n <= max && (schema.exclusiveMinimum === undefined || n > schema.exclusiveMinimum) && (schema.exclusiveMaximum === undefined || n < schema.exclusiveMaximum);
      if (types[0] === 'integer') return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)) }).filter(ok);
      // Mostly amounts people write (two decimals), sometimes any double in range.
      return fc.oneof(fc.integer({ min: 0, max: 100_000 }).map((c) => c / 100), fc.double({ min, max, noNaN: true, noDefaultInfinity: true })).filter(ok);
    }
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const items = valueArb(schema.items ?? {}, ids, name, depth + 1);
      const size = { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) };
      return schema.uniqueItems ? fc.uniqueArray(items, { ...size, selector: (v) => JSON.stringify(v) }) : fc.array(items, size);
    }
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const record = Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, valueArb(s, ids, key, depth + 1)]));
      return fc.record(record, { requiredKeys: (schema.required ?? []).filter((k: string) => k in properties) });
    }
  }
  // Strings, by format first, then by what the field names.
  if (schema.format === 'date-time') {
    // Any offset the pattern allows: near the year 9999 one can move the instant past it.
    return fc
      .tuple(fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), fc.constantFrom('Z', '+01:00', '-23:59', '+14:00'))
      .map(([d, offset]) => d.toISOString().replace('Z', schema.pattern?.includes('[+-]') ? offset : 'Z'));
  }
  if (schema.format === 'date') return fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  const matches = (text: string) => patternsOf(schema).every((p) => new RegExp(p, 'u').test(text));
  if (schema.format === 'email') return fc.emailAddress().filter((e) => e.length <= (schema.maxLength ?? 254) && matches(e));
  if (schema.contentMediaType === 'application/json') {
    return fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)).filter((t) => t.length <= (schema.maxLength ?? Infinity) && matches(t));
  }
  if (schema.format === 'uri') return fc.webUrl({ validSchemes: ['https'] }).filter((u) => u.length <= (schema.maxLength ?? 2048));
  if (schema.format === 'uuid' || schema.pattern === '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$') {
    return fc.oneof(fc.constantFrom(...ids), fc.uuid({ version: 7 }));
  }
  if (name === 'currency') return fc.constantFrom('EUR', 'USD', 'JPY', 'KWD', 'GBP');
  if (name === 'number') return fc.constantFrom(...Object.values(TEST_CARDS), '4242424242424241');
  if (name === 'iban') return fc.constantFrom('ES9121000418450200051332', 'DE89 3704 0044 0532 0130 00', 'XX00');
  return textArb(schema);
}

/** A JSON value, with the nasty ones likely. */
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...NASTY_NUMBERS, ...NASTY_STRINGS, null, true, [], {}),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** One change to a valid value: a field replaced, dropped or added, at any depth. */
function mutate(value: unknown): fc.Arbitrary<unknown> {
  if (value === null || typeof value !== 'object') return nastyValue;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const choices: fc.Arbitrary<unknown>[] = [nastyValue.map((v) => (Array.isArray(value) ? [...value, v] : { ...value, [`x_${typeof v}`]: v }))];
  for (const [key, child] of entries) {
    const put = (v: unknown) => (Array.isArray(value) ? value.map((c, i) => (String(i) === key ? v : c)) : { ...value, [key]: v });
    choices.push(mutate(child).map(put), nastyValue.map(put));
    if (!Array.isArray(value)) choices.push(fc.constant(Object.fromEntries(entries.filter(([k]) => k !== key))));
  }
  return fc.oneof(...choices);
}

/** A path parameter: one of our ids most often, else anything a client could put there. */
const pathParam = (ids: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...ids) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(segment) },
    { weight: 1, arbitrary: fc.constantFrom('%ff', '%E0%A4%A', '%00', '%', 'x'.repeat(5000), '..', '%2F', 'null', '0') },
  );

function requestArb(op: Operation, ids: string[], auth: string): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters.filter((p) => p.in === 'path');
  const queries = op.parameters.filter((p) => p.in === 'query');
  const path = fc.tuple(...params.map(() => pathParam(ids))).map((values) => params.reduce((p, param, i) => p.replace(`{${param.name}}`, values[i]!), op.path));
  // The long poll's `wait` is always sent, as 0 or 1: any other wait the document allows is
  // seconds of real time (its default, 20 s, cost the run minutes); its range is still
  // tried by the invalid queries below.
  const queryValue = (q: Operation['parameters'][number]) => (q.name === 'wait' ? fc.constantFrom('0', '1') : fc.option(valueArb(q.schema, ids, q.name), { nil: undefined }));
  const validQuery = fc.tuple(...queries.map(queryValue)).map((values) =>
    queries.flatMap((q, i): [string, string][] => (values[i] === undefined ? [] : [[q.name, String(values[i])]])),
  );
  const query = fc.oneof(
    { weight: 3, arbitrary: validQuery.map((pairs) => ({ pairs, valid: true })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          validQuery,
          fc.constantFrom(...queries.map((q) => q.name), 'unknown'),
          fc.oneof(fc.constantFrom(...NASTY_TEXT, '1e3', '-1', '99999999999999999999', ''), fc.string({ unit: 'binary', maxLength: 20 })),
          fc.boolean(),
        )
        .map(([valid, name, value, repeat]) => ({ pairs: [...valid, [name, value], ...(repeat ? [[name, value]] : [])] as [string, string][], valid: false })),
    },
  );
  const validBody = op.body ? valueArb(op.body, ids) : fc.constant(undefined);
  const body = fc.oneof(
    { weight: 3, arbitrary: validBody.map((b) => ({ text: b === undefined ? undefined : JSON.stringify(b), valid: true })) },
    { weight: 3, arbitrary: validBody.chain((b) => mutate(b ?? {})).map((b) => ({ text: JSON.stringify(b), valid: false })) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.integer({ min: 1, max: 40_000 }).chain((depth) => fc.constantFrom(nested(depth, '['), nested(Math.min(depth, 15_000), '{'))),
        fc.constantFrom('{', 'null', '"x"', '[]', '{"a":1}{', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'),
      ).map((text) => ({ text, valid: false })),
    },
  );
  // Mostly our key pair; without one, or a wrong one, a request stops at the authentication.
  const authorization = fc.oneof(
    { weight: 16, arbitrary: fc.constant<string | undefined>(auth) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(auth.replace(/:.*/, ':wrong')) },
    { weight: 1, arbitrary: fc.constantFrom('AppKeys', 'Bearer x', 'AppKeys a:b:c', `AppKeys ${'x'.repeat(5000)}:y`) },
  );
  const contentType = fc.oneof(
    { weight: 10, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/merge-patch+json') },
  );
  const idempotencyKey = fc.option(
    fc.oneof(fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 8 }).map((k) => `fz-${k.replace(/[^\x21-\x7e]/g, '_')}`), fc.constantFrom(' ', 'x'.repeat(300))),
    { nil: undefined, freq: 3 },
  );
  const headers = fc.tuple(authorization, contentType, idempotencyKey).map(([a, type, key]): Record<string, string> => ({
    'content-type': type,
    ...(a === undefined ? {} : { authorization: a }),
    ...(key === undefined || op.method !== 'post' ? {} : { 'idempotency-key': key }),
  }));
  return fc.record({ path, query, body, headers }).map(({ path, query, body, headers }) => {
    const restValid =
      query.valid && headers['content-type'] === 'application/json' && (headers['idempotency-key'] === undefined || /^[\x21-\x7e]{1,255}$/.test(headers['idempotency-key']));
    const sent = op.method === 'get' || op.method === 'delete' ? undefined : body.text;
    return {
      op: `${op.method.toUpperCase()} ${op.path}`,
      method: op.method.toUpperCase(),
      path,
      query: query.pairs,
      headers,
      body: sent,
      valid: body.valid && restValid,
      restValid,
      bodyRefusedByDocument: sent !== undefined && op.validate !== undefined && refusedBy(op.validate, sent),
    };
  });
}

/**
 * Why a request valid by the document may still be refused: the rules docs/api.md ("What the
 * document states, and what it cannot") lists, which depend on other fields or on stored
 * objects. Matched on the problem's message for the field.
 */
const BEYOND_THE_DOCUMENT: [string, RegExp][] = [
  ['references', /^is not an? [\w ]+ of this environment$|^is not a gateway|^must be the id \(a UUID\) of an existing|^is not a card gateway|^is not active/],
  ['the clock', /^is in the future$|^must be in the future$|^must be within the years 0000 to 9999 in UTC$/],
  ['decimals per currency', /^must have at most \d+ decimal places?$|^must be a whole number$/],
  ['digits a number carries', /^has more than 15 significant digits/],
  ['the processor', /^is a (live|test) key: |^Stripe refused this/],
  [
    'rules across fields',
    /percent coupon|fixed coupon|^does not match the bytes|^without a currency, at most|^must end with \.\w+( or \.\w+)? for |^is only for clients of client_type|^is not a valid phone number|IBAN|^is not a valid card number$|^must be a month and year|^has the wrong number of digits|add up to|at most the sale|^give (either )?payout|^from and to go together|^must not be before from|stands alone: it already takes every event$/,
  ],
];

describe.each(ENGINES)('fuzz of every operation (%s)', (engine) => {
  // A processor's key is checked at Stripe: the test double answers (never Stripe itself).
  let stripe: StripeDouble;
  beforeAll(async () => {
    stripe = await startStripeDouble();
  });
  afterAll(() => stripe.close());
  const svc = useTestService(engine, undefined, () => ({ STRIPE_API_URL: stripe.url }));

  it(`answers ${RUNS} generated requests without a 5xx, as the document declares`, { timeout: 240_000 }, async () => {
    const { api } = svc;
    // Objects to name in paths and bodies, so generated requests reach the use cases.
    const authorization = (await api.post('/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'F' } })).body.id;
    const sale = (await api.post(`/authorization/${authorization}/charge/`, { amount: 5, currency: 'EUR' })).body.id;
    const transaction = (await api.post('/transaction/', transactionBody())).body.id;
    const product = (await api.post('/product/', { name: 'Mug', price: 1 })).body.id;
    const plan = (await api.post('/plan/', { name: 'Pro', amount: 9.99, currency: 'EUR', interval: 'month' })).body.id;
    const client = await newClientId(api);
    const wallet = (await createWallet(api, { client_id: client })).id;
    const ids = [authorization, sale, transaction, product, plan, client, wallet, SANDBOX_CARD];
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const document = await dereference((await api.get('/openapi.json')).body);
    const operations: Operation[] = [];
    for (const [path, item] of Object.entries(document.paths ?? {}) as [string, Schema][]) {
      for (const method of ['get', 'post', 'patch', 'delete']) {
        const op = item[method];
        if (!op) continue;
        const body = op.requestBody?.content?.['application/json']?.schema;
        operations.push({ method, path, parameters: op.parameters ?? [], body, validate: body ? lazily(() => ajv.compile(body)) : undefined });
      }
    }
    expect(operations.length).toBeGreaterThan(60);

    const refusedValid = new Map<string, number>();
    const statuses = new Map<number, number>();
    const property = fc.asyncProperty(fc.oneof(...operations.map((op) => requestArb(op, ids, api.auth))), async (req) => {
      const qs = req.query.length ? `?${new URLSearchParams(req.query)}` : '';
      const url = `${api.url}/v1${req.path}${qs}`;
      const res = await fetch(url, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) throw new Error(`${req.method} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
      assertContract(req.method, url, res.status, res.headers, text);
      const ours = req.headers.authorization === api.auth;
      if (res.status === 400 && ours) {
        const named = (JSON.parse(text) as { errors?: { path: string }[] }).errors ?? [];
        if (!named.length || named.some((e) => !e.path)) throw new Error(`${req.method} ${url}: a 400 that names no field: ${text.slice(0, 300)}`);
      }
      // A body the document refuses, in an otherwise proper request, is never accepted.
      if (ours && req.body !== undefined && req.bodyRefusedByDocument && req.restValid && res.status < 300) {
        throw new Error(`${req.method} ${url} accepted (${res.status}) a body the document refuses: ${req.body.slice(0, 300)}`);
      }
      if (req.valid && res.status === 400 && ours) {
        // A request valid by the document may be refused only for a rule docs/api.md lists
        // as beyond what a schema can state, and the problem must name the field.
        const errors = (JSON.parse(text) as { errors?: { path: string; message: string }[] }).errors ?? [];
        if (!errors.length) throw new Error(`${req.method} ${url}: a 400 without errors: ${text.slice(0, 300)}`);
        for (const e of errors) {
          const key = `${req.op} ${e.path}: ${e.message}`;
          refusedValid.set(key, (refusedValid.get(key) ?? 0) + 1);
        }
      }
    });
    const result = await fc.check(property, { numRuns: RUNS, seed: SEED, endOnFailure: !process.env.FUZZ_SHRINK });
    if (result.failed) {
      // Short: a generated request can hold 70,000 characters.
      const request = JSON.stringify(result.counterexample?.[0], (_k, v: unknown) => (typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}…(${v.length})` : v));
      const error = (result.errorInstance as Error | undefined)?.message ?? String(result.errorInstance);
      throw new Error(`fuzz failed after ${result.numRuns} requests; FUZZ_SEED=${result.seed} FUZZ_RUNS=${RUNS} replays it (FUZZ_SHRINK=1 shrinks it):\n${error.slice(0, 1500)}\nrequest: ${request}`);
    }
    if (process.env.FUZZ_REPORT) {
      console.log(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
      for (const [key, n] of [...refusedValid].sort((a, b) => b[1] - a[1])) console.log(`valid by the document, refused: ${n} × ${key}`);
    }
    // The document is as strict as the API: what it allows is refused only for a rule it cannot state.
    const undocumented = [...refusedValid.keys()].filter((key) => !BEYOND_THE_DOCUMENT.some(([, rule]) => rule.test(key.slice(key.indexOf(': ') + 2))));
    expect(undocumented, 'requests valid by the document, refused for a rule it does not state').toEqual([]);
    // The generator reaches the rules it should: some generated requests were valid and accepted.
    expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0)).toBeGreaterThan(RUNS / 10);
  });
});
