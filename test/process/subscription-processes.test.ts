import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { freshDatabase } from '../api/database';
import { SANDBOX_CARD } from '../api/pay';
import { type ProcessEnv, type ServiceProcess, startServiceProcess, testClock } from '../api/process';
import { createShopKeys } from '../shop-keys';

// The scheduler as it runs in production: service processes with their background loops
// on one PostgreSQL, their shared clock moved by the test (TEST_CLOCK_FILE) one period at
// a time. Whatever the interleaving, or a SIGKILL mid-run, each period is charged once.

const DAY = 86_400_000;
const SUBSCRIPTIONS = 6;
const PERIODS = 24;

const running: ServiceProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.stop();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * The processes' SUBSCRIPTION_CLAIM_MS: how long a dead process's claims last; also their
 * PAYMENT_SETTLE_WINDOW_MS, so a charge the dead process left pending is settled once the
 * clock has moved past it: found charged in the sandbox's books (database, the default) when
 * the sandbox made it, proven not made when it never got the call.
 */
const CLAIM_MS = 5 * 60_000;

describe.skipIf(!process.env.TEST_DATABASE_URL)('subscription charges across service processes on one PostgreSQL', () => {
  async function setup() {
    const dir = mkdtempSync(join(tmpdir(), 'checkout-subs-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = await freshDatabase();
    cleanups.push(db.drop);
    const clock = testClock(dir);
    let offset = 0;
    /** Moves every process's clock on by `ms`. */
    const move = (ms: number) => clock.set((offset += ms));
    const env: ProcessEnv = { DATA_DIR: dir, DATABASE_URL: db.url, BACKGROUND_WORK: 'true', ...clock.env, LOG_LEVEL: 'info', SUBSCRIPTION_CLAIM_MS: String(CLAIM_MS), PAYMENT_SETTLE_WINDOW_MS: String(CLAIM_MS) };
    const keys = await createShopKeys('Gym', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const start = async () => {
      const p = await startServiceProcess(env);
      running.push(p);
      return p;
    };
    return { env, headers, move, start };
  }

  async function call(url: string, headers: Record<string, string>, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${url}/v1${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** Daily subscriptions, started: their first period is due at once. */
  async function subscribe(url: string, headers: Record<string, string>): Promise<string[]> {
    const plan = await call(url, headers, '/plan/', { name: 'Daily pass', amount: 1.5, currency: 'EUR', interval: 'day' });
    const ids: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const card = await call(url, headers, '/authorization/', { gateway: SANDBOX_CARD, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'A' } });
      const sub = await call(url, headers, '/subscription/', { plan: plan.id, authorization: card.id });
      await call(url, headers, `/subscription/${sub.id}/start/`, {});
      ids.push(sub.id);
    }
    return ids;
  }

  /** Waits (the background loops run every second) until every subscription has `n` charged periods. */
  async function charged(url: string, headers: Record<string, string>, ids: string[], n: number) {
    await expect
      .poll(
        async () => {
          const { results } = await call(url, headers, '/subscription/?page_size=100');
          const byId = new Map<string, any>(results.map((s: { id: string }) => [s.id, s]));
          return ids.map((id) => byId.get(id).charges.filter((c: { status: string }) => c.status === 'charged').length);
        },
        { timeout: 30_000, interval: 100 },
      )
      .toEqual(ids.map(() => n));
  }

  /** `retried`: an attempt may have been made again (its process died before the gateway saw it). */
  async function exactlyOnce(url: string, headers: Record<string, string>, ids: string[], retried = false) {
    for (const id of ids) {
      const sub = await call(url, headers, `/subscription/${id}/`);
      expect(sub.charges.map((c: { period: number }) => c.period)).toEqual(Array.from({ length: PERIODS }, (_, i) => i + 1));
      expect(sub.charges.every((c: { status: string; attempts: number }) => c.status === 'charged' && (retried || c.attempts === 1))).toBe(true);
      // One period after another, none skipped: each starts where the one before ended.
      for (let i = 1; i < PERIODS; i++) expect(sub.charges[i].period_start).toBe(sub.charges[i - 1].period_end);
      const sales = await call(url, headers, `/sale/?authorization_id=${sub.authorization}&page_size=100`);
      expect(sales.count).toBe(PERIODS);
      expect(new Set(sales.results.map((s: { transaction_id: string }) => s.transaction_id)).size).toBe(PERIODS);
    }
  }

  it('two processes, the clock moved across 24 daily periods: exactly 24 charges per subscription, one per period', { timeout: 240_000 }, async () => {
    const { headers, move, start } = await setup();
    const processes = [await start(), await start()];
    const url = processes[0]!.url;
    const ids = await subscribe(url, headers);
    for (let n = 1; n <= PERIODS; n++) {
      await charged(url, headers, ids, n);
      if (n < PERIODS) move(DAY);
    }
    await exactlyOnce(url, headers, ids);
    const by = processes.map((p) => p.output.filter((line) => line.includes('"subscription charged"')).length);
    expect(by[0]! + by[1]!).toBe(SUBSCRIPTIONS * PERIODS);
    expect(by[0], `split ${by}`).toBeGreaterThan(0);
    expect(by[1], `split ${by}`).toBeGreaterThan(0);
  });

  it('the same after a SIGKILL of one process mid-run: its claims expire and the other finishes, nothing twice', { timeout: 240_000 }, async () => {
    const { headers, move, start } = await setup();
    const processes = [await start(), await start()];
    const lines = (p: ServiceProcess) => p.output.filter((l) => l.includes('"subscription charged"')).length;
    let url = processes[0]!.url;
    const ids = await subscribe(url, headers);
    let before: number[] = [];
    for (let n = 1; n <= PERIODS; n++) {
      if (n === 12) {
        // Killed as soon as it has charged its first subscription of the period: what it
        // has claimed or reserved beyond that is left behind mid-run.
        await expect.poll(() => processes.some((p, i) => lines(p) > before[i]!), { timeout: 30_000, interval: 2 }).toBe(true);
        const victim = processes.findIndex((p, i) => lines(p) > before[i]!);
        processes[victim]!.child.kill('SIGKILL');
        expect(await processes[victim]!.exited).toBe('SIGKILL');
        url = processes[1 - victim]!.url;
        // Its claims last SUBSCRIPTION_CLAIM_MS on the service's clock, and its pending charge is settled past the window.
        move(CLAIM_MS + 1000);
      }
      await charged(url, headers, ids, n);
      before = processes.map(lines);
      if (n < PERIODS) move(DAY);
    }
    await exactlyOnce(url, headers, ids, true);
  });
});
