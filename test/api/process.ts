import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, afterEach } from 'vitest';
import type { NewKeys } from '../../server/store/environments';
import { migratedDataDir } from '../database-template';
import { freshDatabase } from './database';
import { TEST_PASSWORD_HASH_COST } from '../password-cost';
import { TEST_SECRETS_KEY, UNLIMITED } from './harness';
import { startArgs } from '../server-bundle';
import { runHere } from '../cli';
import { keysCommand } from '../../server/cli/keys';
import { usersCommand } from '../../server/cli/users';

// The service and the keys CLI as real child processes, for tests about processes:
// crashes, restarts, CLIs. Started from the test run's compiled bundles (test/server-bundle.ts:
// the same code `npm run dev` and `npm run keys` run under tsx, compiled once per run).

const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);

export interface ProcessEnv {
  DATA_DIR: string;
  DATABASE_URL?: string;
  [name: string]: string | undefined;
}

/** The clock of the service processes given `env` (test/service-clock.ts). */
export { serviceClock as testClock } from '../service-clock';

/**
 * The jobs the process tests wait for, at a tenth of their periods (100 ms at least): what a
 * test proves does not depend on how often a job looks, only the wait does.
 */
const FAST_JOBS = Object.entries({ reconciliation: 500, 'source-payments': 500, 'compliance-review': 500, payouts: 200, 'merchant-payouts': 200, balance: 100, 'sandbox-disputes': 100, 'sandbox-dispute-reviews': 100, 'subscription-charges': 100, 'webhook-delivery': 100, 'mail-delivery': 100 })
  .map(([job, ms]) => `${job}=${ms}`)
  .join(',');

function childEnv(env: ProcessEnv): NodeJS.ProcessEnv {
  const { TEST_DATABASE_URL: _, DATABASE_URL: __, ...rest } = process.env;
  // No background work unless a test asks for it: a worker of one test file must not
  // deliver or expire another's rows in a shared PostgreSQL database.
  // No drain delay on SIGTERM unless a test asks for one (drain.test.ts): stopping waits for it.
  // Rate limits out of the way (as in harness.ts) unless a test sets its own.
  const limits = { API_RATE_LIMIT: UNLIMITED, IP_RATE_LIMIT: UNLIMITED, PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST };
  // As in the in-process services (harness.ts): a second connection inside a transaction fails at once.
  const strict = { DB_STRICT_TRANSACTIONS: 'true' };
  return { ...rest, HOST: '127.0.0.1', PORT: '0', DEMO: 'false', LOG_LEVEL: 'info', BACKGROUND_WORK: 'false', SHUTDOWN_DRAIN_MS: '0', SECRETS_KEY: TEST_SECRETS_KEY, JOB_PERIODS: FAST_JOBS, ...limits, ...strict, ...env };
}

/** The keys CLI (`npm run keys -- …`): its stdout, or a rejection with its stderr. */
export async function keysCli(args: string[], env: ProcessEnv): Promise<string> {
  const { stdout } = await run(process.execPath, [...startArgs('keys-cli'), ...args], {
    cwd: ROOT,
    env: childEnv(env),
    timeout: 30_000,
  });
  return stdout;
}

/** `npm run users -- …` against the same data. */
export async function usersCli(args: string[], env: ProcessEnv): Promise<string> {
  const { stdout } = await run(process.execPath, [...startArgs('users-cli'), ...args], {
    cwd: ROOT,
    env: childEnv(env),
    timeout: 30_000,
  });
  return stdout;
}

export async function createKeys(name: string, env: ProcessEnv): Promise<NewKeys> {
  return JSON.parse(await keysCli(['create', '--name', name, '--json'], env));
}

/**
 * The keys CLI's command in this process (test/cli.ts), configured as keysCli's process is:
 * its stdout, or a rejection with its code and stderr, as keysCli's.
 */
export const keysHere = (args: string[], env: ProcessEnv): Promise<string> => runHere(keysCommand, args, childEnv(env));

/** The users CLI's command in this process, as keysHere. */
export const usersHere = (args: string[], env: ProcessEnv): Promise<string> => runHere(usersCommand, args, childEnv(env));

/** A new environment's keys from keysHere. */
export const createKeysHere = async (name: string, env: ProcessEnv): Promise<NewKeys> => JSON.parse(await keysHere(['create', '--name', name, '--json'], env));

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** Every stdout line so far. */
  output: string[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code or signal. */
  exited: Promise<number | NodeJS.Signals | null>;
  stop(): Promise<void>;
}

/** Starts the service (`server/main.ts`) and waits for its pino `listening` line. */
export async function startServiceProcess(env: ProcessEnv): Promise<ServiceProcess> {
  // node itself rather than npx: the pid is the service, so a signal hits it.
  const child = spawn(process.execPath, startArgs('main'), {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    // Not started in time: the process goes too, or its jobs would run on, loading the machine for the tests after.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start:\n${output.join('\n')}\n${stderr}`));
    }, 30_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      try {
        const msg = JSON.parse(line) as { msg?: string; url?: string };
        if (msg.msg === 'listening' && msg.url) {
          clearTimeout(timer);
          resolve(msg.url);
        }
      } catch {
        // not a log line (demo instructions)
      }
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${how}) before listening:\n${output.join('\n')}\n${stderr}`));
    });
  });
  return {
    child,
    url,
    output,
    stderr: () => stderr,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Service processes and their data for a test file: an environment (a fresh data folder,
 * and a fresh PostgreSQL database on that engine) and started processes, all stopped and
 * removed after each test.
 */
export function processScope() {
  const running: ServiceProcess[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const p of running.splice(0)) await p.stop();
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    running,
    /** Runs after the test, before the data goes (last added, first run). */
    cleanup: (fn: () => Promise<void> | void) => void cleanups.push(fn),
    async environment(engine: string, extra: Omit<ProcessEnv, 'DATA_DIR'> = {}): Promise<ProcessEnv> {
      const dataDir = engine === 'postgres' ? mkdtempSync(join(tmpdir(), 'checkout-process-')) : await migratedDataDir('checkout-process-');
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const env: ProcessEnv = { ...extra, DATA_DIR: dataDir };
      if (engine === 'postgres') {
        const db = await freshDatabase();
        cleanups.push(db.drop);
        env.DATABASE_URL = db.url;
      }
      return env;
    },
    async started(env: ProcessEnv): Promise<ServiceProcess> {
      const p = await startServiceProcess(env);
      running.push(p);
      return p;
    },
  };
}

/**
 * For the enclosing describe block: what service processes on `engine` run with (a data
 * directory of their own; on PostgreSQL, TEST_DATABASE_URL), and the list to put them in,
 * so they are stopped and the directory removed after the block.
 */
export function useProcesses(engine: string, prefix: string): { env: ProcessEnv; running: ServiceProcess[] } {
  const env: ProcessEnv = {
    DATA_DIR: mkdtempSync(join(tmpdir(), prefix)),
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
  };
  const running: ServiceProcess[] = [];
  afterAll(async () => {
    for (const p of running) await p.stop();
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  });
  return { env, running };
}
