import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Db } from '../../server/store/db';
import { reviewDocuments } from '../../server/jobs/compliance-review';
import { clientBody, documentBody, IBANS } from './documents';
import { startIsolatedService } from './database';
import { type Client, type EngineName, startTestService, type TestService } from './harness';
import { paidTransaction, priced } from './pay';

// Wallet helpers for the API tests, and the ledger's invariants checked in the database
// itself (the service's own accounts have no route to read them by).

/**
 * useTestService on a database of its own (PostgreSQL): for tests that run jobs (payouts,
 * the compliance review, the balance), which take every due row of the database they run on.
 */
export function useOwnService(engine: EngineName, opts: Parameters<typeof startTestService>[1] = {}, environmentName?: string): { t: TestService; api: Client } {
  const svc = {} as { t: TestService; api: Client };
  beforeAll(async () => {
    svc.t = await startIsolatedService(engine, opts);
    svc.api = await svc.t.newEnvironment(environmentName);
  });
  afterAll(() => svc.t?.close());
  return svc;
}

/** A client whose identity document the compliance review has accepted, with an IBAN. */
export async function compliantClient(t: TestService, api: Client, iban: string = IBANS.ES): Promise<{ id: string; iban: string }> {
  const id = await newClientId(api);
  expect((await api.post(`/client/${id}/document/`, documentBody())).status).toBe(201);
  const { deps } = t.service;
  await reviewDocuments({ db: deps.database.db, outbox: deps.outbox, now: deps.now, log: deps.log });
  const created = await api.post(`/client/${id}/iban/`, { iban });
  expect(created.body.enabled_by_compliance, created.text).toBe(true);
  return { id, iban: created.body.id };
}

/** The `id` of a new client of the environment, for wallets to belong to. */
export async function newClientId(api: Client): Promise<string> {
  const res = await api.post('/client/', clientBody());
  if (res.status !== 201) throw new Error(`create client: ${res.status} ${res.text}`);
  return res.body.id;
}

export async function createWallet(api: Client, over: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('/wallet/', {
    wallet_id: `w-${randomUUID()}`,
    name: 'Seller',
    client_id: await newClientId(api),
    currency: 'EUR',
    ...over,
  });
  if (res.status !== 201) throw new Error(`create wallet: ${res.status} ${res.text}`);
  return res.body;
}

/** Pays a transaction of `amount` (major units) whose destination is the whole amount to `wallet`. */
export async function fund(api: Client, wallet: { id: string; currency: string }, amount: number) {
  return paidTransaction(api, priced(wallet.currency, amount, { destination: [{ wallet_id: wallet.id, amount }] }));
}

export const balanceOf = async (api: Client, id: string): Promise<number> => (await api.get(`/wallet/${id}/`)).body.balance;

/** Every entry of a wallet, oldest first. */
export async function entriesOf(api: Client, id: string): Promise<any[]> {
  const all: any[] = [];
  for (let page = 1; ; page++) {
    const res = await api.get(`/wallet/${id}/entry/?page_size=100&page=${page}`);
    expect(res.status, res.text).toBe(200);
    all.push(...res.body.results);
    if (!res.body.next) return all.reverse();
  }
}

/**
 * The ledger's invariants in one environment, once its movements have settled: each
 * movement's entries and each currency's add up to zero; each wallet's balance is the sum
 * of its entries, entries are numbered 1..n and each carries the running sum; no balance
 * is below zero.
 */
export async function checkLedger(db: Db, environmentId: string): Promise<void> {
  const byMovement = await db
    .selectFrom('ledger_entries')
    .where('environment_id', '=', environmentId)
    .select(['movement_id', (eb) => eb.fn.sum<number>('amount').as('total')])
    .groupBy('movement_id')
    .execute();
  for (const m of byMovement) expect(Number(m.total), `movement ${m.movement_id}`).toBe(0);
  const byCurrency = await db
    .selectFrom('ledger_entries')
    .where('environment_id', '=', environmentId)
    .select(['currency', (eb) => eb.fn.sum<number>('amount').as('total')])
    .groupBy('currency')
    .execute();
  for (const c of byCurrency) expect(Number(c.total), c.currency).toBe(0);

  const wallets = await db.selectFrom('wallets').select(['id', 'balance', 'entry_count']).where('environment_id', '=', environmentId).execute();
  const entries = await db
    .selectFrom('ledger_entries')
    .where('environment_id', '=', environmentId)
    .select(['wallet', 'seq', 'amount', 'balance'])
    .where('wallet', 'is not', null)
    .orderBy('wallet')
    .orderBy('seq')
    .execute();
  const of = new Map<string, typeof entries>();
  for (const e of entries) of.set(e.wallet!, [...(of.get(e.wallet!) ?? []), e]);
  for (const w of wallets) {
    const list = of.get(w.id) ?? [];
    expect(w.balance, `wallet ${w.id}`).toBeGreaterThanOrEqual(0);
    expect(list.map((e) => Number(e.seq))).toEqual(list.map((_, i) => i + 1));
    expect(Number(w.entry_count)).toBe(list.length);
    let running = 0;
    for (const e of list) {
      running += Number(e.amount);
      expect(Number(e.balance), `wallet ${w.id} entry ${e.seq}`).toBe(running);
      expect(running).toBeGreaterThanOrEqual(0);
    }
    expect(Number(w.balance), `wallet ${w.id}`).toBe(running);
  }

  // A wallet's receivable is what the platform covered for it less what it paid back: the platform's entries naming it.
  const owed = await db
    .selectFrom('ledger_entries')
    .where('environment_id', '=', environmentId)
    .where('account', '=', 'platform')
    .select(['with_wallet', (eb) => eb.fn.sum<number>('amount').as('total')])
    .groupBy('with_wallet')
    .execute();
  const receivables = await db.selectFrom('wallets').select(['id', 'receivable']).where('environment_id', '=', environmentId).execute();
  for (const w of receivables) {
    const platform = owed.find((o) => o.with_wallet === w.id);
    expect(Number(w.receivable) + Number(platform?.total ?? 0), `wallet ${w.id}: receivable + the platform's entries naming it`).toBe(0);
    expect(Number(w.receivable)).toBeGreaterThanOrEqual(0);
  }
  expect(owed.every((o) => o.with_wallet !== null && receivables.some((w) => w.id === o.with_wallet))).toBe(true);
}
