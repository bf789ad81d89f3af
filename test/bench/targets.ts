import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

// The servers under load, each in a child process of its own so the load generator (this
// process) and the server never share an event loop: the service started exactly as
// `npm run dev` starts it (server/main.ts under tsx), and the baselines (baseline-server.ts).
// All listen on 127.0.0.1 only.

const ROOT = new URL('../../', import.meta.url).pathname;

export interface Target {
  url: string;
  /** CPU time (user + system) the process has used so far, ms; null where /proc is missing. */
  cpuMs(): number | null;
  stop(): Promise<void>;
}

// Linux's USER_HZ: /proc reports CPU time in hundredths of a second.
const TICK_MS = 10;

function cpuMsOf(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses: utime and stime are 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

export interface ServiceOptions {
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  /** The service's stdout and stderr (its pino lines) go here, as in production. */
  logFile: string;
  /** Write a V8 CPU profile of the service into this folder when it stops. */
  cpuProfDir?: string;
  /** Another checkout of the project to run the service from (compare.ts); default: this one. */
  root?: string;
  /** DEMO=true: the service creates an environment and prints its keys to the log. */
  demo?: boolean;
  /** More of the service's environment (SANDBOX_LATENCY_MS for a "latency on" run). */
  env?: Record<string, string>;
}

/** A port that was free a moment ago; every target of a comparison listens on it in turn. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function launch(args: string[], env: NodeJS.ProcessEnv, port: number, logFile: string, cwd = ROOT): Promise<Target> {
  const log = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', log, log] });
  closeSync(log);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${args.join(' ')} exited before listening:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not listen on ${url} within 60 s`);
    }
    // Any HTTP answer means it listens (a 404 from a previous target is impossible: it has exited).
    const up = await fetch(`${url}/ready-probe`).then(() => true, () => false);
    if (up) break;
    await sleep(50);
  }
  return {
    url,
    cpuMs: () => cpuMsOf(child.pid),
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exit;
      clearTimeout(killed);
    },
  };
}

export function startService(o: ServiceOptions): Promise<Target> {
  const { DATABASE_URL: _, TEST_DATABASE_URL: __, BENCH_DATABASE_URL: ___, PUBLIC_URL: ____, ...inherited } = process.env;
  const env = {
    ...inherited,
    PORT: String(o.port),
    HOST: '127.0.0.1',
    DATA_DIR: o.dataDir,
    DATABASE_URL: o.databaseUrl ?? '',
    DEMO: o.demo ? 'true' : 'false',
    // The production default: one pino line per request, written to a file.
    LOG_LEVEL: 'info',
    // Far above any load run (else most answers would be 429s): the limiter still runs on each request.
    API_RATE_LIMIT: '1000000',
    IP_RATE_LIMIT: '1000000',
    ...o.env,
  };
  const profile = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [];
  return launch([...profile, '--import', 'tsx', 'server/main.ts'], env, o.port, o.logFile, o.root);
}

export type BaselineKind = 'http' | 'express' | 'static';

/** `pagesFile`: JSON of request path → HTML (see baseline-server.ts). */
export function startBaseline(kind: BaselineKind, port: number, pagesFile: string, logFile: string): Promise<Target> {
  return launch(['--import', 'tsx', 'test/bench/baseline-server.ts', kind, String(port), pagesFile], process.env, port, logFile);
}
