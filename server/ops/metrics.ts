import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Gateway } from '../payments/gateway';
import type { PayoutGateway } from '../payments/payout-gateway';
import type { Gateways } from '../payments/registry';
import { type Backlog, jobBacklog, unsettledCalls } from '../store/backlog';
import type { Database } from '../store/db';
import type { Limiter } from '../store/rate-limits';

// GET /metrics in the Prometheus text format, on when METRICS_TOKEN is set and only with
// `Authorization: Bearer <METRICS_TOKEN>`. Counted as things happen: requests by route
// pattern (never the raw path: it holds tokens and ids), gateway calls by gateway,
// operation and outcome, rate-limit refusals. Read at scrape time: the jobs' backlog and
// lag, unsettled gateway calls by state, the PostgreSQL pool. Nothing here is imported by
// the layers it measures: gateways, the limiter and the app are wrapped where they are
// built (service.ts, app.ts).

export interface Metrics {
  registry: Registry;
  /** Wrapped around the app: one observation per finished response. */
  observeRequest(req: IncomingMessage, res: ServerResponse, startedAt: number): void;
  gateways(gateways: Gateways): Gateways;
  payouts(payouts: PayoutGateway): PayoutGateway;
  limiter(limiter: Limiter): Limiter;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route as declared (`/v1/transaction/:id/`, `/pay/:token/`), or a fixed word when none matched. */
function routeLabel(req: IncomingMessage): string {
  const r = req as Partial<Request>;
  if (r.route?.path && typeof r.route.path === 'string') return `${r.baseUrl ?? ''}${r.route.path}`;
  const url = req.url ?? '';
  if (url.startsWith('/assets/')) return '/assets/*';
  if (url.startsWith('/v1/')) return '/v1/(no route)';
  return '(no route)';
}

/** What an adapter's answer says, in one word: `approved`, `declined`, `ok`, `refused`, a lookup's status. */
function outcomeOf(result: unknown): string {
  if (result && typeof result === 'object') {
    const r = result as { outcome?: unknown; ok?: unknown; status?: unknown };
    if (typeof r.outcome === 'string') return r.outcome;
    if (typeof r.ok === 'boolean') return r.ok ? 'ok' : 'refused';
    if (typeof r.status === 'string') return r.status;
  }
  return 'answered';
}

const errorOutcome = (err: unknown) => (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError') ? 'timeout' : 'error');

const GATEWAY_OPERATIONS = ['pay', 'capture', 'refund', 'void', 'charge', 'store', 'lookup'] as const;

/**
 * The gauges read from the database at scrape time, once per scrape: the registry asks
 * every metric at once, and they share one read while it runs.
 */
function registerDatabaseGauges(registry: Registry, o: { database: Database; now: () => Date }): void {
  let reading: Promise<{ backlog: Backlog[]; unsettled: { state: string; n: number }[]; now: Date }> | undefined;
  const snapshot = () =>
    (reading ??= (async () => {
      const now = o.now();
      return { now, backlog: await jobBacklog(o.database.db, now), unsettled: await unsettledCalls(o.database.db) };
    })().finally(() => {
      reading = undefined;
    }));
  new Gauge({
    name: 'checkout_job_backlog',
    help: 'Items due now and not yet handled, by queue',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      for (const b of (await snapshot()).backlog) this.set({ queue: b.queue }, b.due);
    },
  });
  new Gauge({
    name: 'checkout_job_lag_seconds',
    help: 'How long the oldest due item has waited, by queue (0 when none)',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      const { now, backlog } = await snapshot();
      for (const b of backlog) this.set({ queue: b.queue }, b.oldestDueAt ? Math.max(0, (now.getTime() - Date.parse(b.oldestDueAt)) / 1000) : 0);
    },
  });
  new Gauge({
    name: 'checkout_gateway_calls_unsettled',
    help: 'Gateway calls not settled for good, by state (attention: a person must look)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const { unsettled } = await snapshot();
      this.reset();
      for (const state of ['pending', 'abandoned']) this.set({ state }, 0);
      for (const c of unsettled) this.set({ state: c.state }, c.n);
    },
  });
  if (o.database.pool) {
    const stats = o.database.pool;
    new Gauge({
      name: 'checkout_db_pool_connections',
      help: 'PostgreSQL pool: connections total and idle, and callers waiting for one',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        for (const [state, n] of Object.entries(stats())) this.set({ state }, n);
      },
    });
  }
}

/** Gateway calls counted and timed by gateway, operation and outcome: `timed` wraps one call. */
function gatewayCallMetrics(registry: Registry) {
  const gatewayLabels = ['gateway', 'operation', 'outcome'] as const;
  const calls = new Counter({ name: 'checkout_gateway_calls_total', help: 'Gateway calls, by gateway, operation and outcome', labelNames: gatewayLabels, registers: [registry] });
  const callLatency = new Histogram({ name: 'checkout_gateway_call_duration_seconds', help: 'Gateway call time, by gateway, operation and outcome', labelNames: gatewayLabels, buckets: SECONDS, registers: [registry] });
  return function timed<T>(gateway: string, operation: string, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const record = (outcome: string) => {
      const l = { gateway, operation, outcome };
      calls.inc(l);
      callLatency.observe(l, (performance.now() - started) / 1000);
    };
    return call().then(
      (result) => (record(outcomeOf(result)), result),
      (err: unknown) => {
        record(errorOutcome(err));
        throw err;
      },
    );
  };
}

type Timed = ReturnType<typeof gatewayCallMetrics>;

/** A gateway with its operations timed. */
function timedGateway(g: Gateway, timed: Timed): Gateway {
  const wrapped: Record<string, unknown> = { ...g };
  for (const op of GATEWAY_OPERATIONS) {
    const method = g[op] as ((input: unknown) => Promise<unknown>) | undefined;
    if (method) wrapped[op] = (input: unknown) => timed(g.code, op, () => method.call(g, input));
  }
  return wrapped as unknown as Gateway;
}

export function createMetrics(o: { database: Database; now: () => Date }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labels = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'checkout_http_requests_total', help: 'HTTP requests answered, by route pattern and status', labelNames: labels, registers: [registry] });
  const latency = new Histogram({ name: 'checkout_http_request_duration_seconds', help: 'Time to answer, by route pattern and status', labelNames: labels, buckets: SECONDS, registers: [registry] });
  const timed = gatewayCallMetrics(registry);
  const refused = new Counter({ name: 'checkout_rate_limited_total', help: 'Requests refused by a rate limit, by policy', labelNames: ['policy'], registers: [registry] });
  registerDatabaseGauges(registry, o);
  return {
    registry,
    observeRequest(req, res, startedAt) {
      const l = { method: req.method ?? '', route: routeLabel(req), status: String(res.statusCode) };
      requests.inc(l);
      latency.observe(l, (performance.now() - startedAt) / 1000);
    },
    gateways: (gateways) => gateways.extend({ wrap: (g) => timedGateway(g, timed) }),
    payouts(payouts) {
      return { ...payouts, payout: (request) => timed(payouts.code, 'payout', () => payouts.payout(request)) };
    },
    limiter(limiter) {
      return {
        ...limiter,
        async take(key, policy, now) {
          const d = await limiter.take(key, policy, now);
          if (!d.allowed) refused.inc({ policy: policy.name });
          return d;
        },
      };
    },
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics behind `Authorization: Bearer <token>`: 401 without it or with another
 * token. The scheme in any case (RFC 9110 §11.1: `bearer` is Bearer); the token compared in
 * constant time (both sides hashed first, so lengths never differ).
 */
export function metricsHandler(metrics: Metrics, token: string): (req: IncomingMessage, res: ServerResponse) => void {
  const expected = digest(`Bearer ${token}`);
  const given = (header = '') => (/^bearer /i.test(header) ? `Bearer ${header.slice(7)}` : header);
  return (req, res) => {
    if (!timingSafeEqual(digest(given(req.headers.authorization)), expected)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="metrics"', 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      return void res.end('Send Authorization: Bearer <METRICS_TOKEN>\n');
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
        res.end(text);
      },
      () => {
        res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '5' });
        res.end('The metrics could not be read now (is the database away?)\n');
      },
    );
  };
}
