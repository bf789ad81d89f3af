import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { RETURN_AFTER_MS } from '../../widget/screen/model-actions';
import { migratedDataDir } from '../database-template';
import { TEST_PASSWORD_HASH_COST } from '../password-cost';
import { startArgs } from '../server-bundle';

// Each worker runs the real service as a child process (its own SQLite directory) and a
// stand-in merchant site on another origin (127.0.0.1 vs localhost, other port) that
// records where customers arrive and serves the widget's host pages.

export interface Service {
  url: string;
  dataDir: string;
  auth: string;
  /** POST /v1/transaction/ with the demo environment's keys. */
  createTransaction(body: Record<string, unknown>): Promise<Transaction>;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** The service's structured log lines so far (JSON lines on stdout; the demo banner excluded). */
  logLines(): string[];
}

export interface Transaction {
  id: string;
  token: string;
  status: string;
  payment_url: string;
  [key: string]: unknown;
}

export interface Merchant {
  origin: string;
  /** Paths customers arrived at (return/cancel pages), in order. */
  arrivals: string[];
  /** Serve `html` at `path` on the merchant origin. */
  page(path: string, html: string): string;
  waitForArrival(prefix: string): Promise<string>;
}

/**
 * The service as a child process on a fresh SQLite directory, with its demo environment
 * (whose keys `auth` holds) unless `env` says DEMO=false (then `auth` is empty).
 */
export async function startService(env: Record<string, string> = {}): Promise<{ service: Service; stop(): Promise<void> }> {
  // Already migrated (test/database-template.ts): the service's own migrate finds nothing to do.
  const dataDir = env.DATABASE_URL ? mkdtempSync(join(tmpdir(), 'checkout-e2e-')) : await migratedDataDir('checkout-e2e-');
  // From the run's compiled bundle (test/server-bundle.ts, Playwright's global setup).
  const child: ChildProcess = spawn(process.execPath, startArgs('main'), {
    // Rate limits out of the way: the browser tests pay and sign up far faster than people.
    // No drain on SIGTERM: no load balancer has to take the process out (drain.test.ts covers it).
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, DEMO: 'true', LOG_LEVEL: 'info', DATABASE_URL: '', API_RATE_LIMIT: '1000000', IP_RATE_LIMIT: '1000000', PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST, SHUTDOWN_DRAIN_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const ready = new Promise<{ url: string; auth: string }>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const pk = /public key:\s+(\S+)/.exec(out)?.[1];
      const sk = /secret key:\s+(\S+)/.exec(out)?.[1];
      const listening = /"url":"([^"]+)".*"msg":"listening"/.exec(out)?.[1];
      // The demo keys are printed before "listening".
      if (listening) resolve({ url: listening, auth: pk && sk ? `AppKeys ${pk}:${sk}` : '' });
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}:\n${out}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const { url, auth } = await ready;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/v1${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const service: Service = {
    url,
    dataDir,
    auth,
    api,
    logLines: () => out.split('\n').filter((line) => line.startsWith('{')),
    async createTransaction(body) {
      const res = await api('POST', '/transaction/', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as Transaction;
    },
  };
  return {
    service,
    async stop() {
      // Stopped, the service exits 0; one that crashed before (or on the way) says so here
      // rather than leaving the fixture waiting for an exit that has already happened.
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`the service exited with ${code}:\n${out.slice(-2000)}`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startMerchant(): Promise<{ merchant: Merchant; stop(): Promise<void> }> {
  const pages = new Map<string, string>();
  const arrivals: string[] = [];
  const waiters: { prefix: string; resolve: (p: string) => void }[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? '/';
    const html = pages.get(path.split('?')[0]!);
    if (html) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      return;
    }
    if (path === '/favicon.ico') return void res.writeHead(404).end();
    arrivals.push(path);
    for (const w of waiters.filter((w) => path.startsWith(w.prefix))) w.resolve(path);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><html lang="en"><title>Merchant</title><h1>Merchant page</h1><p id="arrived">${path.replace(/[<&]/g, '')}</p></html>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    merchant: {
      origin,
      arrivals,
      page(path, html) {
        pages.set(path, html);
        return `${origin}${path}`;
      },
      waitForArrival(prefix) {
        const seen = arrivals.find((a) => a.startsWith(prefix));
        if (seen) return Promise.resolve(seen);
        return new Promise((resolve) => waiters.push({ prefix, resolve }));
      },
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A site of the worker's own (startMerchant), up while the worker runs. */
async function siteOfTheWorker({}, use: (site: Merchant) => Promise<void>): Promise<void> {
  const { merchant, stop } = await startMerchant();
  await use(merchant);
  await stop();
}

function withoutArrivals(site: Merchant): Merchant {
  site.arrivals.length = 0;
  return site;
}

// Every spec's fixtures are declared here, worker-scoped ones included (set up only where a
// test asks for them), and every spec takes `test` from here: a spec with a test of its own
// (its own extend(), or @playwright/test's) runs in workers of its own, each with its own
// browser and service (about 7 s of starts a worker).
export const test = base.extend<
  { merchant: Merchant; stranger: Merchant; toShop: (url: string | RegExp) => Promise<void> },
  { service: Service; merchantSite: Merchant; strangerSite: Merchant }
>({
  service: [
    async ({}, use) => {
      const { service, stop } = await startService();
      await use(service);
      await stop();
    },
    // Its own limit rather than the first test's 30 s: under load a start (about 1 s of a
    // quiet core) took over 30 s, and the worker's tests failed with it before they began.
    { scope: 'worker', timeout: 120_000 },
  ],
  merchantSite: [siteOfTheWorker, { scope: 'worker' }],
  /** A second site on another port: a third origin (an ad frame forging messages, a shop that may not embed). */
  strangerSite: [siteOfTheWorker, { scope: 'worker' }],
  // A fresh arrivals list per test on the worker's sites.
  merchant: async ({ merchantSite }, use) => use(withoutArrivals(merchantSite)),
  stranger: async ({ strangerSite }, use) => use(withoutArrivals(strangerSite)),
  /**
   * The way back to the shop: `url` (a string: that URL exactly) must be where the page
   * ends up. A paid screen shows its confirmation for RETURN_AFTER_MS before the shop
   * opens; the test's clock (installed as the test starts, running as the real one does)
   * is moved on over that wait rather than waiting it. The confirmation itself is
   * checked in checkout.spec.ts ("approve with 4242… lands on return_url").
   */
  toShop: async ({ page }, use) => {
    await page.clock.install();
    await use(async (url) => {
      const there = () => (typeof url === 'string' ? page.url() === url : url.test(page.url()));
      await expect(async () => {
        if (!there()) await page.clock.fastForward(RETURN_AFTER_MS);
        expect(there(), `at ${page.url()}, not ${url}`).toBe(true);
      }).toPass({ timeout: 30_000 });
      // And loaded, as waitForURL has it.
      await page.waitForURL(url);
    });
  },
});

export { expect };
export { TEST_CARDS as CARDS };

const SIGNED_SUBJECT = { transaction: 'transaction_id=[0-9a-f-]{36}&status=[DC]', subscription: 'subscription_id=[0-9a-f-]{36}&status=[a-z_]+' };

/**
 * A return to `url` as the checkout sends the customer there once paid or cancelled (or a
 * sign-up's, once signed up or left): with transaction_id (subscription_id), status,
 * timestamp and signature appended (docs/checkout.md "Signed returns"). `url` whole, or
 * from its path on (as the merchant site records arrivals).
 */
export const returnTo = (url: string, subject: keyof typeof SIGNED_SUBJECT = 'transaction') =>
  new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[?&]${SIGNED_SUBJECT[subject]}&timestamp=\\d+&signature=[^&#]+$`);

/** From a focused card number field: types the approving card, then Tab through expiry, CVC and name. */
export async function typeCardWithKeyboard(page: Page): Promise<void> {
  const fields = [TEST_CARDS.approved, '12/34', '123', 'Ada Lovelace'];
  for (const value of fields) {
    await page.keyboard.type(value);
    await page.keyboard.press('Tab');
  }
}
