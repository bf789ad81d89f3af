import type { Size } from './bytes';
import { DASHBOARD_GOALS, type IdleJobs } from './dashboard';
import type { Timing } from './browser';
import { REDOC_ELEMENTS } from './docs';
import type { LoadResult } from './load';
import { median } from './median';
import type { PaymentRun } from './payment-flow';
import type { RawResult } from './raw';
import type { EngineResults, Results, ScalingRow } from './results';

// results → one plain-text table. Throughput is the mean of the rounds, with ± half the
// range between them when there are several; latency is the mean of the rounds' values.

type Row = [string, string, string, string, string] | string;

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (n: number) => `${Math.round(n * 100)}%`;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

function spread(values: number[]): string {
  if (values.length < 2) return '';
  const m = mean(values);
  return m ? ` ±${Math.round(((Math.max(...values) - Math.min(...values)) / 2 / m) * 100)}%` : '';
}

type Sample = LoadResult | RawResult;
const rps = (samples: Sample[]) => mean(samples.map((s) => s.rps));

function rate(samples: Sample[], unit = 'req/s'): string {
  if (!samples.length) return 'not measured';
  const failures = samples.reduce((n, s) => n + ('failures' in s ? s.failures : 0), 0);
  const ms = (v: number) => (v < 10 ? v.toFixed(1).replace(/\.0$/, '') : int(v));
  const cpu = cpuPerRequest(samples);
  return (
    `${int(rps(samples))} ${unit}${spread(samples.map((s) => s.rps))} · ` +
    `p50 ${ms(mean(samples.map((s) => s.p50)))} · p99 ${ms(mean(samples.map((s) => s.p99)))} ms` +
    (cpu === null ? '' : ` · CPU ${cpu.toFixed(2)} ms/req`) +
    (failures ? ` · ${int(failures)} FAILED` : '')
  );
}

/** Mean server CPU per request over the rounds, when measured. */
function cpuPerRequest(samples: Sample[]): number | null {
  const values = samples.flatMap((s) => ('cpuPerRequest' in s && s.cpuPerRequest !== null ? [s.cpuPerRequest] : []));
  return values.length ? mean(values) : null;
}

/** Throughput ratio a/b, and the same from CPU per request (b's cost over a's) when known. */
function costRatio(a: LoadResult[], b: LoadResult[]): string {
  const ca = cpuPerRequest(a);
  const cb = cpuPerRequest(b);
  return `${ratio(a, b)}${ca && cb ? ` (CPU ${pct(cb / ca)})` : ''}`;
}

const ratio = (a: Sample[], b: Sample[]) => (a.length && b.length ? pct(rps(a) / rps(b)) : '');
const bytes = (s: Size) => `${int(s.gzip)} B gzip · ${int(s.brotli)} br · ${int(s.raw)} raw`;
const ms = (t: Pick<Timing, 'median' | 'min' | 'max'>) => `${int(t.median)} ms (${int(t.min)}–${int(t.max)})`;

function requestsSummary(urls: string[]): string {
  const kinds = urls.map((u) => {
    const path = new URL(u).pathname;
    if (path.endsWith('.js')) return 'js';
    if (path.endsWith('.css')) return 'css';
    return 'html';
  });
  const count = (k: string) => kinds.filter((x) => x === k).length;
  return `${urls.length} (${count('html')} html, ${count('js')} js, ${count('css')} css)`;
}

function engineRows(e: EngineResults, r: Results): Row[] {
  const rows: Row[] = [];
  const page = e.page.filter((p) => p.service.length);
  if (page.length) rows.push(`Page GET /pay/{token}/, 3 products [${e.engine}]`);
  for (const p of page) {
    const target = p.connections === 50 ? '≥ 80% Express, p99 < 25 ms' : '≥ 80% Express';
    rows.push([
      `  ${p.connections} connection${p.connections === 1 ? '' : 's'}`,
      rate(p.service),
      p.express.length ? `Express ${int(rps(p.express))} · http ${int(rps(p.http))}` : '',
      p.express.length ? `${costRatio(p.service, p.express)} · ${costRatio(p.service, p.http)}` : '',
      target,
    ]);
  }
  const a = e.api;
  if (a.create.length) rows.push(...apiRows(e));
  if (e.transfers?.transfer.length) rows.push(...transferRows(e.transfers, e.engine));
  if (e.keys?.rows.length) rows.push(...keyRows(e.keys, e.engine));
  if (e.scaling.length) rows.push(`Scaling: page at ${r.settings.scalingConnections} connections [${e.engine}]`);
  const label = (s: ScalingRow) => `${int(s.products)} product${s.products === 1 ? '' : 's'}, ${int(s.stored)} stored`;
  // Each row against the first one with as many products (more stored), else the first row.
  e.scaling.forEach((s, i) => {
    const ref = e.scaling.slice(0, i).find((x) => x.products === s.products) ?? (i ? e.scaling[0] : undefined);
    rows.push([`  ${label(s)}`, rate(s.samples), ref ? `${label(ref)}: ${int(rps(ref.samples))}` : '', ref ? costRatio(s.samples, ref.samples) : '', '']);
  });
  return rows;
}

function transferRows(t: NonNullable<EngineResults['transfers']>, engine: string): Row[] {
  return [
    `Transfers, ${t.connections} connections [${engine}]`,
    ['  POST /v1/transfer/ (wallet → wallet)', rate(t.transfer), `store insert ${int(rps(t.storeInsert))}/s`, ratio(t.transfer, t.storeInsert), ''],
  ];
}

function keyRows(k: NonNullable<EngineResults['keys']>, engine: string): Row[] {
  const rows: Row[] = [`API key check, ${k.connections} concurrent [${engine}]`];
  const first = k.rows[0]!;
  for (const r of k.rows) {
    const keys = `${int(r.keys)} key${r.keys === 1 ? '' : 's'}`;
    rows.push([`  store authenticate (api_keys), ${keys}`, rate(r.current, 'checks/s'), `environment row ${int(rps(r.legacy))}/s`, ratio(r.current, r.legacy), 'no loss (≈ 100%)']);
    rows.push([`  GET /v1/transaction/{id}/, ${keys}`, rate(r.read), r === first ? '' : `${int(first.keys)} key${first.keys === 1 ? '' : 's'}: ${int(rps(first.read))}`, r === first ? '' : ratio(r.read, first.read), r === first ? '' : 'no loss (≈ 100%)']);
  }
  return rows;
}

const MONEY_LABELS: Record<string, string> = { create: 'POST /v1/transaction/ (3 products)', charge: 'POST /v1/authorization/{id}/charge/ (jobs on)' };

function moneyRows(m: NonNullable<Results['money']>): Row[] {
  const rows: Row[] = [`Money paths against ${m.baseline} (the day before issue 25), ${m.pairs} paired slices [sqlite]`];
  for (const r of m.rows) {
    const reference = `${m.baseline}: ${int(rps(r.a))} req/s · CPU ${cpuPerRequest(r.a)?.toFixed(2)} ms/req`;
    const verdict = r.cpu <= 1.1 ? 'ok' : 'OVER';
    rows.push([`  ${MONEY_LABELS[r.route] ?? r.route}`, rate(r.b), reference, `${pct(r.rps)} (CPU ${pct(r.cpu)})`, `CPU ≤ 110% ${verdict}`]);
  }
  return rows;
}

const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** payments/s over a reference's rate, as "1/N". */
const oneIn = (perSecond: number, reference: number) => (perSecond > 0 ? `1/${int(reference / perSecond)}` : '');

function paymentRows(p: NonNullable<Results['payments']>, of = ''): Row[] {
  const rows: Row[] = [
    `End-to-end payment${of}, ${p.payments} per run after ${p.warmup} unmeasured a process: create (Idempotency-Key) → page → pay (sandbox card) → read sale → refund → webhook received; sandbox latency: ${p.sandboxLatency}`,
  ];
  const statements = p.statementsSource === 'wire' ? 'statements on the wire (1 process, 1 at a time)' : p.statementsSource ?? 'statements not measured';
  for (const r of p.runs) {
    const ref =
      r.engine === 'postgres'
        ? p.pgbench && { label: `pgbench TPC-B ${int(p.pgbench.tps)} tps (${p.pgbench.clients} clients, scale ${p.pgbench.scale})`, rate: p.pgbench.tps, target: '≥ 1/20 (issue 49)' }
        : p.sqliteInsert && { label: `SQLite insert ${int(p.sqliteInsert.rps)}/s`, rate: p.sqliteInsert.rps, target: '≥ 1/30 (issue 49)' };
    rows.push([
      `  ${r.engine}, ${r.processes} process${r.processes === 1 ? '' : 'es'}, ${r.concurrency} at a time${r.sandboxLatencyMs ? `, latency on (${r.sandboxLatencyMs} ms a sandbox call)` : ''}`,
      `${fixed(r.perSecond)} payments/s · CPU ${fixed(r.cpuMsNet)} ms/payment, the bench's ${fixed(r.clientCpuMs)}${r.failures ? ` · ${r.failures} FAILED` : ''}`,
      ref ? ref.label : '',
      ref ? oneIn(r.perSecond, ref.rate) : '',
      ref ? ref.target : '',
    ]);
    const l = r.latency;
    rows.push(['    p50/p99 ms', (['create', 'page', 'pay', 'sale', 'refund', 'webhook'] as const).map((s) => `${s} ${int(l[s].p50)}/${int(l[s].p99)}`).join(' · '), '', '', '']);
    if (r.db) {
      const n = r.db.net;
      const g = r.db.gross;
      rows.push([
        '    per payment, net of idle jobs',
        `${fixed(n.commits)} commits · ${fixed(n.rollbacks)} rollbacks · ${fixed(n.rowWrites)} row writes · ${n.ownWalBytes === null ? 'WAL not attributed' : `${int(n.ownWalBytes)} B WAL`}${n.statements === null ? '' : ` · ${fixed(n.statements)} statements`}`,
        `gross ${fixed(g.commits)} commits · ${g.ownWalBytes === null ? '' : `${int(g.ownWalBytes)} B WAL · `}cluster ${int(g.walBytes)} B WAL`,
        '',
        '≤ 12 commits (issue 49)',
      ]);
    }
  }
  if (p.wire) {
    const w = p.wire.perPayment;
    rows.push([`  ${statements}, ${p.wire.payments} payments`, `${fixed(w.statements)} statements · ${fixed(w.roundTrips)} round trips · ${fixed(w.transactionControl)} BEGIN/COMMIT…`, '', '', '≤ 35 statements (issue 49)']);
    const requests = Object.entries(p.wire.byRequest);
    const rest = w.statements - requests.reduce((sum, [, count]) => sum + count, 0);
    rows.push(['    by request (net of idle jobs)', `${requests.map(([step, count]) => `${step} ${fixed(count)}`).join(' · ')} · jobs and the rest ${fixed(rest)}`, '', '', '']);
  }
  for (const i of p.idle) {
    const own = i.ownWalBytesPerSecond === undefined || i.ownWalBytesPerSecond === null ? '' : `${int(i.ownWalBytesPerSecond)} B WAL/s · `;
    const db = i.commitsPerSecond === undefined ? '' : ` · ${fixed(i.commitsPerSecond)} commits/s · ${own}cluster ${int(i.walBytesPerSecond ?? 0)} B WAL/s`;
    rows.push([`  idle, ${i.engine}, ${i.processes} process${i.processes === 1 ? '' : 'es'} (jobs only)`, `CPU ${fixed(i.cpuMsPerSecond)} ms/s${db}`, '', '', '']);
  }
  return rows;
}

const runKey = (r: PaymentRun) => `${r.engine} ${r.processes} ${r.concurrency} ${r.sandboxLatencyMs}`;
const runName = (r: PaymentRun) => `  ${r.engine}, ${r.processes} process${r.processes === 1 ? '' : 'es'}, ${r.concurrency} at a time${r.sandboxLatencyMs ? ', latency on' : ''}`;

/**
 * `--payment-rounds`: each configuration's ratio of this tree over the baseline in every
 * round (the order alternated), and their median: one round's ratio swings with the machine.
 */
function roundRows(rev: string, rounds: NonNullable<Results['paymentRounds']>): Row[] {
  const rows: Row[] = [`End-to-end payment, this tree against ${rev} in ${rounds.length} rounds, the order alternated: each round's ratio, and their median`];
  for (const first of rounds[0]!.tree) {
    const ratios = rounds.flatMap((round) => {
      const [t, b] = [round.tree, round.baseline].map((runs) => runs.find((r) => runKey(r) === runKey(first)));
      return t && b ? [{ rate: t.perSecond / b.perSecond, cpu: t.cpuMsNet / b.cpuMsNet }] : [];
    });
    if (!ratios.length) continue;
    rows.push([
      runName(first),
      `median ${pct(median(ratios.map((r) => r.rate)))} payments/s (CPU ${pct(median(ratios.map((r) => r.cpu)))})`,
      `rounds: ${ratios.map((r) => pct(r.rate)).join(' · ')}`,
      '',
      '',
    ]);
  }
  return rows;
}

/** This tree's runs over the baseline's (`--payment-baseline`), run by run, and the wire's counts. */
function againstBaselineRows(now: NonNullable<Results['payments']>, before: NonNullable<Results['paymentsBaseline']>): Row[] {
  const rows: Row[] = [`End-to-end payment, this tree against ${before.rev} (measured first, same run)`];
  const baseline = new Map(before.runs.map((r) => [runKey(r), r]));
  for (const r of now.runs) {
    const b = baseline.get(runKey(r));
    if (!b) continue;
    rows.push([
      runName(r),
      `${fixed(r.perSecond)} payments/s · CPU ${fixed(r.cpuMsNet)} ms/payment`,
      `${before.rev}: ${fixed(b.perSecond)} · ${fixed(b.cpuMsNet)} ms`,
      `${pct(r.perSecond / b.perSecond)} (CPU ${pct(r.cpuMsNet / b.cpuMsNet)})`,
      '',
    ]);
  }
  if (now.wire && before.wire) {
    const [w, v] = [now.wire.perPayment, before.wire.perPayment];
    rows.push(['  on the wire, a payment', `${fixed(w.statements)} statements · ${fixed(w.roundTrips)} round trips`, `${before.rev}: ${fixed(v.statements)} · ${fixed(v.roundTrips)}`, '', '']);
  }
  return rows;
}

function dashboardRows(d: NonNullable<Results['dashboard']>): Row[] {
  const rows: Row[] = [];
  const ms = (v: number) => v.toFixed(1);
  for (const e of d.engines) {
    rows.push(`Dashboard pages, ${int(e.payments)} payments (seeded in ${e.seedSeconds.toFixed(0)} s), signed in, ${d.requests} sequential GETs each after ${d.warmup}: time to last byte [${e.engine}]`);
    const b = e.baseline;
    const idle = (i: IdleJobs) => `CPU ${ms(i.cpuMsPerSecond)} ms/s${i.postgresCpuMsPerSecond === null ? '' : ` · PostgreSQL ${ms(i.postgresCpuMsPerSecond)} ms/s`}`;
    rows.push(['  jobs idle, seeded shop', idle(e.idle.seeded), `template's payments: ${idle(e.idle.before)}`, `${(e.idle.seeded.cpuMsPerSecond / e.idle.before.cpuMsPerSecond).toFixed(1)}×`, '']);
    for (const p of e.pages) {
      const fast = p.median < DASHBOARD_GOALS.medianMs;
      const light = p.jsGzip < DASHBOARD_GOALS.jsGzip;
      rows.push([
        `  ${p.name}${p.status === 200 ? '' : ` (${p.status})`}`,
        `HTML ${int(p.htmlGzip)} B · JS ${int(p.jsGzip)} B gzip (${p.jsFiles}) · median ${ms(p.median)} · p95 ${ms(p.p95)} ms`,
        p === e.pages[0] ? `static list HTML ${ms(b.median)} · p95 ${ms(b.p95)} ms` : '',
        `${(p.median / b.median).toFixed(1)}×`,
        `< 50 ms ${fast ? 'ok' : 'OVER'} · < 30 KB ${light ? 'ok' : 'OVER'}`,
      ]);
    }
  }
  return rows;
}

function apiRows(e: EngineResults): Row[] {
  const a = e.api;
  const rows: Row[] = [`API, ${a.connections} connections [${e.engine}]`];
  rows.push(['  POST /v1/transaction/ (3 products)', rate(a.create), `store insert ${int(rps(a.storeInsert))}/s`, ratio(a.create, a.storeInsert), e.engine === 'sqlite' ? '≥ 50% of raw insert' : '']);
  rows.push(['  GET /v1/transaction/{id}/', rate(a.read), `store read ${int(rps(a.storeRead))}/s`, ratio(a.read, a.storeRead), '']);
  rows.push(['  raw: store insertTransaction', rate(a.storeInsert, 'tx/s'), '', '', '']);
  if (a.sqliteInsert.length) {
    rows.push(['  raw: better-sqlite3 prepared', rate(a.sqliteInsert, 'tx/s'), '', `store ${ratio(a.storeInsert, a.sqliteInsert)}`, 'Kysely cost']);
  }
  rows.push(['  raw: store getTransaction', rate(a.storeRead, 'tx/s'), '', '', '']);
  return rows;
}

export function renderTable(r: Results): string {
  const s = r.settings;
  const rows: Row[] = [['Measure', 'Result', 'Reference', 'Ratio', 'Target / budget']];
  rows.push('Bytes (each file compressed on its own; sums over the files a page loads)');
  const a = r.bytes.assets;
  const budget = (name: string) => {
    const b = r.bytes.budgets.find((x) => x.name === name)!;
    return `≤ ${int(b.limit)} B gzip ${b.ok ? 'ok' : 'OVER'}`;
  };
  rows.push(['  widget.js', bytes(a.widget), '', '', budget('widget.js')]);
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  rows.push([`  screen JS, hosted page (${files(a.screenJs.files.length)})`, bytes(a.screenJs), '', '', budget('screen JS, hosted page')]);
  rows.push([`  screen JS, embed page (${files(a.embedJs.files.length)})`, bytes(a.embedJs), '', '', budget('screen JS, embed page')]);
  rows.push([`  challenge dialog JS (${files(a.challengeJs.files.length)})`, bytes(a.challengeJs), '', '', budget('challenge dialog JS')]);
  rows.push([`  Stripe Payment Element glue JS (${files(a.stripeElementJs.files.length)})`, bytes(a.stripeElementJs), '', '', budget('Stripe Payment Element glue JS')]);
  rows.push([`  screen CSS (${files(a.css.files.length)})`, bytes(a.css), '', '', budget('screen CSS')]);
  rows.push(['  page HTML (3 products)', bytes(r.bytes.html), '', '', '']);
  for (const p of r.bytes.pages) {
    const name = `page JS + inline state, ${p.page}`;
    rows.push([`  ${name}`, `${int(p.gzip)} B gzip · JS ${int(p.js.gzip)} (${files(p.js.files.length)}) + state ${int(p.state.gzip)}`, '', '', budget(name)]);
  }
  const docs = r.bytes.docs;
  if (docs) {
    rows.push(['  reference /docs/ HTML', bytes(docs.html), '', '', budget('docs HTML')]);
    rows.push(['  errors /docs/errors HTML', bytes(docs.errors), '', '', budget('docs errors HTML')]);
    rows.push([`  reference CSS (${files(docs.css.files.length)})`, bytes(docs.css), '', '', budget('docs CSS')]);
    rows.push([`  reference JS (${files(docs.js.files.length)})`, bytes(docs.js), '', '', budget('docs JS')]);
  }
  if (r.browser) {
    rows.push(['  requests before interactive, hosted', requestsSummary(r.browser.hosted.service.requests), '', '', '']);
    rows.push(['  requests before interactive, widget', requestsSummary(r.browser.widget.service.requests), '', '', '']);
  }
  for (const e of r.engines) rows.push(...engineRows(e, r));
  if (r.money?.rows.length) rows.push(...moneyRows(r.money));
  if (r.payments?.runs.length) rows.push(...paymentRows(r.payments));
  if (r.paymentsBaseline?.runs.length) {
    rows.push(...paymentRows(r.paymentsBaseline, ` of ${r.paymentsBaseline.rev} (--payment-baseline)`));
    if (r.payments?.runs.length) rows.push(...againstBaselineRows(r.payments, r.paymentsBaseline));
    if (r.paymentRounds && r.paymentRounds.length > 1) rows.push(...roundRows(r.paymentsBaseline.rev, r.paymentRounds));
  }
  if (r.dashboard?.engines.length) rows.push(...dashboardRows(r.dashboard));
  if (r.browser) {
    const b = r.browser;
    rows.push(`Browser: navigation → pay button interactive, median of ${s.browserRuns} (min–max) [sqlite]`);
    rows.push(['  hosted page', ms(b.hosted.service), `static ${ms(b.hosted.static)}`, `${(b.hosted.service.median / b.hosted.static.median).toFixed(2)}×`, '']);
    rows.push(['  widget inline, merchant page', ms(b.widget.service), `static ${ms(b.widget.static)}`, `${(b.widget.service.median / b.widget.static.median).toFixed(2)}×`, '']);
  }

  if (r.docs) {
    const d = r.docs;
    rows.push(`Reference /docs/ in Chromium, 1280 px: navigation → h1 painted, median of ${s.browserRuns} (min–max) [sqlite]`);
    rows.push(['  h1 painted', ms(d.service), `static ${ms(d.static)}`, `${(d.service.median / d.static.median).toFixed(2)}×`, '< 1,000 ms (Redoc: 3,800–7,200)']);
    rows.push(['  first contentful paint · DOMContentLoaded', `${int(d.service.fcpMedian)} ms · ${int(d.service.domContentLoadedMedian)} ms`, `static ${int(d.static.fcpMedian)} · ${int(d.static.domContentLoadedMedian)} ms`, '', '']);
    rows.push([
      '  DOM once loaded',
      `${int(d.service.elements)} elements · ${int(d.service.nodes)} nodes`,
      `Redoc ${int(REDOC_ELEMENTS)}`,
      pct(d.service.elements / REDOC_ELEMENTS),
      `≤ ${int(REDOC_ELEMENTS / 5)} elements (a fifth)`,
    ]);
  }

  const cells = rows.filter((row): row is Exclude<Row, string> => typeof row !== 'string');
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  const total = widths.reduce((x, y) => x + y + 2, -2);
  const out = [
    `Checkout benchmark, ${r.date}: ${r.machine.cpu}, ${r.machine.cores} cores, Node ${r.machine.node}, load average ${r.machine.load.map((l) => l.toFixed(1)).join(' → ')}`,
    r.engines.length
      ? `Load: autocannon on loopback, ${s.rounds} round(s) × ${s.duration} s, each after ${s.warmup} s warm-up (${s.startWarmup} s after a server starts); ` +
        'ratio = req/s over req/s (and CPU per request: theirs over ours); the service logs at info to a file'
      : 'Bytes only',
    '─'.repeat(total),
  ];
  for (const row of rows) out.push(typeof row === 'string' ? row : line(row));
  out.push('─'.repeat(total));
  const over = r.bytes.budgets.filter((b) => !b.ok);
  out.push(over.length ? `OVER BUDGET: ${over.map((b) => `${b.name} ${int(b.actual)} B > ${int(b.limit)} B`).join('; ')}` : 'All byte budgets met.');
  for (const e of r.errors) out.push(`FAILED: ${e}`);
  return out.join('\n');
}
