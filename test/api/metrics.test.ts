import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIsolatedService } from './database';
import { type Client, describeWithSqlite, ENGINES, startTestService, type TestService, transactionBody } from './harness';
import { payToken } from './pay';

// GET /metrics: Prometheus text behind a bearer token, off without one. Routes appear as
// their patterns, never with a token or an id; gateway calls, refusals, the jobs' backlog
// and the pool are there.

const TOKEN = 'metrics-token-for-tests-0123456789';

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(ENGINES)('metrics on %s', (engine) => {
  let t: TestService;
  let api: Client;
  // The clock stands still: the rate limit's bucket does not refill while the test runs.
  const frozen = new Date();
  const scrape = async () => {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  beforeAll(async () => {
    // A database of its own: the backlog counts every environment's events.
    t = await startIsolatedService(engine, { now: () => frozen, env: { METRICS_TOKEN: TOKEN, API_RATE_LIMIT: '20', ALLOW_PRIVATE_NOTIFY_URLS: 'true' } });
    api = await t.newEnvironment('Measured shop');
  });
  afterAll(() => t?.close());

  it('answers 401 without the bearer token or with another one', async () => {
    const none = await fetch(`${t.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    // The scheme is case-insensitive (RFC 9110); the token is not.
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: `bearer ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: `BEARER ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN.toUpperCase()}` } })).status).toBe(401);
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: TOKEN } })).status).toBe(401);
  });

  it('counts requests by route pattern, gateway calls by outcome, refusals, and reads the outbox backlog', async () => {
    const created = await api.post('/transaction/', transactionBody({ notify_url: 'http://127.0.0.1:9/hook' }));
    expect(created.status).toBe(201);
    const { id, token } = created.body as { id: string; token: string };
    expect((await api.get(`/transaction/${id}/`)).status).toBe(200);
    expect(await payToken(t.url, token)).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await api.get('/transaction/')).status);
    expect(statuses).toContain(429);

    const text = await scrape();
    expect(sample(text, 'checkout_http_requests_total{method="GET",route="/v1/transaction/:id/",status="200"}')).toBe(1);
    expect(sample(text, 'checkout_http_requests_total{method="POST",route="/pay/:token/",status="200"}')).toBe(1);
    expect(sample(text, 'checkout_http_request_duration_seconds_count{method="POST",route="/v1/transaction/",status="201"}')).toBe(1);
    expect(sample(text, 'checkout_gateway_calls_total{gateway="sandbox-card",operation="pay",outcome="approved"}')).toBe(1);
    expect(sample(text, 'checkout_gateway_call_duration_seconds_count{gateway="sandbox-card",operation="pay",outcome="approved"}')).toBe(1);
    expect(sample(text, 'checkout_rate_limited_total{policy="api"}')).toBeGreaterThanOrEqual(1);
    // Jobs are off in tests: the payment's event waits in the outbox.
    expect(sample(text, 'checkout_job_backlog{queue="outbox"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'checkout_job_lag_seconds{queue="outbox"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'checkout_job_backlog{queue="reconciliation"}')).toBe(0);
    expect(sample(text, 'checkout_gateway_calls_unsettled{state="pending"}')).toBe(0);
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    if (engine === 'postgres') expect(sample(text, 'checkout_db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    // Neither the payment's token nor its id ever becomes a label.
    expect(text).not.toContain(token);
    expect(text).not.toContain(id);
    // The scrapes themselves are not counted as requests.
    expect(text).not.toContain('route="/metrics"');
  });
});

describeWithSqlite('metrics off', () => {
  it('without METRICS_TOKEN, /metrics is a 404', async () => {
    const t = await startTestService('sqlite');
    try {
      expect((await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
