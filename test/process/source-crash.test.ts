import { describe, expect, it } from 'vitest';
import { ENGINES } from '../api/harness';
import { payWithCard, priced } from '../api/pay';
import { processScope, testClock } from '../api/process';
import { createShopKeys } from '../shop-keys';
import { remoteGatewayEnv, startProcessor } from '../api/processor';
import { REMOTE_ID } from '../api/remote-gateway';

// A source payment killed mid-way: a real service process pays a transaction from two
// stored cards through a networked processor, and is SIGKILLed once the first card is
// charged (its answer held), before the second is. The transaction was stored reserved
// before the first charge; after a restart, reconciliation records that charge and the
// source-payments job compensates: the charge is refunded, the second card never charged,
// the transaction not paid. Nothing is left half done.

const { cleanup, environment, started } = processScope();

describe.each(ENGINES)('a source payment interrupted by a crash on %s', (engine) => {
  it('is compensated after a restart: the charge made is refunded, the transaction not paid', { timeout: 120_000 }, async () => {
    const processor = await startProcessor();
    cleanup(() => processor.close());
    // The restarted process waits out the charge's claim, then the payment's (claim × (2 × cards + 1)): on its clock, moved past both.
    const base = await environment(engine, remoteGatewayEnv(processor, { timeoutMs: 1_000, claimMs: 2_000 }));
    const clock = testClock(base.DATA_DIR);
    const env = { ...base, ...clock.env };
    const keys = await createShopKeys('Crash shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const first = await started(env);
    const api = async (url: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}/v1${path}`, { method: body ? 'POST' : 'GET', headers, body: body ? JSON.stringify(body) : undefined });
      return (await res.json()) as any;
    };

    // Two cards stored at the processor by payments with authorize: true.
    const cards: string[] = [];
    for (let i = 0; i < 2; i++) {
      const tx = await api(first.url, '/transaction/', priced('EUR', 1, { authorize: true }));
      expect((await payWithCard(first.url, tx.token, undefined, REMOTE_ID)).status).toBe(200);
      cards.push((await api(first.url, `/authorization/?transaction_id=${tx.id}`)).results[0].id);
    }
    const paysBefore = processor.requests.filter((r) => r.path === '/pay').length;

    processor.holdPayments = true;
    const charged = processor.next('/pay');
    const paying = api(first.url, '/transaction/', priced('EUR', 17, { source: [{ authorization_id: cards[0], amount: 7 }, { authorization_id: cards[1], amount: 10 }] })).catch(() => null);
    const { reference } = await charged;
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(await paying).toBeNull();
    processor.release();

    clock.set(11_000);
    const second = await started({ ...env, BACKGROUND_WORK: 'true' });
    // Stored before the first charge: the newest transaction, reserved (N) until it is finished.
    const [reserved] = (await api(second.url, '/transaction/?page_size=1')).results;
    expect(reserved).toMatchObject({ total_price: 17 });
    await expect.poll(async () => (await api(second.url, `/transaction/${reserved.id}/`)).status, { timeout: 60_000, interval: 200 }).toBe('C');

    const sales = (await api(second.url, `/sale/?authorization_id=${cards[0]}`)).results.filter((s: { amount: number }) => s.amount === 7);
    expect(sales).toMatchObject([{ amount: 7, captured: 7, refunded: 7, refundable: 0 }]);
    expect((await api(second.url, `/sale/?authorization_id=${cards[1]}`)).results.filter((s: { amount: number }) => s.amount === 10)).toEqual([]);
    // At the processor: the first card charged once and refunded once, the second never charged.
    expect(processor.requests.filter((r) => r.path === '/pay')).toHaveLength(paysBefore + 1);
    expect([...processor.charges.entries()].filter(([ref]) => ref === reference)).toEqual([[reference, 1]]);
    expect(processor.requests.filter((r) => r.path === '/refund')).toHaveLength(1);
    // Logged once the round has finished it, a moment after the state the API shows.
    await expect.poll(() => second.output.some((line) => line.includes('"interrupted source payment finished"')), { timeout: 10_000 }).toBe(true);
  });
});
