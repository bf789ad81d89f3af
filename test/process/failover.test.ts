import { describe, expect, it } from 'vitest';
import { payUnderFault, payWithCard, priced } from '../api/pay';
import { startReplicas } from '../api/pg-replicas';
import { processScope } from '../api/process';
import { createShopKeys } from '../shop-keys';

// Failover (issue 49, part 2): a service process on libpq's multi-host DATABASE_URL over a
// primary and a synchronous standby of the test's own. The standby away: a commit whose
// wait for it is cancelled answers 503 and is logged as of unknown durability. The primary
// crashed under light load and the standby promoted: the process stays up, finds the new
// primary by itself and serves again, and everything it acknowledged is there.

const { cleanup, environment, started } = processScope();
const lines = (output: string[], text: string) => output.filter((l) => l.includes(text)).length;

interface Answer {
  kind: 'create' | 'pay';
  status: number | 'error';
  id?: string;
  at: number;
  /** A pay answered 200: the status its screen shows (paid, or checking when its record was cut off). */
  shown?: string;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('a service process on a primary and a synchronous standby', () => {
  it('keeps what it acknowledged through a failover, and serves on the promoted standby', { timeout: 180_000 }, async () => {
    const replicas = await startReplicas(true);
    cleanup(() => replicas.remove());
    const env = await environment('sqlite', {
      DATABASE_URL: replicas.url,
      DB_ACQUIRE_TIMEOUT_MS: '1000',
      BACKGROUND_WORK: 'true',
      // A pay whose record the failover cut off is reconciled once its claim is over: a few
      // seconds, not the minute a claim lasts by default.
      GATEWAY_TIMEOUT_MS: '3000',
      PAYMENT_CLAIM_MS: '6000',
    });
    const keys = await createShopKeys('Failover shop', env);
    const headers = { authorization: `AppKeys ${keys.public_key}:${keys.secret_key}`, 'content-type': 'application/json' };
    const service = await started(env);
    // A commit left waiting for a standby would keep the process from stopping: after a
    // failure, end it at once.
    let passed = false;
    cleanup(() => void (passed || service.child.kill('SIGKILL')));
    const create = (i: number) => fetch(`${service.url}/v1/transaction/`, { method: 'POST', headers, body: JSON.stringify(priced('EUR', 10 + i)) });
    const get = async (path: string) => (await (await fetch(`${service.url}/v1${path}`, { headers })).json()) as Record<string, any>;
    expect(lines(service.output, 'database primary found')).toBe(1);

    // The standby away: a commit waits for it (statement_timeout does not end that wait)
    // until an operator cancels it. It is committed on the primary, but the client is told
    // 503, never 201.
    await replicas.stopStandby();
    const unsure = create(0);
    await expect.poll(() => replicas.query(replicas.primary, "select pid from pg_stat_activity where wait_event = 'SyncRep'").then((r) => r.length), { timeout: 20_000 }).toBe(1);
    await replicas.query(replicas.primary, "select pg_cancel_backend(pid) from pg_stat_activity where wait_event = 'SyncRep'");
    expect((await unsure).status).toBe(503);
    expect(lines(service.output, 'database commit of unknown durability')).toBe(1);
    await replicas.startStandby();
    expect((await get('/transaction/')).count).toBe(1);

    // Light load: one client creating and paying in turn.
    const answers: Answer[] = [];
    let loading = true;
    const load = (async () => {
      for (let i = 1; loading; i++) {
        const res = await create(i).catch(() => null);
        const body = res ? ((await res.json().catch(() => ({}))) as { id?: string; token?: string }) : {};
        answers.push({ kind: 'create', status: res?.status ?? 'error', id: body.id, at: Date.now() });
        if (res?.status !== 201) continue;
        // The payment page itself may answer 503 while the database is away: a clean
        // refusal the customer can retry, counted as its status, not as an error.
        const paid = await payUnderFault(payWithCard(service.url, body.token!));
        answers.push({ kind: 'pay', status: paid.status ?? 'error', id: body.id, at: Date.now(), shown: paid.shown });
      }
    })();
    await expect.poll(() => answers.filter((a) => a.kind === 'pay' && a.status === 200).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(5);

    const crashedAt = Date.now();
    await replicas.crashPrimary();
    await replicas.promote();
    const promotedAt = Date.now();
    // The trap: the promoted standby inherited synchronous_standby_names and has no standby
    // of its own, so every commit waits for one.
    expect((await replicas.query(replicas.standby, 'show synchronous_standby_names'))[0].synchronous_standby_names).toBe('s1');
    await expect.poll(() => replicas.query(replicas.standby, "select pid from pg_stat_activity where wait_event = 'SyncRep'").then((r) => r.length), { timeout: 60_000 }).toBeGreaterThan(0);
    const foundAt = Date.now();
    // What a failover manager does on promotion (Patroni does): clear it. The waiting commit
    // then completes, on the only copy there is now.
    await replicas.query(replicas.standby, 'alter system reset synchronous_standby_names');
    await replicas.query(replicas.standby, 'select pg_reload_conf()');
    const clearedAt = Date.now();
    await expect.poll(() => answers.filter((a) => a.at > clearedAt && a.status === 201).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
    loading = false;
    await load;
    const firstAfter = answers.find((a) => a.at > clearedAt && a.status === 201)!.at;
    console.log(
      `failover: primary crashed; standby promoted after ${promotedAt - crashedAt} ms; ` +
        `a commit waiting on the promoted standby ${foundAt - crashedAt} ms after the crash; ` +
        `first 201 ${firstAfter - clearedAt} ms after synchronous_standby_names was cleared (${firstAfter - crashedAt} ms after the crash); ` +
        `answers: ${answers.length}, 503s: ${answers.filter((a) => a.status === 503).length}, ` +
        `pays answered "being checked": ${answers.filter((a) => a.shown === 'checking').length}`,
    );

    expect(service.child.exitCode).toBeNull();
    expect(lines(service.output, 'database primary lost')).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 500 || a.status === 'error')).toEqual([]);
    // Everything acknowledged before, during and after the failover is on the new primary.
    for (const a of answers.filter((x) => x.kind === 'create' && x.status === 201)) expect((await get(`/transaction/${a.id}/`)).id).toBe(a.id);
    const paid = answers.filter((x) => x.kind === 'pay' && x.status === 200);
    expect(paid.filter((x) => x.shown !== 'paid' && x.shown !== 'checking')).toEqual([]);
    for (const a of paid) {
      // Answered "paid": paid at once. Answered "being checked" (charged, its record cut off
      // by the failover): paid once reconciliation has asked the processor.
      if (a.shown === 'paid') expect((await get(`/transaction/${a.id}/`)).status).toBe('D');
      else await expect.poll(async () => (await get(`/transaction/${a.id}/`)).status, { timeout: 60_000 }).toBe('D');
      expect((await get(`/sale/?transaction_id=${a.id}`)).count).toBe(1);
    }
    expect(paid.length).toBeGreaterThanOrEqual(5);
    // Jobs run on the new primary: none stalled, and the process is ready.
    const ready = await fetch(`${service.url}/health/ready`);
    expect(ready.status).toBe(200);
    passed = true;
  });
});
