import { describe, expect, it } from 'vitest';
import { pricingOf, setPricing } from '../../server/store/balance';
import { openDatabase } from '../../server/store/db';
import { setPayoutSettings } from '../../server/store/merchant-payouts';
import { IBANS } from '../api/documents';
import { Client, ENGINES } from '../api/harness';
import { checkLedger } from '../api/ledger';
import { paidTransaction, priced } from '../api/pay';
import { payoutBankEnv, startPayoutBank } from '../api/payout-bank';
import { type ProcessEnv, processScope, type ServiceProcess, testClock } from '../api/process';
import { createShopKeys, withShopData } from '../shop-keys';

// Payouts to the merchant with real service processes and a stand-in bank that outlives
// them (payout-bank.ts, loaded through PAYOUT_MODULE): two processes whose payout job
// starts at the same moment make and pay one payout; a process killed (SIGKILL) while the
// bank holds its answer leaves the payout pending, and the next process asks again with
// the same reference once the claim has run out (on its clock, moved past the claim rather
// than waiting it): the bank pays once.

const { cleanup, environment, running, started } = processScope();

/** A shop with `prices` paid and available (no settlement delay), through a process that is then stopped. */
async function shopWithBalance(env: ProcessEnv, prices: number[]) {
  const keys = await createShopKeys('Payout shop', env);
  // As `npm run keys -- pricing --settlement-days 0 --charge-percent 2.9 --charge-fixed 25`.
  await withShopData(env, async (db) => setPricing(db, keys.environment_id, { ...(await pricingOf(db, keys.environment_id)), charge: { percentE2: 290n, fixed: 25n }, settlementDelayDays: 0 }, new Date()));
  const seller = await started({ ...env, BACKGROUND_WORK: 'true' });
  const api = new Client(seller.url, keys);
  for (const price of prices) await paidTransaction(api, priced('EUR', price));
  // The balance job (every second) makes each sale's charge, available at once.
  await expect.poll(async () => (await api.get('/balance_transaction/')).body.count, { timeout: 60_000 }).toBe(prices.length);
  const available = (await api.get('/balance/')).body.available[0].amount as number;
  await seller.stop();
  running.splice(running.indexOf(seller), 1);
  return { keys, available };
}

/** As `npm run keys -- payouts --iban <iban> --schedule daily`. */
const dailyPayouts = (env: ProcessEnv, environmentId: string, iban: string) =>
  withShopData(env, (db) => setPayoutSettings(db, environmentId, { iban, schedule: 'daily', account_holder_name: null }, new Date()));

/** What the processes wrote, read straight from the database: the payouts and the ledger's invariants. */
async function books(env: ProcessEnv, environmentId: string) {
  const database = openDatabase({ databaseUrl: env.DATABASE_URL ?? null, dataDir: env.DATA_DIR });
  try {
    await checkLedger(database.db, environmentId);
    return await database.db.selectFrom('merchant_payouts').selectAll().where('environment_id', '=', environmentId).execute();
  } finally {
    await database.close();
  }
}

/** Rounds of the payout job that failed (a database error): none, however the processes race. */
const failedRounds = (ps: ServiceProcess[]) => ps.flatMap((p) => p.output.filter((l) => l.includes('"job round failed"') && l.includes('"job":"merchant-payouts"')));
const made = (ps: ServiceProcess[]) => ps.flatMap((p) => p.output.filter((l) => l.includes('"merchant payout made"')));

describe.each(ENGINES)('payouts to the merchant across processes on %s', (engine) => {
  it('two processes running the payout job at once pay out once', { timeout: 180_000 }, async () => {
    const bank = await startPayoutBank();
    cleanup(() => bank.close());
    const env = await environment(engine, payoutBankEnv(bank, { timeoutMs: 2_000, claimMs: 4_000 }));
    const { keys, available } = await shopWithBalance(env, [12.5, 30, 7.25]);
    expect(available).toBe(47.56); // 49.75 less fees of 0.61, 1.12 and 0.46 (2.9 % + 0.25)
    await dailyPayouts(env, keys.environment_id, IBANS.ES);

    // Both processes' jobs start their first round as they start: they race for the period's payout.
    const both = await Promise.all([started({ ...env, BACKGROUND_WORK: 'true' }), started({ ...env, BACKGROUND_WORK: 'true' })]);
    const api = new Client(both[0].url, keys);
    await expect.poll(async () => (await api.get('/merchant_payout/?status=paid')).body.count, { timeout: 60_000 }).toBe(1);
    // Stopping waits for the rounds under way: after it, each process's first round is done.
    await Promise.all(both.map((p) => p.stop()));

    const payouts = await books(env, keys.environment_id);
    expect(payouts.map((p) => [p.status, p.amount, p.line_count])).toEqual([['paid', 4756, 3]]);
    expect(bank.requests).toEqual([{ reference: payouts[0]!.id, amount: 4756 }]);
    expect([...bank.paid.values()]).toEqual([1]);
    expect(made(both)).toHaveLength(1);
    expect(failedRounds(both)).toEqual([]);
  });

  it('a process killed (SIGKILL) while the bank holds its answer: the next one asks again with the same reference, paid once', { timeout: 180_000 }, async () => {
    const bank = await startPayoutBank();
    cleanup(() => bank.close());
    const base = await environment(engine, payoutBankEnv(bank, { timeoutMs: 2_000, claimMs: 4_000 }));
    const clock = testClock(base.DATA_DIR);
    const env = { ...base, ...clock.env };
    const { keys } = await shopWithBalance(env, [20, 5]);
    await dailyPayouts(env, keys.environment_id, IBANS.DE);

    bank.hold = true;
    const asked = bank.next();
    const first = await started({ ...env, BACKGROUND_WORK: 'true' });
    const { reference } = await asked;
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    running.splice(running.indexOf(first), 1);
    // The bank paid; its answer goes to nobody.
    bank.release();
    bank.hold = false;
    expect((await books(env, keys.environment_id)).map((p) => [p.id, p.status])).toEqual([[reference, 'pending']]);

    clock.set(5_000);
    const second = await started({ ...env, BACKGROUND_WORK: 'true' });
    const api = new Client(second.url, keys);
    await expect.poll(async () => (await api.get(`/merchant_payout/${reference}/`)).body.status, { timeout: 60_000 }).toBe('paid');
    await second.stop();

    const payouts = await books(env, keys.environment_id);
    expect(payouts.map((p) => [p.id, p.status, p.amount])).toEqual([[reference, 'paid', 2377]]); // 25.00 less fees of 0.83 and 0.40 (0.145 rounds half up)
    expect(bank.requests.map((r) => r.reference)).toEqual([reference, reference]);
    expect(bank.paid.get(reference)).toBe(1);
    expect(made([first, second])).toHaveLength(1);
    expect(failedRounds([first, second])).toEqual([]);
  });
});
