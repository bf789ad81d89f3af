import { describe, expect, it } from 'vitest';
import { payWithCard, priced } from '../api/pay';
import { processScope } from '../api/process';
import { createShopKeys } from '../shop-keys';
import { remoteGatewayEnv, startProcessor } from '../api/processor';
import { REMOTE_ID } from '../api/remote-gateway';

// Reconciliation with two service processes on one PostgreSQL: payments left pending by a
// process killed while the processor held its answers are each reconciled exactly once,
// by one process or the other: one lookup-driven record per call, one sale per
// transaction, one charge per reference at the processor.

const PAYMENTS = 8;

const { cleanup, environment, running, started } = processScope();

describe.skipIf(!process.env.TEST_DATABASE_URL)('reconciliation in two service processes on one PostgreSQL', () => {
  it('records each of 8 interrupted payments once', { timeout: 120_000 }, async () => {
    const processor = await startProcessor();
    cleanup(() => processor.close());
    // The calls' claims run out 4 s after they were made: then they are reconciliation's.
    const env = await environment('postgres', remoteGatewayEnv(processor, { timeoutMs: 2_000, claimMs: 4_000 }));
    const keys = await createShopKeys('Reconciled shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };

    const payer = await started(env);
    const txs: { id: string; token: string }[] = [];
    for (let i = 0; i < PAYMENTS; i++) {
      const res = await fetch(`${payer.url}/v1/transaction/`, { method: 'POST', headers, body: JSON.stringify(priced('EUR', 10 + i)) });
      txs.push((await res.json()) as { id: string; token: string });
    }
    // Every payment reaches the processor, which charges and holds the answers; then the payer dies.
    processor.holdPayments = true;
    const paying = txs.map((tx) => payWithCard(payer.url, tx.token, undefined, REMOTE_ID).catch(() => null));
    const asked = () => processor.requests.filter((r) => r.path === '/pay');
    await expect.poll(() => asked().length, { timeout: 20_000 }).toBe(PAYMENTS);
    const references = asked().map((r) => r.reference);
    payer.child.kill('SIGKILL');
    expect(await payer.exited).toBe('SIGKILL');
    await Promise.all(paying);
    running.splice(0);
    processor.release();

    // Two processes with the jobs on, started together: they race for the same calls.
    const [a, b] = await Promise.all([started({ ...env, BACKGROUND_WORK: 'true' }), started({ ...env, BACKGROUND_WORK: 'true' })]);
    const status = async (id: string) => ((await (await fetch(`${a.url}/v1/transaction/${id}/`, { headers })).json()) as { status: string }).status;
    for (const tx of txs) await expect.poll(() => status(tx.id), { timeout: 30_000 }).toBe('D');

    for (const tx of txs) {
      const sales = (await (await fetch(`${b.url}/v1/sale/?transaction_id=${tx.id}`, { headers })).json()) as { count: number };
      expect(sales.count).toBe(1);
    }
    expect(new Set(references).size).toBe(PAYMENTS);
    expect([...processor.charges.values()]).toEqual(Array(PAYMENTS).fill(1));
    expect(processor.requests.filter((r) => r.path === '/pay')).toHaveLength(PAYMENTS);
    // Each call recorded by exactly one of the two.
    const reconciled = [a, b].flatMap((p) => p.output.filter((line) => line.includes('"gateway call reconciled"')));
    expect(reconciled).toHaveLength(PAYMENTS);
  });
});
