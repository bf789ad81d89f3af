// The scale curve: `npm run bench -- --processes 1,2,3` with BENCH_DATABASE_URL. For each
// count, that many service processes (server/main.ts, as `npm run dev` starts them) on one
// PostgreSQL database of their own, under load spread over all of them by autocannon:
// POST /v1/transaction/ (rate limit raised out of the way) and GET /pay/{token}/. Prints
// req/s and p99 per count, and the CPU share of each service process and of PostgreSQL
// (all its backends, from /proc) over each run, in one table. Asserts nothing.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../../server/store/db';
import { createEnvironment } from '../../server/store/environments';
import { migrate } from '../../server/store/migrations';
import { freePort, startService, type Target } from './targets';

const TICK_MS = 10;
/** CPU ms (user + system) of each process named `postgres`, by pid. */
export function postgresCpu(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byPid.set(Number(pid), (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid;
}

/** CPU ms of every process named `postgres`. */
export const postgresCpuMs = (): number => [...postgresCpu().values()].reduce((a, b) => a + b, 0);

/**
 * What the `postgres` processes alive at both `before` and `after` used between them: one
 * that exits meanwhile would take its CPU out of a sum (short-lived backends are left out).
 */
export const postgresCpuBetween = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((sum, [pid, ms]) => sum + (before.has(pid) ? ms - before.get(pid)! : 0), 0);

interface Run {
  rps: number;
  p99: number;
  failures: number;
  /** Per service process, % of one core over the run. */
  serviceCpu: number[];
  postgresCpu: number;
}

async function measure(targets: Target[], request: { path: string; method?: 'POST'; headers?: Record<string, string>; body?: string }, seconds: number): Promise<Run> {
  const options = { url: targets.map((t) => `${t.url}${request.path}`), connections: 10 * targets.length, method: request.method ?? ('GET' as const), headers: request.headers, body: request.body, timeout: 10 };
  await autocannon({ ...options, duration: 1 });
  const before = targets.map((t) => t.cpuMs() ?? 0);
  const pgBefore = postgresCpuMs();
  const started = performance.now();
  const r = await autocannon({ ...options, duration: seconds });
  const wall = performance.now() - started;
  return {
    rps: r.requests.total / r.duration,
    p99: r.latency.p99,
    failures: r.errors + r.non2xx,
    serviceCpu: targets.map((t, i) => (100 * ((t.cpuMs() ?? 0) - before[i]!)) / wall),
    postgresCpu: (100 * (postgresCpuMs() - pgBefore)) / wall,
  };
}

export async function scaleCurve(counts: number[], seconds: number): Promise<void> {
  const base = process.env.BENCH_DATABASE_URL;
  if (!base) throw new Error('--processes needs BENCH_DATABASE_URL (PostgreSQL): SQLite runs one process');
  const name = `checkout_scale_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = base.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  const work = mkdtempSync(join(tmpdir(), 'checkout-scale-'));
  const rows: string[] = [];
  try {
    const database = openDatabase({ databaseUrl: url, dataDir: work });
    await migrate(database);
    const keys = await createEnvironment(database.db, { name: 'Scale', now: new Date() });
    await database.close();
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ currency: 'EUR', order_id: 'scale', products: [{ amount: 2, product: { name: 'Coffee beans 250 g', price: 8.5 } }] });
    // The limit is per environment and this load is one environment: out of the way here.
    process.env.API_RATE_LIMIT = '1000000';
    process.env.BACKGROUND_WORK = 'false';
    for (const n of counts) {
      const targets: Target[] = [];
      try {
        for (let i = 0; i < n; i++) targets.push(await startService({ port: await freePort(), dataDir: work, databaseUrl: url, logFile: join(work, 'services.log') }));
        const created = await fetch(`${targets[0]!.url}/v1/transaction/`, { method: 'POST', headers, body });
        const { token } = (await created.json()) as { token: string };
        const create = await measure(targets, { path: '/v1/transaction/', method: 'POST', headers, body }, seconds);
        const page = await measure(targets, { path: `/pay/${token}/` }, seconds);
        const cpu = (r: Run) => `${r.serviceCpu.map((c) => c.toFixed(0)).join('+')} % / ${r.postgresCpu.toFixed(0)} %`;
        rows.push(
          `| ${n} | ${create.rps.toFixed(0)} | ${create.p99} | ${cpu(create)} | ${page.rps.toFixed(0)} | ${page.p99} | ${cpu(page)} | ${create.failures + page.failures} |`,
        );
      } finally {
        for (const t of targets) await t.stop();
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
  process.stdout.write(
    [
      `Scale curve, ${seconds} s per run after 1 s of warm-up, 10 connections per process, one PostgreSQL:`,
      '| processes | create req/s | create p99 ms | create CPU: each process / PostgreSQL | page req/s | page p99 ms | page CPU: each process / PostgreSQL | failures |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}
