import { describe, expect, it } from 'vitest';
import { Client } from '../api/harness';
import { payToken, priced } from '../api/pay';
import { startCluster } from '../api/pg-cluster';
import { pgbouncerBinary, startPgbouncer } from '../api/pgbouncer';
import { withClient } from '../database-template';
import { createKeys, processScope } from '../api/process';

// The service behind PgBouncer in transaction mode (issue 49): it starts without sending the
// startup parameters PgBouncer refuses (DATABASE_POOLER=transaction), says whether the
// timeouts are in force (they are the role's now), migrates from several processes at once
// without leaving the migration lock on a server connection, and takes a payment and a refund.

const { cleanup, environment, started } = processScope();
const binary = pgbouncerBinary();
if (!binary) console.warn('test/process/pgbouncer.test.ts skipped: no pgbouncer binary (apt-get install pgbouncer; .ci/run installs it)');

const health = async (url: string) => (await (await fetch(`${url}/health/ready`)).json()) as { status: string; database_timeouts?: string };

const admin = withClient;

describe.skipIf(!binary)('the service behind PgBouncer in transaction mode', () => {
  it('starts, migrates from three processes at once, tells whether the timeouts are in force, pays and refunds', { timeout: 120_000 }, async () => {
    const cluster = await startCluster();
    cleanup(() => cluster.remove());
    const serverPort = Number(/:(\d+)\//.exec(cluster.url)![1]);
    const bouncer = await startPgbouncer(serverPort);
    cleanup(() => bouncer.stop());
    // Two databases: one whose role settings carry the timeouts (as docs/operations.md says
    // to set them), one without.
    await admin(cluster.url, async (c) => {
      await c.query('create database checkout');
      await c.query('create database plain');
      await c.query("alter role postgres in database checkout set statement_timeout = '30s'");
      await c.query("alter role postgres in database checkout set idle_in_transaction_session_timeout = '60s'");
    });

    // Without DATABASE_POOLER the timeouts go as startup parameters, which PgBouncer refuses:
    // the error says what to set.
    const direct = await environment('sqlite', { DATABASE_URL: bouncer.url('plain') });
    await expect(createKeys('Refused', direct)).rejects.toThrow(/unsupported startup parameter: statement_timeout: .*set DATABASE_POOLER=transaction/);
    const refusals = () => bouncer.log().split('unsupported startup parameter').length - 1;
    const refusedBefore = refusals();
    expect(refusedBefore).toBeGreaterThan(0);

    // Without the timeouts: the service starts and says so, in the log and on /health/ready.
    // Its migrations go past the pooler (MIGRATION_DATABASE_URL).
    const plainEnv = await environment('sqlite', {
      DATABASE_URL: bouncer.url('plain'),
      DATABASE_POOLER: 'transaction',
      MIGRATION_DATABASE_URL: cluster.url.replace(/\/postgres$/, '/plain'),
    });
    const plain = await started(plainEnv);
    const warned = plain.output.find((l) => l.includes('database timeouts not in force'));
    expect(warned).toContain('statement_timeout off');
    const off = await health(plain.url);
    expect(off.status).toBe('ok');
    expect(off.database_timeouts).toMatch(/^not in force: statement_timeout off, idle_in_transaction_session_timeout off; set them for the service's role/);

    // Three processes migrate a fresh database at once, through the pooler.
    const env = await environment('sqlite', { DATABASE_URL: bouncer.url('checkout'), DATABASE_POOLER: 'transaction' });
    const services = await Promise.all([started(env), started(env), started(env)]);
    // No advisory lock outlives its migration: the next start does not wait for one.
    const held = await admin(cluster.url.replace(/\/postgres$/, '/checkout'), (c) =>
      c.query<{ n: string }>("select count(*) as n from pg_locks where locktype = 'advisory'"),
    );
    expect(Number(held.rows[0]!.n)).toBe(0);
    const startedAt = Date.now();
    const keys = await createKeys('Pooled shop', env); // the keys CLI migrates too
    console.log(`pgbouncer: the keys CLI started, migrated (nothing to do) and made keys in ${Date.now() - startedAt} ms`);
    const applied = await admin(cluster.url.replace(/\/postgres$/, '/checkout'), (c) => c.query('select name from kysely_migration'));
    expect(new Set(applied.rows.map((r) => r.name)).size).toBe(applied.rowCount);

    const on = await health(services[0]!.url);
    expect(on).toMatchObject({ status: 'ok', database_timeouts: 'in force: statement_timeout 30 s, idle_in_transaction_session_timeout 60 s' });
    expect(services[0]!.output.some((l) => l.includes('database timeouts not in force'))).toBe(false);

    // The smoke set, each step through another process: create (with an Idempotency-Key),
    // pay through the page with the sandbox card, read the sale, refund it.
    const [a, b, c] = services.map((s) => new Client(s.url, keys));
    const created = await a!.post('/transaction/', priced('EUR', 12.5), { 'idempotency-key': 'pooled-1' });
    expect(created.status).toBe(201);
    expect((await b!.post('/transaction/', priced('EUR', 12.5), { 'idempotency-key': 'pooled-1' })).body.id).toBe(created.body.id);
    expect(await payToken(b!.url, created.body.token)).toBe(200);
    const sales = await c!.get(`/sale/?transaction_id=${created.body.id}`);
    expect(sales.body.count).toBe(1);
    const refund = await a!.post(`/sale/${sales.body.results[0].id}/refund/`, { amount: 12.5 });
    expect(refund.status).toBe(200);
    expect((await c!.get(`/transaction/${created.body.id}/`)).body.status).toBe('D');
    expect((await b!.get(`/sale/${sales.body.results[0].id}/`)).body.status).toBe('refunded');
    for (const s of [plain, ...services]) {
      expect(s.child.exitCode).toBeNull();
      expect(s.stderr()).toBe('');
    }
    expect(refusals()).toBe(refusedBefore);
  });
});
