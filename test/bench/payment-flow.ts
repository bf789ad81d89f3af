import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { SANDBOX_CARD_ID } from '../../server/payments/sandbox';
import { getTransaction } from '../../server/store/transactions';
import { createTransaction, openStore, transactionBody, type Store } from './data';
import { type Answer, send } from './http-client';
import { counterDelta, type CounterDelta, type DbCounters, ownDatabase, type OwnDatabase, type PgbenchResult, pgbenchTpcb } from './payment-db';
import { pgAddress, startWireProxy, throughProxy, type WireCounts } from './pg-wire';
import { postgresCpuMs } from './processes';
import { type RawResult, sqliteInsertRate } from './raw';
import { freePort, startService, type Target } from './targets';

// The end-to-end payment (issue 49, part 1: the measuring half). Each payment, as a
// merchant and a customer make it, over HTTP against the service run as `npm run dev` runs
// it (targets.ts): create (POST /v1/transaction/ with an Idempotency-Key) → the payment page
// (GET /pay/{token}/) → pay with the sandbox card through the page's JSON post (the csrf
// from the page, as test/api/pay.ts and the hydrated screen do) → read the sale (GET
// /v1/sale/?transaction_id=) → refund it (POST /v1/sale/{id}/refund/) → its `sale.refunded`
// webhook received by a local endpoint (a webhook endpoint registered through the API; the
// delivery job sends it, every 500 ms). N payments, `concurrency` at a time (a worker goes
// on to its next payment once the refund has answered; the run ends when the last webhook
// has arrived); the service's background jobs on, as in production.
//
// The sandbox's simulated latency: off (the sandbox answers in the service's process at
// once) for every run of throughput; with `sandboxLatencyMs`, one more configuration,
// PostgreSQL with one process, runs with SANDBOX_LATENCY_MS set (each call of the sandbox
// gateway to its "processor" waits that long, payments/sandbox-latency.ts): the latency a
// customer and a merchant's server would meet with a processor that far away.
//
// Per payment: the service processes' CPU (from /proc, as the rest of the bench), and on
// PostgreSQL, from pg_stat_database of a database of its own: committed and rolled-back
// transactions, row writes (tup_inserted + updated + deleted), WAL (pg_current_wal_lsn(),
// the cluster's: other databases' writes included), and statements (pg_stat_statements when
// loaded, else counted on the wire in a separate pass: pg-wire.ts); the WAL that is this
// database's own from pg_walinspect (payment-db.ts), since the cluster's is mostly other
// sessions' on a shared machine. PostgreSQL's CPU is all its processes' (other sessions'
// too), so given gross, as a bound. The jobs poll even when
// nothing happens: each figure is also given net of what the same processes did in an idle
// window measured just before (same run), which is what a payment itself costs.

export interface LatencyStats {
  p50: number;
  p99: number;
}

const STEPS = ['create', 'page', 'pay', 'sale', 'refund', 'webhook'] as const;
export type Step = (typeof STEPS)[number];

export interface PaymentRun {
  engine: 'sqlite' | 'postgres';
  processes: number;
  /** SANDBOX_LATENCY_MS of the run's processes: 0, latency off. */
  sandboxLatencyMs: number;
  concurrency: number;
  payments: number;
  failures: number;
  /** Payments whose webhook arrived, per second of the run (first create → last webhook). */
  perSecond: number;
  seconds: number;
  /** Service CPU ms per payment, all processes; net: minus the idle window's rate. */
  cpuMs: number;
  cpuMsNet: number;
  /**
   * The bench's own CPU (its HTTP client, the webhook receiver) per payment: on the same two
   * cores as the service, so it bounds the payments a second as much as the service's does.
   */
  clientCpuMs: number;
  /**
   * PostgreSQL's CPU over the run per payment: all its processes on the machine, other
   * sessions' too, and those that exit take their CPU out of the sum: in the JSON only, not
   * in the table (it was negative in a run on the shared machine).
   */
  postgresCpuMs?: number;
  /** Milliseconds per step; `webhook`: from the refund's answer to the delivery's arrival. */
  latency: Record<Step, LatencyStats>;
  /** PostgreSQL only: counters per payment, gross and net of the idle window's rate. */
  db?: { gross: PerPayment; net: PerPayment };
}

export interface PerPayment {
  commits: number;
  rollbacks: number;
  rowWrites: number;
  /** The cluster's WAL over the run, other databases' included. */
  walBytes: number;
  /** This database's WAL (pg-walinspect, payment-db.ts); null without it. */
  ownWalBytes: number | null;
  statements: number | null;
}

export interface PaymentResults {
  payments: number;
  warmup: number;
  concurrency: number[];
  sandboxLatency: string;
  /** Where the statement counts come from. */
  statementsSource: 'pg_stat_statements' | 'wire' | null;
  runs: PaymentRun[];
  /** The idle windows' rates, per configuration: what the jobs cost with no payment. */
  idle: { engine: string; processes: number; seconds: number; cpuMsPerSecond: number; commitsPerSecond?: number; walBytesPerSecond?: number; ownWalBytesPerSecond?: number | null }[];
  pgbench?: PgbenchResult;
  sqliteInsert?: RawResult;
  /** Statements counted on the wire: 1 process, one payment at a time, net of its idle window. */
  wire?: {
    payments: number;
    perPayment: { statements: number; roundTrips: number; transactionControl: number };
    /** Statements per payment in each request's time, net of the idle jobs' rate; the rest of perPayment is the jobs' work for it. */
    byRequest: Partial<Record<Step, number>>;
    idle: WireCounts & { seconds: number };
  };
}

export interface PaymentOptions {
  payments: number;
  /**
   * Payments each process serves unmeasured before a configuration's runs, at the highest
   * concurrency. A short warm-up measures the service still warming: with 16, four runs of
   * 600 payments one after the other took 69, 78, 89 and 85 payments a second (SQLite, 8 at
   * a time; docs/performance-changelog.md).
   */
  warmup: number;
  concurrency: number[];
  /** Seconds of each idle window (the jobs' own cost) and of pgbench. */
  idleSeconds: number;
  pgbenchSeconds: number;
  /** > 0: a "latency on" configuration too (PostgreSQL, or SQLite without it; one process). */
  sandboxLatencyMs: number;
  /**
   * Where the sandbox keeps its books (SANDBOX_BOOKS): `memory` by default, since a real
   * processor's books are not in our database and the statement budget is our service's;
   * `database` measures what the default deployment's sandbox adds.
   */
  sandboxBooks: 'memory' | 'database';
  work: string;
  logFile: string;
  progress: (message: string) => void;
  /** `--cpu-prof`: the measured services write V8 profiles here. */
  cpuProfDir?: string;
  /** Another checkout to run the service from (`--payment-baseline`); default: this one. */
  root?: string;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! : NaN);

/** The local webhook endpoint: the arrival time of each sale's `sale.refunded`. */
async function startReceiver(): Promise<{ url: string; arrival(saleId: string, timeoutMs: number): Promise<number>; close(): Promise<void> }> {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      try {
        const event = JSON.parse(body) as { type?: string; data?: { id?: string } };
        const id = event.data?.id;
        if (event.type !== 'sale.refunded' || !id) return;
        arrived.set(id, at);
        waiting.get(id)?.(at);
      } catch {
        // not an event of ours
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    arrival(saleId, timeoutMs) {
      const at = arrived.get(saleId);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no sale.refunded webhook for ${saleId} within ${timeoutMs} ms`)), timeoutMs);
        waiting.set(saleId, (t) => (clearTimeout(timer), waiting.delete(saleId), resolve(t)));
      });
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

function expectStatus({ status: answered, text }: Answer, status: number, what: string): string {
  if (answered !== status) throw new Error(`${what} answered ${answered}: ${text.slice(0, 300)}`);
  return text;
}

/**
 * One whole payment against `baseUrl`, each step's milliseconds into `times`. Resolves when
 * the refund has answered, with the wait for its webhook: the caller starts the next payment
 * meanwhile (a merchant does not stop selling while a webhook is on its way, and the delivery
 * job's period, 500 ms, would otherwise bound a worker to two payments a second).
 */
async function onePayment(baseUrl: string, auth: string, receiver: Receiver, times: Record<Step, number[]>, onStep?: StepHook): Promise<{ webhook: Promise<void> }> {
  const json = { authorization: auth, 'content-type': 'application/json' };
  onStep?.('start');
  let t = performance.now();
  const lap = (step: Step) => {
    const now = performance.now();
    times[step].push(now - t);
    t = now;
    onStep?.(step);
  };
  const created = JSON.parse(
    expectStatus(
      await send(`${baseUrl}/v1/transaction/`, { method: 'POST', headers: { ...json, 'idempotency-key': randomUUID() }, body: JSON.stringify(transactionBody(1)) }),
      201,
      'POST /v1/transaction/',
    ),
  ) as { id: string; token: string };
  lap('create');
  const html = expectStatus(await send(`${baseUrl}/pay/${created.token}/`), 200, 'GET /pay/{token}/');
  const csrf = /"csrf":"([^"]+)"/.exec(html)?.[1];
  if (!csrf) throw new Error('no csrf on the payment page');
  lap('page');
  const fields = { card_number: TEST_CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'Bench' };
  expectStatus(
    await send(`${baseUrl}/pay/${created.token}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ action: 'pay', gateway: SANDBOX_CARD_ID, fields }),
    }),
    200,
    'POST /pay/{token}/ (pay)',
  );
  lap('pay');
  const sales = JSON.parse(expectStatus(await send(`${baseUrl}/v1/sale/?transaction_id=${created.id}`, { headers: json }), 200, 'GET /v1/sale/')) as { results: { id: string }[] };
  const saleId = sales.results[0]?.id;
  if (!saleId) throw new Error(`no sale for ${created.id}`);
  lap('sale');
  expectStatus(await send(`${baseUrl}/v1/sale/${saleId}/refund/`, { method: 'POST', headers: json, body: '{}' }), 200, 'POST /v1/sale/{id}/refund/');
  lap('refund');
  const refunded = t;
  // Wrapped: an async function's returned promise would be awaited with it.
  return { webhook: receiver.arrival(saleId, 30_000).then((at) => void times.webhook.push(at - refunded)) };
}

/** Told as a payment starts and as each of its requests has answered (the wire pass counts statements by request). */
type StepHook = (step: Step | 'start') => void;

/** `count` payments, `concurrency` at a time, spread over the targets in turn. */
async function payments(targets: Target[], auth: string, receiver: Receiver, count: number, concurrency: number, onStep?: StepHook) {
  const times = Object.fromEntries(STEPS.map((s) => [s, [] as number[]])) as Record<Step, number[]>;
  const errors: string[] = [];
  const failed = (err: unknown) => void errors.push(err instanceof Error ? err.message : String(err));
  const webhooks: Promise<void>[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await onePayment(targets[i % targets.length]!.url, auth, receiver, times, onStep).then(({ webhook }) => webhooks.push(webhook.catch(failed)), failed);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  // The run ends when the last webhook has arrived.
  await Promise.all(webhooks);
  const seconds = (performance.now() - started) / 1000;
  const latency = Object.fromEntries(
    STEPS.map((s) => {
      const sorted = times[s].sort((a, b) => a - b);
      return [s, { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }];
    }),
  ) as Record<Step, LatencyStats>;
  return { seconds, errors, latency };
}

const cpuOf = (targets: Target[]) => targets.reduce((sum, t) => sum + (t.cpuMs() ?? NaN), 0);

/** Stats of a backend reach pg_stat_database at most once a second, and once it is idle: let them. */
const settled = async (db: OwnDatabase) => (await sleep(1500), db.counters());

async function registerEndpoint(baseUrl: string, auth: string, url: string): Promise<void> {
  const res = await send(`${baseUrl}/v1/webhook_endpoint/`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url, enabled_events: ['sale.refunded'], description: 'bench' }),
  });
  expectStatus(res, 201, 'POST /v1/webhook_endpoint/');
}

type Delta = CounterDelta & { ownWalBytes: number | null };

const perPayment = (d: Delta, n: number): PerPayment => ({
  commits: d.commits / n,
  rollbacks: d.rollbacks / n,
  rowWrites: d.rowWrites / n,
  walBytes: d.walBytes / n,
  ownWalBytes: d.ownWalBytes === null ? null : d.ownWalBytes / n,
  statements: d.statements === null ? null : d.statements / n,
});

/** `d` minus what the idle window's rate makes over `seconds`. */
function net(d: Delta, idle: Delta): Delta {
  const k = d.seconds / idle.seconds;
  const less = (x: number | null, y: number | null) => (x === null || y === null ? null : x - y * k);
  return {
    seconds: d.seconds,
    commits: d.commits - idle.commits * k,
    rollbacks: d.rollbacks - idle.rollbacks * k,
    rowWrites: d.rowWrites - idle.rowWrites * k,
    walBytes: d.walBytes - idle.walBytes * k,
    ownWalBytes: less(d.ownWalBytes, idle.ownWalBytes),
    statements: less(d.statements, idle.statements),
  };
}

async function delta(db: OwnDatabase, a: DbCounters, b: DbCounters): Promise<Delta> {
  return { ...counterDelta(a, b), ownWalBytes: await db.ownWal(a, b) };
}

interface Config {
  engine: 'sqlite' | 'postgres';
  processes: number;
  sandboxLatencyMs: number;
  dataDir: string;
  databaseUrl: string | null;
  db: OwnDatabase | null;
  store: Store;
}

/** Start the processes, warm them up, measure an idle window, then one run per concurrency. */
async function measureConfig(c: Config, o: PaymentOptions, receiver: Receiver, out: PaymentResults): Promise<void> {
  const targets: Target[] = [];
  try {
    // A real processor's books are not in our database, and the statement budget is our service's (docs/performance.md).
    const env = { SANDBOX_LATENCY_MS: String(c.sandboxLatencyMs), SANDBOX_BOOKS: o.sandboxBooks };
    for (let i = 0; i < c.processes; i++) targets.push(await startService({ port: await freePort(), dataDir: c.dataDir, databaseUrl: c.databaseUrl, logFile: o.logFile, env, cpuProfDir: o.cpuProfDir, root: o.root }));
    // Unmeasured: JIT, pools, the key check's cache, on every process.
    const warm = await payments(targets, c.store.auth, receiver, o.warmup * c.processes, Math.max(...o.concurrency));
    if (warm.errors.length) throw new Error(`warm-up: ${warm.errors[0]}`);
    const idleCpu0 = cpuOf(targets);
    const idle0 = c.db ? await settled(c.db) : null;
    const idleStart = performance.now();
    await sleep(o.idleSeconds * 1000);
    const idle1 = c.db ? await settled(c.db) : null;
    const idleSeconds = (performance.now() - idleStart) / 1000;
    const idleDelta = c.db && idle0 && idle1 ? await delta(c.db, idle0, idle1) : null;
    const cpuIdleRate = (cpuOf(targets) - idleCpu0) / idleSeconds;
    out.idle.push({
      engine: c.engine,
      processes: c.processes,
      seconds: idleSeconds,
      cpuMsPerSecond: cpuIdleRate,
      ...(idleDelta
        ? {
            commitsPerSecond: idleDelta.commits / idleDelta.seconds,
            walBytesPerSecond: idleDelta.walBytes / idleDelta.seconds,
            ownWalBytesPerSecond: idleDelta.ownWalBytes === null ? null : idleDelta.ownWalBytes / idleDelta.seconds,
          }
        : {}),
    });
    for (const concurrency of o.concurrency) {
      const before: DbCounters | null = c.db ? await settled(c.db) : null;
      const cpu0 = cpuOf(targets);
      const pg0 = postgresCpuMs();
      const client0 = process.cpuUsage();
      const r = await payments(targets, c.store.auth, receiver, o.payments, concurrency);
      const client = process.cpuUsage(client0);
      const cpu = cpuOf(targets) - cpu0;
      const pgCpu = postgresCpuMs() - pg0;
      const after = c.db ? await settled(c.db) : null;
      const done = o.payments - r.errors.length;
      const run: PaymentRun = {
        engine: c.engine,
        processes: c.processes,
        sandboxLatencyMs: c.sandboxLatencyMs,
        concurrency,
        payments: o.payments,
        failures: r.errors.length,
        perSecond: done / r.seconds,
        seconds: r.seconds,
        cpuMs: cpu / done,
        cpuMsNet: (cpu - cpuIdleRate * r.seconds) / done,
        clientCpuMs: (client.user + client.system) / 1000 / done,
        latency: r.latency,
      };
      if (c.engine === 'postgres') run.postgresCpuMs = pgCpu / done;
      if (c.db && before && after && idleDelta) {
        const d = await delta(c.db, before, after);
        run.db = { gross: perPayment(d, done), net: perPayment(net(d, idleDelta), done) };
      }
      out.runs.push(run);
      const db = run.db ? ` · ${run.db.net.commits.toFixed(1)} commits, ${Math.round(run.db.net.ownWalBytes ?? NaN)} B own WAL per payment (net)` : '';
      o.progress(`payments ${c.engine} ${c.processes}p ${concurrency}c: ${run.perSecond.toFixed(1)}/s, CPU ${run.cpuMsNet.toFixed(1)} ms/payment (bench ${run.clientCpuMs.toFixed(1)})${db}${r.errors.length ? `, ${r.errors.length} FAILED: ${r.errors[0]}` : ''}`);
    }
  } finally {
    for (const t of targets) await t.stop();
  }
}

/** Statements and round trips per payment through the counting proxy: one process, one payment at a time. */
async function wirePass(db: OwnDatabase, baseUrl: string, c: Omit<Config, 'processes' | 'databaseUrl' | 'sandboxLatencyMs'>, o: PaymentOptions, receiver: Receiver): Promise<PaymentResults['wire']> {
  const proxy = await startWireProxy(pgAddress(baseUrl));
  const target = await startService({ port: await freePort(), dataDir: c.dataDir, databaseUrl: throughProxy(db.url, proxy.port), logFile: o.logFile, env: { SANDBOX_BOOKS: o.sandboxBooks }, root: o.root });
  try {
    const n = Math.min(o.payments, 20);
    const warm = await payments([target], c.store.auth, receiver, 3, 1);
    if (warm.errors.length) throw new Error(`wire warm-up: ${warm.errors[0]}`);
    const i0 = proxy.counts();
    const idleStart = performance.now();
    await sleep(o.idleSeconds * 1000);
    const i1 = proxy.counts();
    const idleSeconds = (performance.now() - idleStart) / 1000;
    const idleRate = (i1.statements - i0.statements) / idleSeconds;
    // Each request's statements: those between its start and its answer, less the idle
    // jobs' rate over that time. What the jobs do for the payment (its balance transaction,
    // its webhook) falls between requests and in the rest.
    const byRequest: Partial<Record<Step, number>> = {};
    let mark = { at: performance.now(), statements: proxy.counts().statements };
    const onStep: StepHook = (step) => {
      const now = { at: performance.now(), statements: proxy.counts().statements };
      if (step !== 'start') byRequest[step] = (byRequest[step] ?? 0) + now.statements - mark.statements - (idleRate * (now.at - mark.at)) / 1000;
      mark = now;
    };
    const r0 = proxy.counts();
    const r = await payments([target], c.store.auth, receiver, n, 1, onStep);
    const r1 = proxy.counts();
    if (r.errors.length) throw new Error(`wire pass: ${r.errors[0]}`);
    const k = r.seconds / idleSeconds;
    const per = (key: keyof WireCounts) => (r1[key] - r0[key] - (i1[key] - i0[key]) * k) / n;
    return {
      payments: n,
      perPayment: { statements: per('statements'), roundTrips: per('roundTrips'), transactionControl: per('transactionControl') },
      byRequest: Object.fromEntries(Object.entries(byRequest).map(([step, count]) => [step, count / n])),
      idle: { seconds: idleSeconds, statements: i1.statements - i0.statements, roundTrips: i1.roundTrips - i0.roundTrips, transactionControl: i1.transactionControl - i0.transactionControl },
    };
  } finally {
    await target.stop();
    await proxy.close();
  }
}

/** SQLite with one process; with `pgUrl`, PostgreSQL with 1 and 2 processes; the references. */
export async function paymentBench(o: PaymentOptions, pgUrl: string | undefined): Promise<PaymentResults> {
  // A webhook endpoint on 127.0.0.1 is refused unless the service allows private URLs.
  process.env.ALLOW_PRIVATE_NOTIFY_URLS = 'true';
  const out: PaymentResults = {
    payments: o.payments,
    warmup: o.warmup,
    concurrency: o.concurrency,
    sandboxLatency: o.sandboxLatencyMs > 0 ? `off, and ${o.sandboxLatencyMs} ms a call where marked (SANDBOX_LATENCY_MS)` : 'off (SANDBOX_LATENCY_MS=0)',
    statementsSource: null,
    runs: [],
    idle: [],
  };
  const receiver = await startReceiver();
  try {
    const dataDir = join(o.work, 'payments-sqlite');
    const store = await openStore({ dataDir, databaseUrl: null });
    try {
      const unpaid = await withEndpoint(store, { dataDir, databaseUrl: null }, receiver, o);
      const sqlite = { engine: 'sqlite', processes: 1, dataDir, databaseUrl: null, db: null, store } as const;
      await measureConfig({ ...sqlite, sandboxLatencyMs: 0 }, o, receiver, out);
      if (o.sandboxLatencyMs > 0 && !pgUrl) await measureConfig({ ...sqlite, sandboxLatencyMs: o.sandboxLatencyMs }, o, receiver, out);
      // The raw insert's rows: a transaction as created (a paid one's rows hold more than SQLite binds).
      const template = (await getTransaction(store.database.db, store.keys.environment_id, unpaid))!;
      out.sqliteInsert = await sqliteInsertRate(dataDir, template, { duration: o.pgbenchSeconds, warmup: 1, concurrency: 1 });
      o.progress(`SQLite single-transaction insert (raw.ts): ${Math.round(out.sqliteInsert.rps)}/s`);
    } finally {
      await store.database.close();
    }
    if (pgUrl) await postgresPart(pgUrl, o, receiver, out);
  } finally {
    await receiver.close();
  }
  return out;
}

/** The environment's webhook endpoint, registered through the API of a short-lived process; the id of an unpaid transaction. */
async function withEndpoint(store: Store, engine: { dataDir: string; databaseUrl: string | null }, receiver: Receiver, o: Pick<PaymentOptions, 'logFile' | 'root'>): Promise<string> {
  const target = await startService({ port: await freePort(), ...engine, logFile: o.logFile, root: o.root });
  try {
    await registerEndpoint(target.url, store.auth, receiver.url);
    return (await createTransaction(target.url, store.auth, transactionBody(1))).id;
  } finally {
    await target.stop();
  }
}

async function postgresPart(pgUrl: string, o: PaymentOptions, receiver: Receiver, out: PaymentResults): Promise<void> {
  const db = await ownDatabase(pgUrl, `checkout_payments_${process.pid}`);
  const dataDir = join(o.work, 'payments-postgres');
  const store = await openStore({ dataDir, databaseUrl: db.url });
  out.statementsSource = db.statementsSource ?? 'wire';
  try {
    await withEndpoint(store, { dataDir, databaseUrl: db.url }, receiver, o);
    const postgres = { engine: 'postgres', dataDir, databaseUrl: db.url, db, store } as const;
    for (const processes of [1, 2]) await measureConfig({ ...postgres, processes, sandboxLatencyMs: 0 }, o, receiver, out);
    if (o.sandboxLatencyMs > 0) await measureConfig({ ...postgres, processes: 1, sandboxLatencyMs: o.sandboxLatencyMs }, o, receiver, out);
    if (!db.statementsSource) {
      out.wire = await wirePass(db, pgUrl, { engine: 'postgres', dataDir, db, store }, o, receiver);
      o.progress(`on the wire: ${out.wire!.perPayment.statements.toFixed(1)} statements, ${out.wire!.perPayment.roundTrips.toFixed(1)} round trips per payment (net)`);
    }
    // As many clients as the most payments in flight, and a scale of as many branches: at
    // scale 1 every client updates the one branch row, and pgbench measures that lock (its
    // documentation: the scale "at least as large as the largest number of clients"). Measured
    // on 6 December: 1,602 tps at scale 1 and 8 clients, 1,128 at 32; 2,354 at scale 8 and
    // 8 clients; 1,636 at scale 32 and 32 clients.
    const clients = Math.max(...o.concurrency);
    out.pgbench = await pgbenchTpcb(db.url, { clients, seconds: o.pgbenchSeconds, scale: clients });
    o.progress(`pgbench TPC-B: ${Math.round(out.pgbench.tps)} tps`);
  } finally {
    await store.database.close();
    await db.drop();
  }
}
