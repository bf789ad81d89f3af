import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../api/harness';
import { payWithCard, priced } from '../api/pay';
import { type ProcessEnv, processScope, testClock } from '../api/process';
import { createShopKeys } from '../shop-keys';

// The sandbox's books (issue 49): a charge the sandbox made is found by the reconciliation of
// another process, or of the process after a restart, when the books are in the database.
// The answer is lost as a real processor's can be: the sandbox acts after our call timed out.
// The test holds the sandbox's table (its writes wait) from the call's reservation until our
// side has given up (GATEWAY_TIMEOUT_MS); then the sandbox's write goes through, its charge on
// its books and nowhere in ours. With memory books the process that reconciles finds nothing
// and releases the payment, as before the change.

const TIMEOUT_MS = 2_000;
/** The sandbox decides after this, inside our timeout: its books' write then waits on the test's hold. */
const LATENCY_MS = 1_000;
/** How long after the pay is sent the hold lets go: past our timeout, well within SQLite's busy_timeout (5 s). */
const HOLD_UNTIL_MS = TIMEOUT_MS + 1_000;
const CLAIM_MS = 4_000;
const SETTLE_WINDOW_MS = 5_000;

const { cleanup, environment, started } = processScope();

/** The test's own connection to the service's database: the pending call, the sandbox's entry, and a hold on the sandbox's writes. */
interface BooksView {
  pendingReference(): Promise<string | undefined>;
  /** The sandbox's lookup answer for `reference`, as its books keep it. */
  found(reference: string): Promise<{ status: string } | undefined>;
  callState(reference: string): Promise<string | undefined>;
  /** From now on the sandbox's writes to its books wait (PostgreSQL: a table lock; SQLite: the write lock). */
  hold(): Promise<void>;
  release(): Promise<void>;
  close(): Promise<void>;
}

async function booksView(engine: string, env: ProcessEnv): Promise<BooksView> {
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    const one = async (text: string, values: unknown[] = []) => (await client.query(text, values)).rows[0] as Record<string, string> | undefined;
    return {
      pendingReference: async () => (await one(`select reference from gateway_calls where state = 'pending'`))?.reference,
      found: async (reference) => JSON.parse((await one('select found from sandbox_charges where reference = $1', [reference]))?.found ?? 'null') ?? undefined,
      callState: async (reference) => (await one('select state from gateway_calls where reference = $1', [reference]))?.state,
      hold: async () => void (await client.query('begin; lock table sandbox_charges in exclusive mode')),
      release: async () => void (await client.query('rollback')),
      close: () => client.end(),
    };
  }
  const db = new SQLite(join(env.DATA_DIR, 'checkout.db'));
  db.pragma('busy_timeout = 5000');
  const one = (text: string, ...values: unknown[]) => db.prepare(text).get(...values) as Record<string, string> | undefined;
  return {
    pendingReference: async () => one(`select reference from gateway_calls where state = 'pending'`)?.reference,
    found: async (reference) => JSON.parse(one('select found from sandbox_charges where reference = ?', reference)?.found ?? 'null') ?? undefined,
    callState: async (reference) => one('select state from gateway_calls where reference = ?', reference)?.state,
    hold: async () => void db.prepare('begin immediate').run(),
    release: async () => void db.prepare('rollback').run(),
    close: async () => void db.close(),
  };
}

describe.each(ENGINES)('the sandbox books on %s', (engine) => {
  async function setup() {
    const base = await environment(engine, {
      GATEWAY_TIMEOUT_MS: String(TIMEOUT_MS),
      PAYMENT_CLAIM_MS: String(CLAIM_MS),
      PAYMENT_SETTLE_WINDOW_MS: String(SETTLE_WINDOW_MS),
      SANDBOX_LATENCY_MS: String(LATENCY_MS),
      SANDBOX_BOOKS: 'database',
    });
    const clock = testClock(base.DATA_DIR);
    const env = { ...base, ...clock.env };
    const keys = await createShopKeys('Books shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const view = await booksView(engine, env);
    cleanup(() => view.close());
    return { env, clock, headers, view };
  }

  /** A payment the sandbox charged after our side gave up on it: our call pending, the charge on the sandbox's books only. */
  async function lostAnswer(c: Awaited<ReturnType<typeof setup>>, url: string) {
    const created = await fetch(`${url}/v1/transaction/`, { method: 'POST', headers: c.headers, body: JSON.stringify(priced('EUR', 42)) });
    const tx = (await created.json()) as { id: string; token: string };
    const sent = Date.now();
    const paying = payWithCard(url, tx.token);
    await expect.poll(() => c.view.pendingReference(), { timeout: LATENCY_MS, interval: 20 }).toBeDefined();
    const reference = (await c.view.pendingReference())!;
    await c.view.hold();
    await sleep(HOLD_UNTIL_MS - (Date.now() - sent));
    await c.view.release();
    // Our side gave up (the books' write was still waiting), then the sandbox charged.
    expect(((await (await paying).json()) as { view: { status: string } }).view.status).toBe('checking');
    await expect.poll(() => c.view.found(reference), { timeout: 10_000 }).toMatchObject({ status: 'succeeded' });
    expect(await c.view.callState(reference)).toBe('pending');
    return { tx, reference };
  }

  /** A lost answer's process killed: what the sandbox charged is on its books, our call still pending. */
  async function killedAfterLostAnswer() {
    const c = await setup();
    const first = await started(c.env);
    const lost = await lostAnswer(c, first.url);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    return { c, ...lost };
  }

  const status = async (url: string, headers: Record<string, string>, id: string) =>
    ((await (await fetch(`${url}/v1/transaction/${id}/`, { headers })).json()) as { status: string }).status;

  it('a charge whose answer was lost is proven paid after a restart (database books)', { timeout: 120_000 }, async () => {
    const { c, tx, reference } = await killedAfterLostAnswer();

    c.clock.set(60_000);
    const second = await started({ ...c.env, BACKGROUND_WORK: 'true' });
    await expect.poll(() => status(second.url, c.headers, tx.id), { timeout: 20_000 }).toBe('D');
    expect(await c.view.callState(reference)).toBe('succeeded');
    const sales = (await (await fetch(`${second.url}/v1/sale/?transaction_id=${tx.id}`, { headers: c.headers })).json()) as { count: number };
    expect(sales.count).toBe(1);
  });

  it('the same charge is released after a restart with memory books, which cannot know it', { timeout: 120_000 }, async () => {
    const { c, tx, reference } = await killedAfterLostAnswer();

    // Past the claim and the settle window: a not_found is believed at once.
    c.clock.set(60_000);
    const second = await started({ ...c.env, BACKGROUND_WORK: 'true', SANDBOX_BOOKS: 'memory' });
    await expect.poll(() => c.view.callState(reference), { timeout: 20_000 }).toBe('failed');
    expect(await status(second.url, c.headers, tx.id)).toBe('N');
  });

  it('a charge one process made is found by the lookup of another, while the first still runs', { timeout: 120_000 }, async () => {
    const c = await setup();
    const first = await started(c.env);
    const { tx, reference } = await lostAnswer(c, first.url);

    c.clock.set(60_000);
    const second = await started({ ...c.env, BACKGROUND_WORK: 'true' });
    await expect.poll(() => c.view.callState(reference), { timeout: 20_000 }).toBe('succeeded');
    expect(await status(first.url, c.headers, tx.id)).toBe('D');
    await expect.poll(() => second.output.some((line) => line.includes('"gateway call reconciled"')), { timeout: 10_000 }).toBe(true);
  });
});
