import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOG_OPTIONS } from '../../server/http/logging';
import { processorGatewayLoader } from '../../server/payments/processor-gateways';
import { STRIPE_CARD_ID, type StripeCardGateway } from '../../server/payments/stripe/gateway';
import { createEnvironment } from '../../server/store/environments';
import { type StripeDouble, startStripeDouble } from '../stripe/server';
import { Client, ENGINES, problemPaths, startTestService, type TestService } from './harness';

// Processors connected per environment (issue 45): POST / GET / PATCH / DELETE
// /v1/processor/ over HTTP on both engines, against the Stripe test double (STRIPE_API_URL):
// the key checked with one call to the double and refused when it refuses it, the modes
// of keys and environments never crossed, one processor of a type, write-only secrets
// (never in an answer, nor in any line of the service's log), isolation between
// environments, and the gateway loader the registry calls: `active` without a deleted
// processor, `all` with it, rotated keys in force at once.

let serial = 0;
/** Keys as Stripe shapes them, unique per call so a leak names its test; the last four differ each time. */
const keys = (mode: 'test' | 'live' = 'test') => {
  const n = String(++serial).padStart(4, '0');
  return {
    secret_key: `sk_${mode}_51Zz${'x'.repeat(40)}S${n}`,
    webhook_secret: `whsec_Wh${'y'.repeat(24)}${n}`,
    publishable_key: `pk_${mode}_51Zz${'z'.repeat(40)}P${n}`,
  };
};
const connect = (api: Client, over: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  api.request('POST', '/processor/', { body: { type: 'stripe', ...keys(), ...over }, headers });

/** A logger like the service's own (its redaction included), whose lines the test keeps. */
function capturedLog() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, log: pino({ level: 'trace', ...LOG_OPTIONS }, stream) };
}

describe.each(ENGINES)('processors on %s', (engine) => {
  let t: TestService;
  let double: StripeDouble;
  let api: Client;
  const log = capturedLog();
  /** Every answer's text: no secret may be in any. */
  const answers: string[] = [];
  const sent: string[] = [];
  const balanceCalls = () => double.requests.filter((r) => r.path === '/v1/balance').length;

  beforeAll(async () => {
    double = await startStripeDouble();
    t = await startTestService(engine, { env: { STRIPE_API_URL: double.url, LOG_LEVEL: 'trace' }, log: log.log });
  });
  afterAll(async () => {
    await t.close();
    await double.close();
    // Every secret sent, in no answer and in no line of the log.
    expect(sent.length).toBeGreaterThan(10);
    const everything = [...answers, ...log.lines].join('\n');
    for (const secret of sent) expect(everything.includes(secret) ? everything.split('\n').find((l) => l.includes(secret)) : null, secret).toBeNull();
    expect(log.lines.some((l) => l.includes('processor connected'))).toBe(true);
  });
  beforeEach(async () => {
    api = await t.newEnvironment();
  });

  /** Sends and keeps the answer's text, and the secrets sent, for the checks at the end. */
  async function send(method: string, path: string, body?: Record<string, unknown>, client = api, headers?: Record<string, string>) {
    // The keys of `keys()` (the bad inputs' short texts, such as "secret", are no secret).
    for (const k of ['secret_key', 'webhook_secret', 'publishable_key']) if (typeof body?.[k] === 'string' && (body[k] as string).length > 24) sent.push(body[k] as string);
    const res = await client.request(method, path, { body, headers });
    answers.push(res.text);
    // Never a 5xx of ours: a 502 only says Stripe failed.
    expect(res.status < 500 || res.status === 502, `${method} ${path}: ${res.status}`).toBe(true);
    return res;
  }

  it('connects Stripe, lists, reads, rotates and disconnects it', async () => {
    const k = keys();
    const calls = balanceCalls();
    const created = await send('POST', '/processor/', { type: 'stripe', ...k, statement_descriptor: 'SHOP EXAMPLE' });
    expect(created.status).toBe(201);
    const p = created.body;
    expect(p).toEqual({
      id: expect.any(String),
      type: 'stripe',
      livemode: false,
      gateways: [STRIPE_CARD_ID],
      webhook_url: `${t.url}/processors/${p.id}/events/`,
      secret_key_last4: k.secret_key.slice(-4),
      statement_descriptor: 'SHOP EXAMPLE',
      created: expect.any(String),
      updated: expect.any(String),
    });
    // One call to Stripe, with the key given.
    expect(balanceCalls()).toBe(calls + 1);
    expect((await send('GET', '/processor/')).body).toMatchObject({ count: 1, next: null, previous: null, results: [p] });
    expect((await send('GET', `/processor/${p.id}/`)).body).toEqual(p);

    const rotated = keys();
    const patched = await send('PATCH', `/processor/${p.id}/`, { secret_key: rotated.secret_key, webhook_secret: rotated.webhook_secret });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: p.id, secret_key_last4: rotated.secret_key.slice(-4), statement_descriptor: 'SHOP EXAMPLE' });
    expect(balanceCalls()).toBe(calls + 2);
    // A new webhook secret alone asks Stripe nothing.
    expect((await send('PATCH', `/processor/${p.id}/`, { webhook_secret: keys().webhook_secret, statement_descriptor: null })).body).toMatchObject({ statement_descriptor: null });
    expect(balanceCalls()).toBe(calls + 2);

    expect((await send('DELETE', `/processor/${p.id}/`)).status).toBe(204);
    expect((await send('GET', `/processor/${p.id}/`)).status).toBe(404);
    expect((await send('PATCH', `/processor/${p.id}/`, { webhook_secret: keys().webhook_secret })).status).toBe(404);
    expect((await send('DELETE', `/processor/${p.id}/`)).status).toBe(404);
    expect((await send('GET', '/processor/')).body).toMatchObject({ count: 0, results: [] });
    // Deleted, a processor of the same type can be connected again.
    expect((await send('POST', '/processor/', { type: 'stripe', ...keys() })).status).toBe(201);
  });

  it('names the replaced Stripe URL: a warning at start, and on /health/ready', async () => {
    const warning = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'processor URLs replaced: tests only');
    expect(warning).toMatchObject({ level: 40, processor_urls: { STRIPE_API_URL: double.url } });
    const ready = await fetch(`${t.url}/health/ready`);
    expect(await ready.json()).toMatchObject({ status: 'ok', processor_urls: { STRIPE_API_URL: double.url } });
  });

  it('keeps the credentials sealed at rest', async () => {
    const k = keys();
    const { body } = await send('POST', '/processor/', { type: 'stripe', ...k });
    const row = await t.service.deps.database.db
      .selectFrom('processors')
      .select((eb) => [eb.ref('credentials').as('stored')])
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row.stored).toMatch(/^sealed:v1:/);
    for (const secret of Object.values(k)) expect(row.stored).not.toContain(secret);
  });

  it('refuses a second processor of a type (409 naming type) without asking Stripe', async () => {
    expect((await send('POST', '/processor/', { type: 'stripe', ...keys() })).status).toBe(201);
    const calls = balanceCalls();
    const second = await send('POST', '/processor/', { type: 'stripe', ...keys() });
    expect(second.status).toBe(409);
    problemPaths(second);
    expect(second.body.detail).toMatch(/^type: /);
    expect(balanceCalls()).toBe(calls);
  });

  it('refuses live keys in a sandbox, naming the field, before asking Stripe', async () => {
    const calls = balanceCalls();
    const live = keys('live');
    const res = await send('POST', '/processor/', { type: 'stripe', ...live });
    expect(res.status).toBe(400);
    expect(problemPaths(res).sort()).toEqual(['publishable_key', 'secret_key']);
    const mixed = await send('POST', '/processor/', { type: 'stripe', ...keys(), publishable_key: live.publishable_key });
    expect(problemPaths(mixed)).toEqual(['publishable_key']);
    expect(balanceCalls()).toBe(calls);
    expect((await send('GET', '/processor/')).body.count).toBe(0);
  });

  it('refuses a key Stripe refuses (400 naming secret_key), storing nothing, on connect and on rotation', async () => {
    const k = keys();
    double.revokeKey(k.secret_key);
    const res = await send('POST', '/processor/', { type: 'stripe', ...k });
    expect(res.status).toBe(400);
    expect(problemPaths(res)).toEqual(['secret_key']);
    expect(double.requests.at(-1)).toMatchObject({ path: '/v1/balance', status: 401 });
    expect((await send('GET', '/processor/')).body.count).toBe(0);

    const { body: p } = await send('POST', '/processor/', { type: 'stripe', ...keys() });
    const revoked = keys().secret_key;
    double.revokeKey(revoked);
    const rotation = await send('PATCH', `/processor/${p.id}/`, { secret_key: revoked });
    expect(problemPaths(rotation)).toEqual(['secret_key']);
    expect((await send('GET', `/processor/${p.id}/`)).body.secret_key_last4).toBe(p.secret_key_last4);
  });

  it('answers 502 and stores nothing when Stripe fails, and replays a keyed connect without asking again', async () => {
    double.failNext({ method: 'GET', path: /^\/v1\/balance$/ });
    const failed = await send('POST', '/processor/', { type: 'stripe', ...keys() });
    expect(failed.status).toBe(502);
    problemPaths(failed);
    expect((await send('GET', '/processor/')).body.count).toBe(0);

    const body = { type: 'stripe', ...keys() };
    const first = await send('POST', '/processor/', body, api, { 'Idempotency-Key': 'connect-1' });
    const calls = balanceCalls();
    const again = await send('POST', '/processor/', body, api, { 'Idempotency-Key': 'connect-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(balanceCalls()).toBe(calls);
  });

  it('keeps each environment to its own processors (another one\'s is a 404)', async () => {
    const { body: p } = await send('POST', '/processor/', { type: 'stripe', ...keys() });
    const other = await t.newEnvironment('Other shop');
    expect((await send('GET', `/processor/${p.id}/`, undefined, other)).status).toBe(404);
    expect((await send('PATCH', `/processor/${p.id}/`, { webhook_secret: keys().webhook_secret }, other)).status).toBe(404);
    expect((await send('DELETE', `/processor/${p.id}/`, undefined, other)).status).toBe(404);
    expect((await send('GET', '/processor/', undefined, other)).body.count).toBe(0);
    // Its own Stripe account may be connected beside it.
    expect((await send('POST', '/processor/', { type: 'stripe', ...keys() }, other)).status).toBe(201);
    expect((await send('GET', `/processor/${p.id}/`)).status).toBe(200);
  });

  it('names every bad field of a bad input, never a 5xx', async () => {
    const k = keys();
    const cases: [Record<string, unknown>, string[]][] = [
      // The type says which fields a processor takes: without it, only the type is named.
      [{}, ['type']],
      [{ type: 'stripe' }, ['secret_key', 'webhook_secret', 'publishable_key']],
      [{ type: 'adyen', ...k }, ['type']],
      [{ type: 'stripe', ...k, secret_key: 'pk_test_abc' }, ['secret_key']],
      [{ type: 'stripe', ...k, secret_key: 'sk_test_' + 'a'.repeat(300) }, ['secret_key']],
      [{ type: 'stripe', ...k, webhook_secret: 'secret' }, ['webhook_secret']],
      [{ type: 'stripe', ...k, publishable_key: 42 }, ['publishable_key']],
      // Stripe's rules for the suffix it is sent as: 18 characters at most (its account's prefix, of 2 or more, and `* ` take the rest of 22), a letter, none of <>\\'"*, Latin.
      [{ type: 'stripe', ...k, statement_descriptor: 'A'.repeat(19) }, ['statement_descriptor']],
      [{ type: 'stripe', ...k, statement_descriptor: '12345678' }, ['statement_descriptor']],
      [{ type: 'stripe', ...k, statement_descriptor: 'SHOP "QUOTED"' }, ['statement_descriptor']],
      [{ type: 'stripe', ...k, statement_descriptor: 'SHOP <B>' }, ['statement_descriptor']],
      [{ type: 'stripe', ...k, statement_descriptor: 'BACK\\SLASH' }, ['statement_descriptor']],
      [{ type: 'stripe', ...k, statement_descriptor: "IT'S" }, ['statement_descriptor']],
      [{ type: 'stripe', ...k, statement_descriptor: 'CAFÉ' }, ['statement_descriptor']],
      [{ type: 'stripe', ...k, livemode: true }, ['livemode']],
    ];
    for (const [body, paths] of cases) {
      const res = await send('POST', '/processor/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(problemPaths(res).sort(), JSON.stringify(body)).toEqual([...paths].sort());
    }
    const { body: p } = await send('POST', '/processor/', { type: 'stripe', ...keys() });
    for (const [body, paths] of [
      [{}, ['(body)']],
      [{ type: 'stripe' }, ['(body)', 'type']],
      [{ secret_key: null }, ['secret_key']],
      [{ statement_descriptor: 'STAR*' }, ['statement_descriptor']],
    ] as [Record<string, unknown>, string[]][]) {
      const res = await send('PATCH', `/processor/${p.id}/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(problemPaths(res).sort(), JSON.stringify(body)).toEqual(paths);
    }
    expect((await send('GET', '/processor/not-an-id/')).status).toBe(404);
  });

  it('loads the gateways: active without a deleted processor, all with it; rotated keys in force at once', async () => {
    const load = processorGatewayLoader({ db: t.service.deps.database.db, config: t.service.deps.config, log: t.service.deps.log });
    const environmentId = api.keys.environment_id;
    expect(await load(environmentId)).toEqual({ active: [], all: [] });
    const k = keys();
    const { body: p } = await send('POST', '/processor/', { type: 'stripe', ...k });
    const first = await load(environmentId);
    expect(first.active.map((g) => g.id)).toEqual(p.gateways);
    expect(first.active[0]).toMatchObject({ code: 'stripe-card', sandbox: true });
    // The same version: the same gateway, not built again.
    expect((await load(environmentId)).active[0]).toBe(first.active[0]);

    // The old key revoked at Stripe, the new one connected: the gateway uses the new one at once.
    const rotated = keys().secret_key;
    await send('PATCH', `/processor/${p.id}/`, { secret_key: rotated });
    double.revokeKey(k.secret_key);
    const after = await load(environmentId);
    expect(after.active[0]).not.toBe(first.active[0]);
    const ask = (g: unknown) => (g as StripeCardGateway).holdExpiry({ reference: 'hold-expiry-check', payment: 'pi_unknown', signal: AbortSignal.timeout(5000) }).catch((e: { statusCode?: number }) => e.statusCode);
    expect(await ask(first.active[0])).toBe(401);
    expect(await ask(after.active[0])).toBe(404);

    await send('DELETE', `/processor/${p.id}/`);
    const deleted = await load(environmentId);
    expect(deleted.active).toEqual([]);
    expect(deleted.all.map((g) => g.id)).toEqual([STRIPE_CARD_ID]);
    expect(await ask(deleted.all[0])).toBe(404);
    // Connected again: the new account is active and first in `all`, where the deleted
    // account's gateway stays, after it, for the rows it made (registry.ts resolves a row by
    // its account, a bare id to the first).
    const { body: again } = await send('POST', '/processor/', { type: 'stripe', ...keys() });
    const reconnected = await load(environmentId);
    expect(reconnected.active).toHaveLength(1);
    expect(reconnected.all[0]).toBe(reconnected.active[0]);
    expect(reconnected.all.map((g) => [g.id, g.account])).toEqual([
      [STRIPE_CARD_ID, again.id],
      [STRIPE_CARD_ID, p.id],
    ]);
    expect(again.gateways).toEqual([STRIPE_CARD_ID]);
  });
});

describe.each(ENGINES)('processors of live environments on %s', (engine) => {
  let double: StripeDouble;
  beforeAll(async () => {
    double = await startStripeDouble({ liveKeys: true });
  });
  afterAll(() => double.close());

  const liveClient = async (t: TestService) => new Client(t.url, await createEnvironment(t.service.deps.database.db, { name: 'Live shop', mode: 'live', now: new Date() }));

  it('take live keys only, and the double only with PROCESSOR_URLS_IN_LIVE', async () => {
    const t = await startTestService(engine, { env: { STRIPE_API_URL: double.url, PROCESSOR_URLS_IN_LIVE: 'true' } });
    try {
      const live = await liveClient(t);
      const test = await connect(live);
      expect(test.status).toBe(400);
      expect(problemPaths(test).sort()).toEqual(['publishable_key', 'secret_key']);
      const created = await connect(live, keys('live'));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ livemode: true, gateways: [STRIPE_CARD_ID] });
      const load = processorGatewayLoader({ db: t.service.deps.database.db, config: t.service.deps.config, log: t.service.deps.log });
      const [gateway] = (await load(live.keys.environment_id)).active;
      expect(gateway).toMatchObject({ sandbox: false });
      expect(gateway!.testData).toBeUndefined();
      // A live account lists no test card: Stripe's work in its test mode only.
      const listed = await live.get(`/gateway/${STRIPE_CARD_ID}/`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.test_cards).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('cannot connect while STRIPE_API_URL points at a double without PROCESSOR_URLS_IN_LIVE; sandboxes still can', async () => {
    const t = await startTestService(engine, { env: { STRIPE_API_URL: double.url } });
    try {
      const live = await liveClient(t);
      const calls = double.requests.length;
      const refused = await connect(live, keys('live'));
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(/STRIPE_API_URL/);
      expect(double.requests.length).toBe(calls);
      expect((await live.get('/processor/')).body.count).toBe(0);
      expect((await connect(await t.newEnvironment())).status).toBe(201);
    } finally {
      await t.close();
    }
  });
});
