import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shareSize } from '../../server/domain/rate-limit';
import { updateEnvironment } from '../../server/store/environments';
import { createLimiter } from '../../server/store/rate-limits';
import { type Client, describeWithSqlite, ENGINES, problemPaths, startTestService, type TestService, transactionBody } from './harness';
import { startIsolatedService } from './database';
import { freshCard, payWithCard } from './pay';
import { createKeysHere, processScope } from './process';

// Rate limits: the API's per environment (API_RATE_LIMIT per second, burst of the same
// size, or the environment's own), one card across payments, and per client address on
// the pages that write without a payment of their own. The service's clock stands still
// in these tests, so nothing refills while they run unless they move it.

describe.each(ENGINES)('rate limits on %s', (engine) => {
  let t: TestService;
  let api: Client;
  let at = Date.now();
  const now = () => new Date(at);

  beforeAll(async () => {
    t = await startIsolatedService(engine, { now, env: { API_RATE_LIMIT: '5', IP_RATE_LIMIT: '3' } });
    api = await t.newEnvironment('Limited shop');
  });
  afterAll(() => t?.close());

  it('takes API_RATE_LIMIT requests at once, says so in RateLimit headers, then answers 429 problem+json with Retry-After', async () => {
    const other = await t.newEnvironment('Other shop');
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.get('/transaction/');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"api";q=5;w=1');
      remaining.push(res.headers.get('ratelimit')!);
    }
    expect(remaining).toEqual(['"api";r=4;t=1', '"api";r=3;t=1', '"api";r=2;t=1', '"api";r=1;t=1', '"api";r=0;t=1']);
    const refused = await api.post('/transaction/', transactionBody());
    expect(refused.status).toBe(429);
    expect(problemPaths(refused)).toEqual([]);
    expect(refused.body.type).toBe('urn:problem:rate-limited');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit')).toBe('"api";r=0;t=1');
    // Nothing was created by the refused request; another environment has its own bucket.
    expect((await other.get('/transaction/')).status).toBe(200);
    at += 200;
    expect(await api.count('/transaction/')).toBe(0);
    expect((await api.get('/transaction/')).status).toBe(429);
    at += 1000;
    expect((await api.get('/transaction/')).status).toBe(200);
  });

  it('forgets the buckets that are full again (the sweep job)', async () => {
    const sweep = () => t.service.jobs.runOnce('rate-limit-sweep');
    at += 60 * 60_000;
    await sweep();
    const fresh = await t.newEnvironment('Swept');
    expect((await fresh.get('/transaction/')).headers.get('ratelimit')).toBe('"api";r=4;t=1');
    // A bucket still refilling is kept: forgetting it would hand out a fresh burst.
    await sweep();
    expect((await fresh.get('/transaction/')).headers.get('ratelimit')).toBe('"api";r=3;t=1');
    at += 1000;
    expect(await sweep()).toBeGreaterThanOrEqual(1);
  });

  it('an environment may have a limit of its own (keys CLI: set --rate-limit)', async () => {
    const own = await t.newEnvironment('Own limit');
    await updateEnvironment(t.service.deps.database.db, own.keys.environment_id, { rateLimit: 2 });
    expect((await own.get('/transaction/')).headers.get('ratelimit-policy')).toBe('"api";q=2;w=1');
    expect((await own.get('/transaction/')).status).toBe(200);
    expect((await own.get('/transaction/')).status).toBe(429);
  });

  it('one card is tried on at most 10 payments in 10 minutes, then the page answers 429 and nothing is charged', async () => {
    at += 60_000;
    const card = freshCard();
    const payer = await t.newEnvironment('Card shop');
    const tokens: { id: string; token: string }[] = [];
    for (let i = 0; i < 11; i++) {
      at += 1000;
      const res = await payer.post('/transaction/', transactionBody());
      expect(res.status).toBe(201);
      tokens.push(res.body);
    }
    for (const tx of tokens.slice(0, 10)) expect((await payWithCard(t.url, tx.token, card)).status).toBe(200);
    const last = tokens.at(-1)!;
    const refused = await payWithCard(t.url, last.token, card);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBe(60);
    const body = (await refused.json()) as { view: { error: { message: string } } };
    expect(body.view.error.message).toBe('error.tooManyAttempts');
    at += 1000;
    expect((await payer.get(`/sale/?transaction_id=${last.id}`)).body.count).toBe(0);
    // Another card still pays it.
    expect((await payWithCard(t.url, last.token, freshCard())).status).toBe(200);
  });

  it('limits sign-up and provider-return posts per client address with a 429 page', async () => {
    const signup = `${t.url}/pay/sub_${'a'.repeat(32)}/`;
    const provider = `${t.url}/pay/${'b'.repeat(32)}/return/gc_00000000-0000-7000-8000-000000000000/`;
    for (const url of [signup, provider]) {
      for (let i = 0; i < 3; i++) expect((await fetch(url, { method: 'POST' })).status).toBe(404);
      const refused = await fetch(url, { method: 'POST', headers: { 'accept-language': 'es' } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(Number(refused.headers.get('retry-after'))).toBe(20);
      expect(await refused.text()).toContain('Demasiadas solicitudes');
    }
  });
});

describeWithSqlite('client addresses behind a proxy', () => {
  it('with TRUST_PROXY each forwarded address has its own count; without it the proxy is one client', async () => {
    for (const trusted of [true, false]) {
      const t = await startTestService('sqlite', { env: { IP_RATE_LIMIT: '1', ...(trusted ? { TRUST_PROXY: 'true' } : {}) } });
      try {
        const post = (ip: string) => fetch(`${t.url}/pay/sub_${'c'.repeat(32)}/`, { method: 'POST', headers: { 'x-forwarded-for': ip } });
        expect((await post('203.0.113.1')).status).toBe(404);
        expect((await post('203.0.113.2')).status).toBe(trusted ? 404 : 429);
        expect((await post('203.0.113.1')).status).toBe(429);
      } finally {
        await t.close();
      }
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('a hot key on PostgreSQL takes its tokens a share at a time', () => {
  let t: TestService;
  let at = Date.now();
  const now = () => new Date(at);
  const bucketOf = async (api: Client) =>
    (
      await sql<{ tat: number; granted: number }>`select tat, granted from rate_limits where key = ${`api:${api.keys.environment_id}`}`.execute(
        t.service.deps.database.db,
      )
    ).rows[0];

  beforeAll(async () => {
    t = await startIsolatedService('postgres', { now, env: { API_RATE_LIMIT: '100' } });
  });
  afterAll(() => t?.close());

  it('one UPSERT takes 10 of 100 a second; the next 9 requests spend them without it, the headers counting them', async () => {
    const api = await t.newEnvironment('Hot shop');
    const start = at;
    const remaining: string[] = [];
    for (let i = 0; i < 10; i++) remaining.push((await api.get('/transaction/')).headers.get('ratelimit')!);
    expect(remaining).toEqual([99, 98, 97, 96, 95, 94, 93, 92, 91, 90].map((r) => `"api";r=${r};t=1`));
    // Ten intervals of 10 ms taken at once, and the row untouched by the nine after.
    expect(await bucketOf(api)).toEqual({ tat: start + 100, granted: 10 });
    expect((await api.get('/transaction/')).headers.get('ratelimit')).toBe('"api";r=89;t=1');
    expect(await bucketOf(api)).toEqual({ tat: start + 200, granted: 10 });
    // A share is good for 100 ms of the service's clock: after it, the bucket is asked again,
    // and the 9 tokens the last share left unspent go back before the next 10 are taken.
    at += 150;
    expect((await api.get('/transaction/')).headers.get('ratelimit')).toBe('"api";r=99;t=1');
    expect(await bucketOf(api)).toEqual({ tat: start + 250, granted: 10 });
  });

  it('processes that each spend a token of every share take from the bucket only what they spend', async () => {
    // Two limiters on one database, as two processes have, each making one request per
    // share at 20 a second together: kept shares would spend the 100 a second twice as fast.
    const processes = [createLimiter(t.service.deps.database), createLimiter(t.service.deps.database)];
    const policy = { name: 'api', limit: 100, windowMs: 1000 };
    const key = `api:quiet-${randomInt(1e9)}`;
    const start = at;
    for (let round = 0; round < 30; round++) {
      at += 100;
      for (const limiter of processes) expect((await limiter.take(key, policy, now())).allowed, `round ${round}`).toBe(true);
    }
    const { tat } = (await sql<{ tat: number }>`select tat from rate_limits where key = ${key}`.execute(t.service.deps.database.db)).rows[0]!;
    // 60 requests in 3 s: the bucket is as near full as the two shares held (9 tokens each) leave it.
    expect(at - start).toBe(3000);
    expect(tat - at).toBeLessThanOrEqual(200);
  });

  it('the 100 of a burst are all admitted, the 101st refused, whatever the shares', async () => {
    const api = await t.newEnvironment('Burst');
    const statuses = await Promise.all(Array.from({ length: 120 }, () => api.get('/transaction/').then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
  });
});

const { environment, started } = processScope();

describe.skipIf(!process.env.TEST_DATABASE_URL)('one API limit across two service processes on PostgreSQL', () => {
  // 5: a token at a time; 40: shares of 4 (each process may end holding 3 it does not spend).
  it.each([
    { limit: 5, requests: 60 },
    { limit: 40, requests: 120 },
  ])('the 200s of $requests parallel requests through both stay within one limit of $limit', { timeout: 120_000 }, async ({ limit, requests }) => {
    const env = await environment('postgres', { API_RATE_LIMIT: String(limit) });
    const keys = await createKeysHere('Two processes', env);
    const warmUp = await createKeysHere('Warm-up', env);
    const processes = await Promise.all([started(env), started(env)]);
    // First requests compile and connect: made with other keys, so the measured burst is short.
    for (const p of processes) await fetch(`${p.url}/v1/transaction/`, { headers: { authorization: `AppKeys ${warmUp.public_key}:${warmUp.secret_key}` } });
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}` };
    const startedAt = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: requests }, (_, i) => fetch(`${processes[i % 2]!.url}/v1/transaction/`, { headers }).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    const seconds = (performance.now() - startedAt) / 1000;
    const ok = statuses.filter((s) => s === 200).length;
    // One bucket refilling at `limit` a second: two buckets of their own would give twice the burst.
    expect(ok).toBeGreaterThanOrEqual(limit - 2 * (shareSize({ name: 'api', limit, windowMs: 1000 }) - 1));
    expect(ok).toBeLessThanOrEqual(limit + Math.ceil(seconds * limit));
    expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
  });
});
