import { describe, expect, it } from 'vitest';
import { ENGINES } from '../api/harness';
import { payWithCard, priced } from '../api/pay';
import { processScope, testClock } from '../api/process';
import { createShopKeys } from '../shop-keys';
import { remoteGatewayEnv, startProcessor } from '../api/processor';
import { REMOTE_ID } from '../api/remote-gateway';

// Crash safety across the gateway call: a real service process pays through a networked
// gateway whose processor charges and then holds its answer; the process is SIGKILLed
// while it holds. After a restart, reconciliation asks the processor by our reference and
// the payment ends exactly once: one sale, and one charge per reference at the processor.

const { cleanup, environment, started } = processScope();

describe.each(ENGINES)('a payment interrupted by a crash on %s', (engine) => {
  it('is recorded exactly once after a restart, and the processor charged once', { timeout: 120_000 }, async () => {
    const processor = await startProcessor();
    cleanup(() => processor.close());
    // A timeout long enough that the kill always comes first; the claim (twice as long) is
    // what the restarted process waits out before it reconciles, on its clock moved past it.
    const base = await environment(engine, remoteGatewayEnv(processor, { timeoutMs: 10_000, claimMs: 20_000 }));
    const clock = testClock(base.DATA_DIR);
    const env = { ...base, ...clock.env };
    const keys = await createShopKeys('Crash shop', env);
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
    clock.set(21_000);
    const second = await started({ ...env, BACKGROUND_WORK: 'true' });
    expect((await looked).reference).toBe(reference);
    const get = async (path: string) => (await (await fetch(`${second.url}/v1${path}`, { headers })).json()) as Record<string, unknown>;
    await expect.poll(async () => (await get(`/transaction/${tx.id}/`)).status, { timeout: 10_000 }).toBe('D');

    const sales = (await get(`/sale/?transaction_id=${tx.id}`)) as { count: number; results: { amount: number; status: string }[] };
    expect(sales.count).toBe(1);
    expect(sales.results[0]).toMatchObject({ amount: 42, status: 'captured' });
    expect([...processor.charges.entries()]).toEqual([[reference, 1]]);
    expect(processor.requests.filter((r) => r.path === '/pay')).toHaveLength(1);
    // Logged after the record commits: waited for, not assumed already read from the process's output.
    await expect.poll(() => second.output.some((line) => line.includes('"gateway call reconciled"')), { timeout: 10_000 }).toBe(true);
  });
});
