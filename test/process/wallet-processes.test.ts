import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/db';
import { Client, ENGINES } from '../api/harness';
import { checkLedger, createWallet, fund } from '../api/ledger';
import { type ProcessEnv, startServiceProcess, useProcesses } from '../api/process';
import { createShopKeys } from '../shop-keys';

// The ledger with real service processes: a SIGKILL in the middle of a burst of transfers
// loses no acknowledged transfer and half-writes none, and two processes on one database
// moving money out of the same wallets keep every invariant. Each test has an environment
// of its own, and the invariants are checked per environment.

/** The invariants, read straight from the database the processes wrote. */
async function ledgerHolds(env: ProcessEnv, environmentId: string) {
  const database = openDatabase({ databaseUrl: env.DATABASE_URL ?? null, dataDir: env.DATA_DIR });
  try {
    await checkLedger(database.db, environmentId);
  } finally {
    await database.close();
  }
}

describe.each(ENGINES)('the ledger across processes on %s', (engine) => {
  const { env, running } = useProcesses(engine, 'checkout-ledger-');
  const started = async (e: ProcessEnv) => {
    const p = await startServiceProcess(e);
    running.push(p);
    return p;
  };
  it('keeps every acknowledged transfer exactly once across a SIGKILL mid-burst', { timeout: 240_000 }, async () => {
    const keys = await createShopKeys('Ledger shop', env);
    const first = await started(env);
    const api = new Client(first.url, keys);
    const a = await createWallet(api);
    const b = await createWallet(api);
    await fund(api, a, 10);

    const TOTAL = 400;
    const KILL_AFTER = 60;
    const acked = new Set<string>();
    let sent = 0;
    let killed = false;
    const worker = async () => {
      while (sent < TOTAL && !killed) {
        const i = sent++;
        try {
          const res = await api.post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 0.01, transfer_id: `burst-${i}` });
          if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
          acked.add(res.body.id);
          if (acked.size >= KILL_AFTER && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        } catch (err) {
          // Only requests cut off by the kill may fail.
          if (!killed) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(await first.exited).toBe('SIGKILL');
    expect(sent).toBeLessThan(TOTAL);

    const second = await started(env);
    const after = new Client(second.url, keys);
    for (const id of acked) {
      expect((await after.get(`/transfer/${id}/`)).body.status, id).toBe('paid');
      // Exactly one entry on each side.
      expect((await after.get(`/wallet/${a.id}/entry/?transfer=${id}`)).body.count, id).toBe(1);
      expect((await after.get(`/wallet/${b.id}/entry/?transfer=${id}`)).body.count, id).toBe(1);
    }
    // Whatever else committed before the kill is whole too: every transfer has its two entries.
    const transfers = (await after.get('/transfer/?page_size=1')).body.count as number;
    expect(transfers).toBeGreaterThanOrEqual(acked.size);
    expect((await after.get(`/wallet/${b.id}/`)).body.balance).toBe(transfers / 100);
    expect((await after.get(`/wallet/${a.id}/`)).body.balance).toBe((1000 - transfers) / 100);
    await second.stop();
    await ledgerHolds(env, keys.environment_id);
  });

  it('two processes on one database: 50 transfers out of a wallet that affords 10 give exactly 10, both ways without loss', { timeout: 240_000 }, async () => {
    const keys = await createShopKeys('Two processes', env);
    const [p1, p2] = [await started(env), await started(env)];
    const [one, two] = [new Client(p1.url, keys), new Client(p2.url, keys)];
    const a = await createWallet(one);
    const b = await createWallet(one);
    const c = await createWallet(one);
    await fund(one, a, 10);
    await fund(two, b, 20);
    await fund(two, c, 20);

    const out = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? one : two).post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 1 })),
    );
    expect(out.filter((r) => r.status === 201)).toHaveLength(10);
    expect(out.filter((r) => r.status === 409)).toHaveLength(40);

    // b and c pay each other from both processes at once: row locks taken in one order, no deadlock.
    const both = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? one : two).post('/transfer/', { source_wallet: i % 4 < 2 ? b.id : c.id, destination_wallet: i % 4 < 2 ? c.id : b.id, amount: 0.5 }),
      ),
    );
    expect(both.map((r) => r.status)).toEqual(both.map(() => 201));
    const balance = async (id: string) => (await two.get(`/wallet/${id}/`)).body.balance as number;
    expect(await balance(a.id)).toBe(0);
    expect((await balance(b.id)) + (await balance(c.id))).toBe(50);
    await Promise.all([p1.stop(), p2.stop()]);
    await ledgerHolds(env, keys.environment_id);
  });
});
