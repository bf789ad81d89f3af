import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase } from './database';
import { ENGINES } from './harness';
import { payWithCard, priced } from './pay';
import { createKeys, type ProcessEnv, type ServiceProcess, startServiceProcess } from './process';
import { type Processor, startProcessor } from './processor';
import { REMOTE_ID } from './remote-gateway';

// Crash safety across the gateway call: a real service process pays through a networked
// gateway whose processor charges and then holds its answer; the process is SIGKILLed
// while it holds. After a restart, reconciliation asks the processor by our reference and
// the payment ends exactly once: one sale, and one charge per reference at the processor.

const GATEWAY_MODULE = join(new URL('.', import.meta.url).pathname, 'remote-gateway.ts');

const running: ServiceProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.stop();
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function environment(engine: string, processor: Processor): Promise<ProcessEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), 'checkout-crash-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const env: ProcessEnv = {
    DATA_DIR: dataDir,
    GATEWAY_MODULES: GATEWAY_MODULE,
    GATEWAY_SETTINGS: JSON.stringify({ url: processor.url }),
    // Long enough that the kill always comes first; the claim (twice as long) is what
    // the restarted process waits out before it reconciles.
    GATEWAY_TIMEOUT_MS: '10000',
    PAYMENT_CLAIM_MS: '20000',
  };
  if (engine === 'postgres') {
    const db = await freshDatabase();
    cleanups.push(db.drop);
    env.DATABASE_URL = db.url;
  }
  return env;
}

async function started(env: ProcessEnv): Promise<ServiceProcess> {
  const p = await startServiceProcess(env);
  running.push(p);
  return p;
}

describe.each(ENGINES)('a payment interrupted by a crash on %s', (engine) => {
  it('is recorded exactly once after a restart, and the processor charged once', { timeout: 120_000 }, async () => {
    const processor = await startProcessor();
    cleanups.push(() => processor.close());
    const env = await environment(engine, processor);
    const keys = await createKeys('Crash shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };

    const first = await started(env);
    const created = await fetch(`${first.url}/v1/transaction/`, { method: 'POST', headers, body: JSON.stringify(priced('EUR', 42)) });
    const tx = (await created.json()) as { id: string; token: string };

    processor.holdPayments = true;
    const charged = processor.next('/pay');
    const paying = payWithCard(first.url, tx.token, undefined, REMOTE_ID).catch(() => null);
    const { reference } = await charged;
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(await paying).toBeNull();
    processor.release();

    // The same books, a new process with the jobs on: reconciliation takes the call once its claim has run out.
    const looked = processor.next('/lookup');
    const second = await started({ ...env, BACKGROUND_WORK: 'true' });
    expect((await looked).reference).toBe(reference);
    const get = async (path: string) => (await (await fetch(`${second.url}/v1${path}`, { headers })).json()) as Record<string, unknown>;
    await expect.poll(async () => (await get(`/transaction/${tx.id}/`)).status, { timeout: 10_000 }).toBe('D');

    const sales = (await get(`/sale/?transaction_id=${tx.id}`)) as { count: number; results: { amount: number; status: string }[] };
    expect(sales.count).toBe(1);
    expect(sales.results[0]).toMatchObject({ amount: 42, status: 'captured' });
    expect([...processor.charges.entries()]).toEqual([[reference, 1]]);
    expect(processor.requests.filter((r) => r.path === '/pay')).toHaveLength(1);
    expect(second.output.some((line) => line.includes('"gateway call reconciled"'))).toBe(true);
  });
});
