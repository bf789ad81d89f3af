import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { paymentReference } from '../../server/domain/payment-reference';
import { sizeOf } from './bytes';
import { openStore, type Store } from './data';
import { seedPayments, signedInMember, startHookReceiver, templatePayments } from './dashboard-data';
import { postgresCpu, postgresCpuBetween } from './processes';
import { freePort, startBaseline, startService, type Target } from './targets';

// The dashboard section (issue 47): one shop of `payments` payments, its owner signed in,
// and each main page (server/dashboard/routes.ts) requested one at a time over HTTP: the
// time to the answer's last byte, its HTML and the JavaScript it loads, gzip. Beside them,
// the payments list's own HTML from a static node:http server, measured the same way in
// the same run: what answering those bytes costs on this machine with no work behind them.

/** Goals of issue 47: each page < 50 ms of server time at 10,000 payments, < 30 KB of JavaScript gzip. */
export const DASHBOARD_GOALS = { medianMs: 50, jsGzip: 30 * 1024 };

export interface DashboardPage {
  name: string;
  path: string;
  status: number;
  htmlGzip: number;
  jsGzip: number;
  jsFiles: number;
  median: number;
  p95: number;
}

/** What the service's jobs cost with nothing to do, a second: its CPU, and PostgreSQL's (its processes alive throughout: other sessions' too). */
export interface IdleJobs {
  cpuMsPerSecond: number;
  postgresCpuMsPerSecond: number | null;
}

export interface DashboardEngine {
  engine: 'sqlite' | 'postgres';
  payments: number;
  seedSeconds: number;
  /** The jobs idle with the template's few payments, then with the seeded shop: flat, if no job reads the whole history. */
  idle: { before: IdleJobs; seeded: IdleJobs };
  /** The payments list's HTML from a static node:http server. */
  baseline: { median: number; p95: number };
  pages: DashboardPage[];
}

export interface DashboardResults {
  /** Sequential requests measured per page, after `warmup` unmeasured ones. */
  requests: number;
  warmup: number;
  engines: DashboardEngine[];
}

export interface DashboardOptions {
  payments: number;
  requests: number;
  warmup: number;
  work: string;
  logFile: string;
  progress: (message: string) => void;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)]!;

/** `runs` sequential GETs after `warmup` unmeasured ones: each from sending to the last byte read, ms. */
async function timeGets(url: string, headers: Record<string, string>, warmup: number, runs: number): Promise<{ median: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers, redirect: 'manual' });
    await res.arrayBuffer();
    if (i >= warmup) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p95: percentile(times, 95) };
}

/** The scripts a page loads: its own (`<script src>`, fetched) and inline ones, each gzipped on its own. */
async function pageScripts(baseUrl: string, html: string): Promise<{ gzip: number; files: number }> {
  const sources = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
  const inline = [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!).filter((body) => body.trim());
  const files = await Promise.all(
    sources.map(async (src) => {
      const res = await fetch(new URL(src, baseUrl));
      if (res.status !== 200) throw new Error(`GET ${src} answered ${res.status}`);
      return { name: src, body: Buffer.from(await res.arrayBuffer()) };
    }),
  );
  const size = sizeOf([...files, ...inline.map((body, i) => ({ name: `inline ${i + 1}`, body: Buffer.from(body) }))]);
  return { gzip: size.gzip, files: files.length + inline.length };
}

/** The pages measured: a payment, a dispute and an event of the seeded shop picked from its middle. */
async function pagesOf(store: Store): Promise<[string, string][]> {
  const db = store.database.db;
  const env = store.keys.environment_id;
  const transactions = await db.selectFrom('transactions').where('environment_id', '=', env).select(['id', 'customer_email']).where('order_id', 'like', 'order-2-%').orderBy('id').execute();
  const tx = transactions[Math.floor(transactions.length / 2)]!;
  const sale = await db.selectFrom('sales').where('transaction_id', '=', tx.id).select(['id', 'amount', 'card_last4']).executeTakeFirstOrThrow();
  const disputes = await db.selectFrom('disputes').where('environment_id', '=', env).select('id').orderBy('id').execute();
  const event = await db.selectFrom('events').where('environment_id', '=', env).where('object_id', '=', sale.id).select('id').executeTakeFirstOrThrow();
  const endpoint = await db.selectFrom('webhook_endpoints').where('environment_id', '=', env).select('id').executeTakeFirstOrThrow();
  const q = (text: string) => encodeURIComponent(text);
  const amount = (sale.amount / 100).toFixed(2);
  return [
    ['home', '/dashboard/'],
    ['payments, first page', '/dashboard/transactions/'],
    ['payments, status refunded in part', '/dashboard/transactions/?status=partially_refunded'],
    ['payments, page 50', '/dashboard/transactions/?page=50'],
    ['payments, search by email', `/dashboard/transactions/?q=${q(tx.customer_email!)}`],
    ['payments, search by reference', `/dashboard/transactions/?q=${q(paymentReference(sale.id))}`],
    ['payments, search last4 + amount', `/dashboard/transactions/?q=${q(`${sale.card_last4} ${amount}`)}`],
    ['global search by email', `/dashboard/search/?q=${q(tx.customer_email!)}`],
    ['a payment', `/dashboard/transactions/${tx.id}/`],
    ['balance', '/dashboard/balance/'],
    ['customers', '/dashboard/customers/'],
    ['a customer (payer by email)', `/dashboard/customers/payers/${tx.id}/`],
    ['disputes', '/dashboard/disputes/'],
    ['a dispute', `/dashboard/disputes/${disputes[Math.floor(disputes.length / 2)]!.id}/`],
    ['events', '/dashboard/events/'],
    ['an event', `/dashboard/events/${event.id}/`],
    ['webhook deliveries', '/dashboard/webhooks/'],
    ['webhook endpoints', '/dashboard/webhook-endpoints/'],
    ["an endpoint and its attempts", `/dashboard/webhook-endpoints/${endpoint.id}/`],
    ['API requests', '/dashboard/requests/'],
    ['payouts', '/dashboard/payouts/'],
    ['export', '/dashboard/export/'],
    ['settings', '/dashboard/settings/'],
    ['catalogue', '/dashboard/catalogue/'],
    ['subscriptions', '/dashboard/subscriptions/'],
    ['API keys', '/dashboard/keys/'],
    ['team', '/dashboard/team/'],
    ['audit log', '/dashboard/audit/'],
  ];
}

/** The jobs' cost over `seconds` with nothing to do, once the last work has had 2 s to end. */
async function idleJobs(service: Target, engine: DashboardEngine['engine'], seconds = 5): Promise<IdleJobs> {
  await sleep(2000);
  const cpu0 = service.cpuMs() ?? NaN;
  const pg0 = engine === 'postgres' ? postgresCpu() : null;
  const started = performance.now();
  await sleep(seconds * 1000);
  const elapsed = (performance.now() - started) / 1000;
  return { cpuMsPerSecond: ((service.cpuMs() ?? NaN) - cpu0) / elapsed, postgresCpuMsPerSecond: pg0 === null ? null : postgresCpuBetween(pg0, postgresCpu()) / elapsed };
}

/** One engine: a store of its own, the shop seeded, each page measured. */
export async function dashboardEngine(engine: DashboardEngine['engine'], config: { dataDir: string; databaseUrl: string | null }, o: DashboardOptions): Promise<DashboardEngine> {
  const store = await openStore(config);
  const open: Target[] = [];
  const hooks = await startHookReceiver();
  const allowPrivate = process.env.ALLOW_PRIVATE_NOTIFY_URLS;
  // The template payments notify the local receiver above.
  process.env.ALLOW_PRIVATE_NOTIFY_URLS = 'true';
  try {
    const service = await startService({ port: await freePort(), ...config, logFile: o.logFile });
    open.push(service);
    await templatePayments(service.url, store, hooks.url);
    const before = await idleJobs(service, engine);
    const seedSeconds = await seedPayments(store, o.payments);
    o.progress(`dashboard [${engine}]: seeded ${o.payments} payments in ${seedSeconds.toFixed(1)} s`);
    const idle = { before, seeded: await idleJobs(service, engine) };
    o.progress(`dashboard [${engine}]: jobs idle ${before.cpuMsPerSecond.toFixed(1)} → ${idle.seeded.cpuMsPerSecond.toFixed(1)} ms/s of CPU`);
    const headers = { cookie: await signedInMember(service.url, store) };
    const pages: DashboardPage[] = [];
    let listHtml = '';
    for (const [name, path] of await pagesOf(store)) {
      const res = await fetch(`${service.url}${path}`, { headers, redirect: 'manual' });
      const html = await res.text();
      // Another answer is measured too, and the table names its status: a page that fails is a finding, not a reason to lose the others.
      if (res.status !== 200 && res.status !== 303) o.progress(`dashboard [${engine}] ${name}: GET ${path} answered ${res.status}`);
      if (path === '/dashboard/transactions/') listHtml = html;
      const js = await pageScripts(service.url, html);
      const time = await timeGets(`${service.url}${path}`, headers, o.warmup, o.requests);
      const page = { name, path, status: res.status, htmlGzip: sizeOf([{ name: path, body: Buffer.from(html) }]).gzip, jsGzip: js.gzip, jsFiles: js.files, ...time };
      pages.push(page);
      o.progress(`dashboard [${engine}] ${name}: median ${page.median.toFixed(1)} ms, p95 ${page.p95.toFixed(1)} ms`);
    }
    const pagesFile = join(o.work, `dashboard-${engine}.json`);
    writeFileSync(pagesFile, JSON.stringify({ '/dashboard/transactions/': listHtml }));
    const baseline = await startBaseline('static', await freePort(), pagesFile, o.logFile);
    open.push(baseline);
    return { engine, payments: o.payments, seedSeconds, idle, baseline: await timeGets(`${baseline.url}/dashboard/transactions/`, {}, o.warmup, o.requests), pages };
  } finally {
    if (allowPrivate === undefined) delete process.env.ALLOW_PRIVATE_NOTIFY_URLS;
    else process.env.ALLOW_PRIVATE_NOTIFY_URLS = allowPrivate;
    await Promise.all(open.map((t) => t.stop()));
    await hooks.close();
    await store.database.close();
  }
}
