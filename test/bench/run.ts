// npm run bench: builds (npm does, before this), then measures the checkout against what
// the machine can do, in one run, and prints one table (see docs/performance.md).
//   --bytes-only     only the byte budgets and the page's HTML size: fast, for CI
//   --cpu-prof       write V8 CPU profiles of the service to test/bench/results/profiles/
//   --duration=S     seconds per measured load run (default 5, after 1 s of warm-up)
//   --rounds=N       samples of each load measurement (default 2)
//   --only=LIST      some of page,scaling,api,transfers,keys,browser,docs,money,payments,dashboard (default: all)
//   --payments=N     payments per end-to-end run (payment-flow.ts; default 100)
//   --payment-concurrency=1,8  payments in flight, one run each (default 1,8)
//   --payment-warmup=N  payments each service process serves unmeasured first (default 1000)
//   --sandbox-latency=MS  also a "latency on" run: the sandbox's calls take MS each (SANDBOX_LATENCY_MS; default 0: none)
//   --sandbox-books=memory|database  where the payments' sandbox keeps its books (SANDBOX_BOOKS; default memory)
//   --payment-baseline=REV  the end-to-end payment also for the project at REV, in the same run (its table beside)
//   --payment-rounds=N  with --payment-baseline: N rounds of both, their order alternated, and the
//                    median of the rounds' ratios (default 1); the tables show the first round
//   --dashboard-payments=N  payments in the dashboard section's shop (dashboard.ts; default 10000)
//   --processes=1,2,3  only the scale curve: that many processes on BENCH_DATABASE_URL (processes.ts)
// BENCH_DATABASE_URL=postgres://… adds a PostgreSQL run (in a scratch schema, dropped after).
// Never asserts timings; exits 1 when a byte budget is exceeded, 2 when a section failed.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getTransaction } from '../../server/store/transactions';
import { baselineCheckout } from './baseline-checkout';
import { launchBrowser, startMerchant, timeInteractive } from './browser';
import { assetBytes, checkBudgets, checkPageBudgets, pageWeight, sizeOf } from './bytes';
import { dashboardEngine } from './dashboard';
import { checkDocsBudgets, docsBytes, timeFirstHeading } from './docs';
import { countTransactions, createTransaction, fundedWallets, openStore, saveCardPage, seedTransactions, signUpPage, type Store, transactionBody } from './data';
import { countKeys, currentLookupRate, type KeyLookupRow, legacyLookupRate, seedKeys } from './keys';
import { load, type LoadRequest, type LoadResult } from './load';
import { comparePaired } from './paired';
import { paymentBench, type PaymentRun } from './payment-flow';
import { scratchSchema } from './postgres';
import { sqliteInsertRate, storeInsertRate, storeReadRate } from './raw';
import type { BrowserResults, EngineResults, Results, Settings } from './results';
import { renderTable } from './table';
import { type BaselineKind, freePort, startBaseline, startService, type Target } from './targets';

/**
 * The money paths are compared with the project as it was the day before issue 25 (the
 * faults work) was filed: everything since may cost them at most 10 % more CPU.
 */
const MONEY_BASELINE = '9d9a74f';
const MONEY_ROUTES = ['create', 'charge'] as const;

const { values: flags } = parseArgs({
  options: {
    'bytes-only': { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    only: { type: 'string', default: 'page,scaling,api,transfers,keys,browser,docs,money,payments,dashboard' },
    payments: { type: 'string', default: '100' },
    'dashboard-payments': { type: 'string', default: '10000' },
    'payment-concurrency': { type: 'string', default: '1,8' },
    'payment-warmup': { type: 'string', default: '1000' },
    'sandbox-latency': { type: 'string', default: '0' },
    'sandbox-books': { type: 'string', default: 'memory' },
    'money-baseline': { type: 'string', default: MONEY_BASELINE },
    'payment-baseline': { type: 'string' },
    'payment-rounds': { type: 'string', default: '1' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    processes: { type: 'string' },
  },
});

if (flags.processes) {
  const { scaleCurve } = await import('./processes');
  await scaleCurve(flags.processes.split(',').map(Number), Number(flags.duration));
  process.exit(0);
}

const only = new Set(flags.only.split(','));
const RESULTS_DIR = new URL('./results/', import.meta.url).pathname;
const ROOT = new URL('../../', import.meta.url).pathname;
const PAGE_CONNECTIONS = [1, 10, 50];
/** Key pairs stored for the key section's second measurement (each of its own environment). */
const KEYS_SEEDED = 10_000;

const settings: Settings = {
  duration: Number(flags.duration),
  warmup: 1,
  startWarmup: 5,
  rounds: Number(flags.rounds),
  browserRuns: 10,
  apiConnections: 10,
  scalingConnections: 10,
};
const timing = { duration: settings.duration, warmup: settings.warmup };
const progress = (message: string) => process.stderr.write(`· ${message}\n`);

/** The --sandbox-books flag, refused when it names no choice SANDBOX_BOOKS has. */
function sandboxBooksFlag(value: string): 'memory' | 'database' {
  if (value === 'memory' || value === 'database') return value;
  throw new Error(`--sandbox-books is memory or database, not ${value}`);
}

const work = mkdtempSync(join(tmpdir(), 'checkout-bench-'));
const logFile = join(work, 'servers.log');
const port = await freePort();
const cpuProfDir = flags['cpu-prof'] ? join(RESULTS_DIR, 'profiles') : undefined;
if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });

const assets = assetBytes();
const results: Results = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: availableParallelism(), node: process.version, platform: `${process.platform} ${process.arch}`, load: [loadavg()[0]!, 0] },
  settings,
  bytes: { assets, html: sizeOf([]), pages: [], docs: null, budgets: checkBudgets(assets) },
  engines: [],
  browser: null,
  docs: null,
  errors: [],
};

const merchant = await startMerchant();
const open: Target[] = [];

async function serve(kind: 'service' | BaselineKind, engine: { dataDir: string; databaseUrl: string | null }, pagesFile: string, onPort = port): Promise<Target> {
  const target =
    kind === 'service'
      ? await startService({ port: onPort, ...engine, logFile, cpuProfDir })
      : await startBaseline(kind, onPort, pagesFile, logFile);
  open.push(target);
  return target;
}

/**
 * A freshly started process needs a few thousand requests before V8 has optimised its hot
 * paths (the page's CPU per request falls by a third to a half): load it unmeasured first.
 */
async function warmUp(target: Target, request: LoadRequest): Promise<void> {
  await load(request, { duration: settings.startWarmup, warmup: 0 }, target);
}

async function stop(target: Target): Promise<void> {
  if (open.includes(target)) open.splice(open.indexOf(target), 1);
  await target.stop();
}

async function section(name: string, run: () => Promise<void>): Promise<void> {
  const started = Date.now();
  try {
    await run();
  } catch (err) {
    results.errors.push(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
  progress(`${name}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

async function fetchPage(url: string): Promise<string> {
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 300)}`);
  return body;
}

/** Issue 29: each kind of payment page, its scripts and inline state (bytes.ts, pageWeight). */
async function pageWeights(baseUrl: string, store: Store, hostedHtml: string) {
  const path = (url: string) => new URL(url).pathname + new URL(url).search;
  const embed = await createTransaction(baseUrl, store.auth, transactionBody(3, merchant.origin));
  const pages: [string, string][] = [
    ['hosted page (3 products)', hostedHtml],
    ['embed page (3 products)', await fetchPage(`${baseUrl}/pay/${encodeURIComponent(embed.token)}/?embed=1&origin=${encodeURIComponent(merchant.origin)}`)],
    ['save-card page', await fetchPage(`${baseUrl}${path(await saveCardPage(baseUrl, store.auth))}`)],
    ['sign-up page', await fetchPage(`${baseUrl}${path(await signUpPage(baseUrl, store.auth, merchant.origin))}`)],
  ];
  return pages.map(([name, html]) => pageWeight(name, html));
}

const show = (label: string, r: LoadResult) => progress(`${label}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms${r.failures ? `, ${r.failures} failed` : ''}`);

async function benchEngine(engine: EngineResults['engine'], config: { dataDir: string; databaseUrl: string | null }): Promise<void> {
  const store: Store = await openStore(config);
  const pagesFile = join(work, `pages-${engine}.json`);
  const e: EngineResults = {
    engine,
    page: PAGE_CONNECTIONS.map((connections) => ({ connections, service: [], express: [], http: [] })),
    api: { connections: settings.apiConnections, create: [], read: [], storeInsert: [], storeRead: [], sqliteInsert: [] },
    scaling: [],
  };
  let service = await serve('service', config, pagesFile);
  try {
    const typical = await createTransaction(service.url, store.auth, transactionBody(3));
    const pagePath = `/pay/${typical.token}/`;
    const html = await fetchPage(`${service.url}${pagePath}`);
    if (engine === 'sqlite') {
      results.bytes.html = sizeOf([{ name: 'page.html', body: Buffer.from(html) }]);
      results.bytes.pages = await pageWeights(service.url, store, html);
      results.bytes.budgets.push(...checkPageBudgets(results.bytes.pages));
      results.bytes.docs = await docsBytes(service.url);
      results.bytes.budgets.push(...checkDocsBudgets(results.bytes.docs));
    }
    if (flags['bytes-only']) return;
    results.engines.push(e);
    writeFileSync(pagesFile, JSON.stringify({ '*': html }));
    // The scaling rows' transactions; the typical one is also the reference for thousands stored.
    const bySize: { products: number; token: string }[] = [];
    for (const products of [1, 3, 10, 1000]) {
      const token = products === 3 ? typical.token : (await createTransaction(service.url, store.auth, transactionBody(products))).token;
      bySize.push({ products, token });
    }
    const template = (await getTransaction(store.database.db, store.keys.environment_id, typical.id))!;
    if (!only.has('page')) await warmUp(service, { url: `${service.url}${pagePath}`, connections: 10 });

    // The page beside its baselines, one target at a time on the same port; the baselines
    // answer the same bytes whatever the engine, so only the first engine measures them.
    if (only.has('page')) await section(`page [${engine}]`, async () => {
      await stop(service);
      try {
        const kinds = (['http', 'express', 'service'] as const).filter((k) => k === 'service' || results.engines.length === 1);
        for (let round = 0; round < settings.rounds; round++) {
          for (const kind of kinds) {
            const target = await serve(kind, config, pagesFile);
            try {
              await warmUp(target, { url: `${target.url}${pagePath}`, connections: 10 });
              for (const row of e.page) {
                const r = await load({ url: `${target.url}${pagePath}`, connections: row.connections }, timing, target);
                row[kind].push(r);
                show(`page ${kind} ${row.connections}c`, r);
              }
            } finally {
              await stop(target);
            }
          }
        }
        const first = results.engines[0]!;
        if (first !== e) e.page.forEach((row, i) => Object.assign(row, { express: first.page[i]!.express, http: first.page[i]!.http }));
      } finally {
        service = await serve('service', config, pagesFile);
        await warmUp(service, { url: `${service.url}${pagePath}`, connections: 10 });
      }
    });

    if (only.has('scaling')) await section(`scaling [${engine}]`, async () => {
      const measure = async (products: number, token: string) => {
        const stored = await countTransactions(store);
        const row = { products, stored, samples: [] as LoadResult[] };
        for (let round = 0; round < settings.rounds; round++) {
          const r = await load({ url: `${service.url}/pay/${token}/`, connections: settings.scalingConnections }, timing, service);
          row.samples.push(r);
          show(`scaling ${products} products ${stored} stored`, r);
        }
        e.scaling.push(row);
      };
      for (const tx of bySize) await measure(tx.products, tx.token);
      for (const target of [1_000, 100_000]) {
        const started = Date.now();
        await seedTransactions(store, template, Math.max(0, target - (await countTransactions(store))));
        progress(`seeded to ${target} transactions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        await measure(3, typical.token);
      }
    });

    if (only.has('api')) await section(`api [${engine}]`, async () => {
      const headers = { authorization: store.auth, 'content-type': 'application/json' };
      const raw = { ...timing, concurrency: settings.apiConnections };
      const c = settings.apiConnections;
      const create: LoadRequest = { url: `${service.url}/v1/transaction/`, method: 'POST', headers, body: JSON.stringify(transactionBody(3)), connections: c };
      const read: LoadRequest = { url: `${service.url}/v1/transaction/${typical.id}/`, headers, connections: c };
      await warmUp(service, create);
      await warmUp(service, read);
      for (let round = 0; round < settings.rounds; round++) {
        e.api.create.push(await load(create, timing, service));
        show('POST /v1/transaction/', e.api.create.at(-1)!);
        e.api.storeInsert.push(await storeInsertRate(store, template, raw));
        progress(`store insert: ${Math.round(e.api.storeInsert.at(-1)!.rps)}/s`);
        if (engine === 'sqlite') {
          e.api.sqliteInsert.push(await sqliteInsertRate(config.dataDir, template, raw));
          progress(`better-sqlite3 insert: ${Math.round(e.api.sqliteInsert.at(-1)!.rps)}/s`);
        }
        e.api.read.push(await load(read, timing, service));
        show('GET /v1/transaction/{id}/', e.api.read.at(-1)!);
        e.api.storeRead.push(await storeReadRate(store, typical.id, raw));
        progress(`store read: ${Math.round(e.api.storeRead.at(-1)!.rps)}/s`);
      }
    });

    // Money between two wallets: one database transaction of a transfer row, two
    // conditional balance updates and two entries, against the raw insert of this run.
    if (only.has('transfers')) await section(`transfers [${engine}]`, async () => {
      const c = settings.apiConnections;
      const t = { connections: c, transfer: [] as LoadResult[], storeInsert: [] as Awaited<ReturnType<typeof storeInsertRate>>[] };
      e.transfers = t;
      const [from, to] = await fundedWallets(service.url, store.auth);
      const headers = { authorization: store.auth, 'content-type': 'application/json' };
      const transfer: LoadRequest = {
        url: `${service.url}/v1/transfer/`,
        method: 'POST',
        headers,
        body: JSON.stringify({ source_wallet: from, destination_wallet: to, amount: 0.01 }),
        connections: c,
      };
      await warmUp(service, transfer);
      for (let round = 0; round < settings.rounds; round++) {
        t.transfer.push(await load(transfer, timing, service));
        show('POST /v1/transfer/', t.transfer.at(-1)!);
        t.storeInsert.push(await storeInsertRate(store, template, { ...timing, concurrency: c }));
        progress(`store insert: ${Math.round(t.storeInsert.at(-1)!.rps)}/s`);
      }
    });

    // The API key check on the request path: the api_keys lookup beside the environment-row
    // lookup it replaced, and the whole authenticated read, with one key and with thousands.
    if (only.has('keys')) await section(`keys [${engine}]`, async () => {
      const c = settings.apiConnections;
      const raw = { ...timing, concurrency: c };
      const read: LoadRequest = { url: `${service.url}/v1/transaction/${typical.id}/`, headers: { authorization: store.auth }, connections: c };
      const k = { connections: c, rows: [] as KeyLookupRow[] };
      e.keys = k;
      await warmUp(service, read);
      for (const target of [0, KEYS_SEEDED]) {
        await seedKeys(store, Math.max(0, target - (await countKeys(store))));
        const row: KeyLookupRow = { keys: await countKeys(store), current: [], legacy: [], read: [] };
        for (let round = 0; round < settings.rounds; round++) {
          row.legacy.push(await legacyLookupRate(store, raw));
          row.current.push(await currentLookupRate(store, raw));
          progress(`key lookup, ${row.keys} keys: api_keys ${Math.round(row.current.at(-1)!.rps)}/s, environment row ${Math.round(row.legacy.at(-1)!.rps)}/s`);
          row.read.push(await load(read, timing, service));
          show(`GET /v1/transaction/{id}/ with ${row.keys} keys`, row.read.at(-1)!);
        }
        k.rows.push(row);
      }
    });

    if (engine === 'sqlite' && only.has('browser')) {
      await section('browser', async () => {
        const tx = await createTransaction(service.url, store.auth, transactionBody(3, merchant.origin));
        const hostedPath = `/pay/${tx.token}/`;
        // The frame's URL as the loader builds it (docs/widget.md, "Origin rules").
        const embedPath = `/pay/${encodeURIComponent(tx.token)}/?embed=1&origin=${encodeURIComponent(merchant.origin)}`;
        const staticFile = join(work, 'static.json');
        const pages = { [hostedPath]: await fetchPage(`${service.url}${hostedPath}`), [embedPath]: await fetchPage(`${service.url}${embedPath}`) };
        writeFileSync(staticFile, JSON.stringify(pages));
        const staticServer = await serve('static', config, staticFile, await freePort());
        const browser = await launchBrowser();
        try {
          const runs = settings.browserRuns;
          const b: BrowserResults = {
            hosted: {
              service: await timeInteractive(browser, `${service.url}${hostedPath}`, false, runs),
              static: await timeInteractive(browser, `${staticServer.url}${hostedPath}`, false, runs),
            },
            widget: {
              service: await timeInteractive(browser, merchant.widgetPage('/shop/service', service.url, tx.token), true, runs),
              static: await timeInteractive(browser, merchant.widgetPage('/shop/static', staticServer.url, tx.token), true, runs),
            },
          };
          results.browser = b;
          progress(`browser: hosted ${Math.round(b.hosted.service.median)} ms, widget ${Math.round(b.widget.service.median)} ms`);
        } finally {
          await browser.close();
          await stop(staticServer);
        }
      });
    }

    // The reference: the service's /docs/ beside the same page and files from a static server.
    if (engine === 'sqlite' && only.has('docs')) {
      await section('docs', async () => {
        const staticFile = join(work, 'docs.json');
        writeFileSync(staticFile, JSON.stringify({ '/docs/': await fetchPage(`${service.url}/docs/`) }));
        const staticServer = await serve('static', config, staticFile, await freePort());
        const browser = await launchBrowser();
        try {
          const runs = settings.browserRuns;
          results.docs = {
            service: await timeFirstHeading(browser, `${service.url}/docs/`, runs),
            static: await timeFirstHeading(browser, `${staticServer.url}/docs/`, runs),
          };
          progress(`docs: h1 painted after ${Math.round(results.docs.service.median)} ms, ${results.docs.service.elements} elements`);
        } finally {
          await browser.close();
          await stop(staticServer);
        }
      });
    }
  } finally {
    await stop(service);
    await store.database.close();
  }
}

/**
 * `root`, when its migrations are this tree's: the payment bench prepares each engine's
 * database (its environment and key) with this tree's store, which a service of another
 * schema would refuse to start on.
 */
function sameSchema(root: string, rev: string): string {
  const migrations = (dir: string) => readdirSync(join(dir, 'server/store/migrations')).sort().join(',');
  if (migrations(root) !== migrations(ROOT)) throw new Error(`--payment-baseline=${rev}: its migrations are not this tree's; compare with a revision of the same schema`);
  return root;
}

/** Creation and a stored card's charge, this checkout against the baseline's, in paired slices (SQLite). */
async function moneyPaths(): Promise<void> {
  const rev = flags['money-baseline']!;
  const baseline = baselineCheckout(rev, progress);
  const money: NonNullable<Results['money']> = { baseline: rev, pairs: 10, rows: [] };
  results.money = money;
  for (const route of MONEY_ROUTES) {
    const r = await comparePaired({ rootA: baseline, rootB: ROOT, route, pairs: money.pairs, seconds: 3, connections: settings.apiConnections });
    money.rows.push({ route, ...r });
    progress(`money ${route}: B/A req/s ${Math.round(r.rps * 100)} %, CPU per request ${Math.round(r.cpu * 100)} %`);
  }
}

let code = 0;
try {
  await section('sqlite', () => benchEngine('sqlite', { dataDir: join(work, 'sqlite'), databaseUrl: null }));
  if (only.has('money') && !flags['bytes-only']) await section('money', moneyPaths);
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (only.has('payments') && !flags['bytes-only']) {
    const options = { payments: Number(flags.payments), warmup: Number(flags['payment-warmup']), concurrency: flags['payment-concurrency'].split(',').map(Number), idleSeconds: 4, pgbenchSeconds: 5, sandboxLatencyMs: Number(flags['sandbox-latency']), sandboxBooks: sandboxBooksFlag(flags['sandbox-books']) };
    const rev = flags['payment-baseline'];
    const rounds = rev ? Number(flags['payment-rounds']) : 1;
    if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--payment-rounds=${flags['payment-rounds']}: a whole number from 1`);
    if (!Number.isInteger(options.warmup) || options.warmup < 0) throw new Error(`--payment-warmup=${flags['payment-warmup']}: a whole number from 0`);
    let root: string | null = null;
    if (rev) await section('payments-baseline checkout', async () => void (root = sameSchema(baselineCheckout(rev, progress), rev)));
    // Each round on fresh databases. The first measures the baseline first, so that this
    // tree's figures are not the first of the machine's day either; later rounds alternate
    // the order, so that neither side always runs on a machine warmed (or loaded) by the other.
    for (let round = 1; round <= rounds; round++) {
      const pair = rounds > 1 ? { baseline: [] as PaymentRun[], tree: [] as PaymentRun[] } : null;
      if (pair) (results.paymentRounds ??= []).push(pair);
      const named = (name: string) => (pair ? `${name} round ${round}` : name);
      const baseline = async () => {
        if (!rev || !root) return;
        const from = root;
        await section(named('payments-baseline'), async () => {
          const measured = { rev, ...(await paymentBench({ ...options, work: join(work, `baseline-${round}`), logFile, progress: (m) => progress(`${rev}: ${m}`), root: from }, pgUrl)) };
          results.paymentsBaseline ??= measured;
          if (pair) pair.baseline = measured.runs;
        });
      };
      const tree = () =>
        section(named('payments'), async () => {
          const measured = await paymentBench({ ...options, work: join(work, `tree-${round}`), logFile, progress, cpuProfDir: round === 1 ? cpuProfDir : undefined }, pgUrl);
          results.payments ??= measured;
          if (pair) pair.tree = measured.runs;
        });
      for (const side of round % 2 === 1 ? [baseline, tree] : [tree, baseline]) await side();
    }
  }
  if (only.has('dashboard') && !flags['bytes-only']) {
    const options = { payments: Number(flags['dashboard-payments']), requests: 30, warmup: 5, work, logFile, progress };
    results.dashboard = { requests: options.requests, warmup: options.warmup, engines: [] };
    const engines = results.dashboard.engines;
    await section('dashboard [sqlite]', async () => {
      engines.push(await dashboardEngine('sqlite', { dataDir: join(work, 'dashboard-sqlite'), databaseUrl: null }, options));
    });
    if (pgUrl) {
      await section('dashboard [postgres]', async () => {
        const schema = await scratchSchema(pgUrl);
        try {
          engines.push(await dashboardEngine('postgres', { dataDir: join(work, 'dashboard-postgres'), databaseUrl: schema.url }, options));
        } finally {
          await schema.drop();
        }
      });
    }
  }
  if (pgUrl && !flags['bytes-only']) {
    await section('postgres', async () => {
      const schema = await scratchSchema(pgUrl);
      try {
        await benchEngine('postgres', { dataDir: join(work, 'postgres'), databaseUrl: schema.url });
      } finally {
        await schema.drop();
      }
    });
  }
} finally {
  await Promise.all(open.map((t) => t.stop()));
  await merchant.close();
  results.machine.load[1] = loadavg()[0]!;
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${renderTable(results)}\n`);
  if (results.errors.length) process.stderr.write(`Service and baseline logs: ${logFile}\n`);
  else rmSync(work, { recursive: true, force: true });
  code = results.bytes.budgets.some((b) => !b.ok) ? 1 : results.errors.length ? 2 : 0;
}
process.exit(code);
