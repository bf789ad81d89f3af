import { afterAll, beforeAll, describe } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../server/config';
import type { Gateways } from '../../server/payments/registry';
import type { PayoutGateway } from '../../server/payments/payout-gateway';
import { startService, type Service } from '../../server/service';
import { createEnvironment, type NewKeys } from '../../server/store/environments';
import { migratedDataDir } from '../database-template';
import { TEST_PASSWORD_HASH_COST } from '../password-cost';
import { type TestClock, testClock } from '../clock';
import { ENGINES, type EngineName, TEST_SECRETS_KEY } from '../test-env';
import { assertContract } from './contract';

export { type TestClock, testClock } from '../clock';
export { ENGINES, type EngineName, EVERY_ENGINE, TEST_SECRETS_KEY } from '../test-env';

// The API suite runs against the real service on a random port, once per engine:
// SQLite always, PostgreSQL whenever TEST_DATABASE_URL is set. Every answer from /v1/
// is checked against the OpenAPI document (./contract.ts).

/**
 * A suite that runs in the run that includes SQLite: one about SQLite alone, or one that is
 * the same on either engine, in a file whose other suites are taken through ENGINES. npm test
 * runs such a file's halves apart (vitest.config.ts), and the suite runs once, in the first.
 */
export const describeWithSqlite = describe.runIf(ENGINES.includes('sqlite'));

/** The highest rate limit the configuration takes: none a test reaches. */
export const UNLIMITED = '1000000';

export interface TestService {
  service: Service;
  url: string;
  dataDir: string;
  /** A fresh environment (tenant) with its own keys. */
  newEnvironment(name?: string): Promise<Client>;
  close(): Promise<void>;
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class Client {
  constructor(
    readonly url: string,
    readonly keys: NewKeys,
  ) {}

  get auth(): string {
    return `AppKeys ${this.keys.public_key}:${this.keys.secret_key}`;
  }

  async request<T = any>(
    method: string,
    path: string,
    opts: {
      body?: unknown;
      raw?: string;
      headers?: Record<string, string>;
      /** Replaces the Authorization header; null sends none. */
      auth?: string | null;
    } = {},
  ): Promise<Reply<T>> {
    const auth = opts.auth === undefined ? this.auth : opts.auth;
    const headers: Record<string, string> = { ...(auth === null ? {} : { authorization: auth }), ...opts.headers };
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.url}/v1${path}`, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    assertContract(method, res.url || `${this.url}/v1${path}`, res.status, res.headers, text);
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get = <T = any>(path: string, headers?: Record<string, string>) => this.request<T>('GET', path, { headers });
  post = <T = any>(path: string, body: unknown, headers?: Record<string, string>) =>
    this.request<T>('POST', path, { body, headers });
  patch = <T = any>(path: string, body: unknown) => this.request<T>('PATCH', path, { body });
  delete = <T = any>(path: string) => this.request<T>('DELETE', path);

  /** `count` of a list, to check that a refused request created nothing. */
  async count(listPath: string): Promise<number> {
    const res = await this.get(listPath);
    if (res.status !== 200) throw new Error(`GET ${listPath}: ${res.status} ${res.text}`);
    return res.body.count;
  }
}

/** A request without any client: no Authorization header unless given. */
export async function rawRequest(
  url: string,
  init: RequestInit = {},
): Promise<Reply> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const text = await res.text();
  assertContract(init.method ?? 'GET', String(url), res.status, res.headers, text);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Asserts the RFC 9457 shape every error shares; returns the field paths named. */
export function problemPaths(res: Reply): string[] {
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('application/problem+json')) {
    throw new Error(`expected application/problem+json, got ${type}: ${res.text.slice(0, 200)}`);
  }
  const b = res.body;
  if (!b || b.status !== res.status || typeof b.type !== 'string' || typeof b.title !== 'string' || typeof b.detail !== 'string') {
    throw new Error(`not a problem body: ${res.text.slice(0, 300)}`);
  }
  return (b.errors ?? []).map((e: { path: string }) => e.path);
}

export async function startTestService(
  engine: EngineName,
  /** background: true starts the jobs; otherwise tests call service.jobs.runAll(). gateways, payouts: instead of the sandbox ones. */
  opts: { now?: () => Date; env?: Record<string, string>; background?: boolean; gateways?: Gateways; payouts?: PayoutGateway; log?: pino.Logger } = {},
): Promise<TestService> {
  // On SQLite unless the test names its own data: a database already migrated (test/database-template.ts).
  const sqlite = engine === 'sqlite' && !opts.env?.DATABASE_URL && !opts.env?.DATA_DIR;
  const dataDir = sqlite ? await migratedDataDir('checkout-test-') : mkdtempSync(join(tmpdir(), 'checkout-test-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEMO: 'false',
    LOG_LEVEL: 'silent',
    // Out of the way: a test sends far more than a shop's 100 requests a second from one
    // environment; the rate-limit tests set their own (rate-limits.test.ts).
    API_RATE_LIMIT: UNLIMITED,
    IP_RATE_LIMIT: UNLIMITED,
    PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
    SECRETS_KEY: TEST_SECRETS_KEY,
    // A second connection asked inside a transaction fails the test at once rather than
    // deadlocking only when the pool is full (store/open-transaction.ts).
    DB_STRICT_TRANSACTIONS: 'true',
    ...(engine === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
    ...opts.env,
  });
  // Off unless asked for, for the same reason as in process.ts: test files share the
  // PostgreSQL database, and one file's worker would take another's events.
  // A test that reads the log (what must never be in it) passes its own logger.
  const service = await startService(config, opts.log ?? pino({ level: 'silent' }), {
    now: opts.now,
    background: opts.background ?? false,
    gateways: opts.gateways,
    payouts: opts.payouts,
  });
  return {
    service,
    url: service.url,
    dataDir,
    async newEnvironment(name = 'Test shop') {
      const keys = await createEnvironment(service.deps.database.db, { name, now: new Date() });
      return new Client(service.url, keys);
    },
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A service for the enclosing describe block (started before its tests, closed after) and
 * one fresh environment on it: `svc.t` and `svc.api` are set once the block starts;
 * `svc.clock` is the service's clock.
 */
export function useTestService(engine: EngineName, environmentName?: string, env?: () => Record<string, string>): { t: TestService; api: Client; clock: TestClock } {
  const svc = { clock: testClock() } as { t: TestService; api: Client; clock: TestClock };
  beforeAll(async () => {
    // `env` is read when the service starts: after the file's earlier hooks (a test double's URL).
    svc.t = await startTestService(engine, { now: svc.clock.now, env: env?.() });
    svc.api = await svc.t.newEnvironment(environmentName);
  });
  afterAll(() => svc.t?.close());
  return svc;
}

/** A minimal valid transaction body, overridable field by field. */
export function transactionBody(over: Record<string, unknown> = {}) {
  return {
    currency: 'EUR',
    order_id: 'order-1',
    products: [{ amount: 2, product: { name: 'Coffee beans', price: 8.5 } }],
    ...over,
  };
}
