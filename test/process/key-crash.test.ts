import { describe, expect, it } from 'vitest';
import { ENGINES } from '../api/harness';
import { payWithCard, priced } from '../api/pay';
import { processScope, testClock } from '../api/process';
import { createShopKeys } from '../shop-keys';
import { remoteGatewayEnv, startProcessor } from '../api/processor';
import { REMOTE_ID } from '../api/remote-gateway';

// One Idempotency-Key, one charge, across a crash: a real service process charges a stored
// card through a networked gateway whose processor (another process's books) charges and
// holds its answer; the service is SIGKILLed while it holds. After a restart the client
// retries with the same key: a 409 with Retry-After while the dead request's key may still
// be live, then the retry rolls the same step forward (the same reference, which the
// processor deduplicates) instead of starting a second charge: one charge, one sale, and
// the same answer on every later retry.

const { cleanup, environment, started } = processScope();

describe.each(ENGINES)('a keyed charge interrupted by a crash on %s', (engine) => {
  it('is charged once, and the retry with the same key answers its one sale', { timeout: 120_000 }, async () => {
    const processor = await startProcessor();
    cleanup(() => processor.close());
    const base = await environment(engine, remoteGatewayEnv(processor, { timeoutMs: 10_000, claimMs: 20_000 }));
    // The processes' clock: real time plus what the test writes here (server/clock.ts).
    const clock = testClock(base.DATA_DIR);
    const env = { ...base, ...clock.env };
    const keys = await createShopKeys('Key crash shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };

    const first = await started(env);
    const created = await fetch(`${first.url}/v1/transaction/`, { method: 'POST', headers, body: JSON.stringify(priced('EUR', 30, { authorize: true })) });
    const tx = (await created.json()) as { id: string; token: string };
    await payWithCard(first.url, tx.token, undefined, REMOTE_ID);
    const auths = (await (await fetch(`${first.url}/v1/authorization/?transaction_id=${tx.id}`, { headers })).json()) as { results: { id: string }[] };
    const authorization = auths.results[0]!.id;

    const charge = (url: string) =>
      fetch(`${url}/v1/authorization/${authorization}/charge/`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': 'crash-charge-1' },
        body: JSON.stringify({ amount: 7, currency: 'EUR' }),
      });
    processor.holdPayments = true;
    const asked = processor.next('/pay');
    const charging = charge(first.url).catch(() => null);
    const { reference } = await asked;
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(await charging).toBeNull();
    processor.release();
    processor.holdPayments = false;

    // Jobs off: the retry itself rolls the charge forward, not reconciliation.
    const second = await started({ ...env, BACKGROUND_WORK: 'false' });
    const early = await charge(second.url);
    expect(early.status).toBe(409);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThan(0);

    // Past the key's longest wait (KEY_ABANDONED_MS + PAYMENT_CLAIM_MS): the retry takes the key over.
    clock.set(90_000);
    const rolled = await charge(second.url);
    expect(rolled.status, await rolled.clone().text()).toBe(201);
    const sale = (await rolled.json()) as { id: string; status: string; captured: number };
    expect(sale).toMatchObject({ status: 'captured', captured: 7 });

    const replay = await charge(second.url);
    expect(replay.status).toBe(201);
    expect(((await replay.json()) as { id: string }).id).toBe(sale.id);

    // The processor's books agree with ours: one charge for the key's step, one sale.
    const sales = (await (await fetch(`${second.url}/v1/sale/?authorization_id=${authorization}`, { headers })).json()) as { results: { id: string; transaction_id: string | null; status: string }[] };
    // The hold that stored the card, and the one charge.
    expect(sales.results.filter((s) => s.transaction_id === null).map((s) => [s.id, s.status])).toEqual([[sale.id, 'captured']]);
    expect(processor.charges.get(reference)).toBe(1);
    expect(processor.requests.filter((r) => r.reference === reference)).toHaveLength(2);
    expect(reference).toMatch(/^gk_/);
    const log = [...first.output, ...second.output].join('\n');
    expect(log).not.toContain('4242424242424242');
  });
});
