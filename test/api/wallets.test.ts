import { describe, expect, it } from 'vitest';
import { ENGINES, problemPaths, testClock } from './harness';
import { type PayoutGateway, sandboxPayouts } from '../../server/payments/payout-gateway';
import { reviewDocuments } from '../../server/jobs/compliance-review';
import { documentBody, IBANS } from './documents';
import { balanceOf, checkLedger, compliantClient, createWallet, entriesOf, fund, newClientId, useOwnService } from './ledger';
import { paidTransaction, priced } from './pay';
import { blockedBehind } from './lock-waits';

const RANDOM_UUID = '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e';
/** A valid German IBAN whose last four digits are 0000: the sandbox payout gateway refuses it. */
const REFUSED_IBAN = 'DE94370400440532010000';

// Wallets, transfers between them, and transactions whose destination credits them: each
// answer, each entry, and the ledger's invariants after.

describe.each(ENGINES)('wallets on %s', (engine) => {
  const svc = useOwnService(engine);
  const ledgerHolds = () => checkLedger(svc.t.service.deps.database.db, svc.api.keys.environment_id);

  it('creates a wallet with a balance of 0, reads, lists and changes it; currency and client are fixed', async () => {
    const { api } = svc;
    const w = await createWallet(api, { wallet_id: 'seller-1', name: 'Seller one', currency: 'JPY', notify_url: 'https://shop.example/w' });
    expect(w).toMatchObject({ wallet_id: 'seller-1', name: 'Seller one', currency: 'JPY', balance: 0, enabled: true, enabled_by_compliance: false });
    expect((await api.get(`/wallet/${w.id}/`)).body).toEqual(w);
    const listed = await api.get('/wallet/?wallet_id=seller-1');
    expect(listed.body.count).toBe(1);
    expect(listed.body.results[0]).toEqual(w);

    const patched = await api.patch(`/wallet/${w.id}/`, { name: 'Renamed', enabled: false, notify_url: null });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', enabled: false, notify_url: null, currency: 'JPY' });
    expect((await api.get('/wallet/?enabled=false&wallet_id=seller-1')).body.count).toBe(1);

    for (const body of [{ currency: 'EUR' }, { client_id: w.client_id }, { balance: 10 }, {}]) {
      const res = await api.patch(`/wallet/${w.id}/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      problemPaths(res);
    }
    expect((await api.get(`/wallet/${w.id}/`)).body.currency).toBe('JPY');
  });

  it("belongs to a client of the environment, and follows the client's compliance state", async () => {
    const { api, t } = svc;
    const other = await t.newEnvironment('Other');
    for (const client_id of [RANDOM_UUID, await newClientId(other)]) {
      const res = await api.post('/wallet/', { wallet_id: 'w', name: 'W', client_id, currency: 'EUR' });
      expect(res.status, res.text).toBe(400);
      expect(problemPaths(res)).toEqual(['client_id']);
    }
    const client_id = await newClientId(api);
    const w = await createWallet(api, { client_id });
    expect(w.enabled_by_compliance).toBe(false);
    expect((await api.post(`/client/${client_id}/document/`, documentBody())).status).toBe(201);
    const { deps } = t.service;
    await reviewDocuments({ db: deps.database.db, outbox: deps.outbox, now: deps.now, log: deps.log });
    expect((await api.get(`/client/${client_id}/`)).body.enabled_by_compliance).toBe(true);
    expect((await api.get(`/wallet/${w.id}/`)).body.enabled_by_compliance).toBe(true);
    expect((await api.get(`/wallet/?client_id=${client_id}`)).body.results[0].enabled_by_compliance).toBe(true);
  });

  it('refuses a second wallet with the same wallet_id (409), on create and on patch', async () => {
    const { api } = svc;
    await createWallet(api, { wallet_id: 'twin' });
    const again = await api.post('/wallet/', { wallet_id: 'twin', name: 'B', client_id: (await createWallet(api)).client_id, currency: 'EUR' });
    expect(again.status).toBe(409);
    expect(problemPaths(again)).toEqual(['wallet_id']);
    const other = await createWallet(api);
    const patch = await api.patch(`/wallet/${other.id}/`, { wallet_id: 'twin' });
    expect(patch.status).toBe(409);
    expect((await api.get(`/wallet/${other.id}/`)).body.wallet_id).toBe(other.wallet_id);
  });

  it('a paid transaction credits its destinations in the sale, and leaves the rest to the merchant', async () => {
    const { api } = svc;
    const a = await createWallet(api);
    const b = await createWallet(api);
    const { sale, transaction } = await paidTransaction(
      api,
      priced('EUR', 100, {
        destination: [
          { wallet_id: a.id, amount: 30.5, concept: 'seller share' },
          { wallet_id: b.id, amount: 20 },
        ],
      }),
    );
    expect(transaction.destination).toEqual([
      { wallet_id: a.id, amount: 30.5, concept: 'seller share' },
      { wallet_id: b.id, amount: 20 },
    ]);
    expect(await balanceOf(api, a.id)).toBe(30.5);
    expect(await balanceOf(api, b.id)).toBe(20);
    const [entry] = await entriesOf(api, a.id);
    expect(entry).toMatchObject({ wallet: a.id, amount: 30.5, balance: 30.5, currency: 'EUR', with_sale: sale.id, with_wallet: null, concept: 'seller share' });
    expect((await api.get(`/wallet/${a.id}/entry/${entry.id}/`)).body).toEqual(entry);
    // The merchant's account holds the rest, the card account the whole as money in.
    const rows = await svc.t.service.deps.database.db.selectFrom('ledger_entries').selectAll().where('movement_id', '=', sale.id).execute();
    const byAccount = Object.fromEntries(rows.filter((r) => !r.wallet).map((r) => [r.account, r.amount]));
    expect(byAccount).toEqual({ card_payments: -10_000, merchant: 4_950 });
    await ledgerHolds();
  });

  it('refuses destinations that are unknown, in another currency, disabled, more than the total, or with authorize', async () => {
    const { api } = svc;
    const eur = await createWallet(api);
    const usd = await createWallet(api, { currency: 'USD' });
    const off = await createWallet(api, { enabled: false });
    const cases: [unknown, number, string][] = [
      [[{ wallet_id: '0190f5a8-7c1e-7a4b-9d2e-5f6a7b8c9d0e', amount: 1 }], 400, 'destination.0.wallet_id'],
      [[{ wallet_id: usd.id, amount: 1 }], 400, 'destination.0.wallet_id'],
      [[{ wallet_id: eur.id, amount: 1 }, { wallet_id: off.id, amount: 1 }], 409, 'destination.1.wallet_id'],
      [[{ wallet_id: eur.id, amount: 10.01 }], 400, 'destination'],
      [[{ wallet_id: eur.id, amount: 0.001 }], 400, 'destination.0.amount'],
      [[{ wallet_id: eur.id, amount: 0 }], 400, 'destination.0.amount'],
      [[{ wallet_id: eur.id }], 400, 'destination.0.amount'],
    ];
    const before = await api.count('/transaction/');
    for (const [destination, status, path] of cases) {
      const res = await api.post('/transaction/', priced('EUR', 10, { destination }));
      expect(res.status, res.text).toBe(status);
      expect(problemPaths(res)).toContain(path);
    }
    const held = await api.post('/transaction/', priced('EUR', 10, { authorize: true, destination: [{ wallet_id: eur.id, amount: 1 }] }));
    expect(held.status).toBe(400);
    expect(problemPaths(held)).toEqual(['destination']);
    expect(await api.count('/transaction/')).toBe(before);
  });

  it('transfers between wallets at once, with an entry on each side naming the other', async () => {
    const { api } = svc;
    const a = await createWallet(api);
    const b = await createWallet(api);
    await fund(api, a, 50);
    const res = await api.post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 12.34, concept: 'rent', transfer_id: 'rent-1' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      status: 'paid',
      source_wallet: a.id,
      destination_wallet: b.id,
      destination_iban: null,
      amount: 12.34,
      currency: 'EUR',
      concept: 'rent',
      transfer_id: 'rent-1',
    });
    expect((await api.get(`/transfer/${res.body.id}/`)).body).toEqual(res.body);
    expect((await api.get('/transfer/?transfer_id=rent-1')).body.results).toEqual([res.body]);
    expect(await balanceOf(api, a.id)).toBe(37.66);
    expect(await balanceOf(api, b.id)).toBe(12.34);
    const out = (await entriesOf(api, a.id)).at(-1);
    const into = (await entriesOf(api, b.id)).at(-1);
    expect(out).toMatchObject({ amount: -12.34, balance: 37.66, with_wallet: b.id, transfer: res.body.id, concept: 'rent' });
    expect(into).toMatchObject({ amount: 12.34, balance: 12.34, with_wallet: a.id, transfer: res.body.id, concept: 'rent' });
    expect((await api.get(`/wallet/${a.id}/entry/?transfer=${res.body.id}`)).body.results).toEqual([out]);

    const again = await api.post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 1, transfer_id: 'rent-1' });
    expect(again.status).toBe(409);
    expect(problemPaths(again)).toEqual(['transfer_id']);
    expect(await balanceOf(api, a.id)).toBe(37.66);
    await ledgerHolds();
  });

  it('honours Idempotency-Key: a repeat replays the transfer and moves nothing more', async () => {
    const { api } = svc;
    const a = await createWallet(api);
    const b = await createWallet(api);
    await fund(api, a, 10);
    const body = { source_wallet: a.id, destination_wallet: b.id, amount: 4 };
    const first = await api.post('/transfer/', body, { 'idempotency-key': `k-${a.id}` });
    const second = await api.post('/transfer/', body, { 'idempotency-key': `k-${a.id}` });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await balanceOf(api, a.id)).toBe(6);
    // A refused transfer under a key rolls back with its key: the same key works once the money is there.
    const big = { ...body, amount: 100 };
    expect((await api.post('/transfer/', big, { 'idempotency-key': `big-${a.id}` })).status).toBe(409);
    await fund(api, a, 100);
    expect((await api.post('/transfer/', big, { 'idempotency-key': `big-${a.id}` })).status).toBe(201);
    await ledgerHolds();
  });

  it('refuses with 409 a transfer the source cannot afford, or out of or into a disabled wallet, moving nothing', async () => {
    const { api } = svc;
    const a = await createWallet(api);
    const b = await createWallet(api);
    await fund(api, a, 10);
    const poor = await api.post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 10.01 });
    expect(poor.status).toBe(409);
    expect(problemPaths(poor)).toEqual(['source_wallet']);

    await api.patch(`/wallet/${b.id}/`, { enabled: false });
    const into = await api.post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 1 });
    expect(into.status).toBe(409);
    expect(problemPaths(into)).toEqual(['destination_wallet']);
    await api.patch(`/wallet/${b.id}/`, { enabled: true });
    await api.patch(`/wallet/${a.id}/`, { enabled: false });
    const out = await api.post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 1 });
    expect(out.status).toBe(409);
    expect(problemPaths(out)).toEqual(['source_wallet']);
    // Reads still work on a disabled wallet.
    expect((await api.get(`/wallet/${a.id}/`)).body.balance).toBe(10);
    expect(await balanceOf(api, b.id)).toBe(0);
    expect((await api.get(`/transfer/?source_wallet=${a.id}`)).body.count).toBe(0);
    await ledgerHolds();
  });

  it('50 parallel transfers out of a wallet that can afford 10: exactly 10 succeed', async () => {
    const { api } = svc;
    const a = await createWallet(api);
    const b = await createWallet(api);
    await fund(api, a, 10);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => api.post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 1 })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(40);
    expect(await balanceOf(api, a.id)).toBe(0);
    expect(await balanceOf(api, b.id)).toBe(10);
    expect((await entriesOf(api, a.id)).map((e) => e.balance)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    await ledgerHolds();
  });

  // The source wallet's row held by hand, as another movement's transaction holds it: a
  // transfer asked meanwhile waits for it and is dated after it. It read the clock first:
  // on PostgreSQL a wallet's entries, in their order, went back in time by milliseconds.
  it("a transfer waits for the wallet's row, then is dated: its entries come after the one before", async () => {
    const { api } = svc;
    const a = await createWallet(api);
    const b = await createWallet(api);
    await fund(api, a, 10);
    let released = '';
    let transfer: Promise<{ status: number; text: string; body: any }> | undefined;
    await svc.t.service.deps.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('wallets').set({ updated_at: new Date().toISOString() }).where('id', '=', a.id).execute();
      transfer = api.post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 1 });
      await blockedBehind(svc.t.service.deps.database, trx, transfer);
      released = new Date().toISOString();
    });
    const made = await transfer!;
    expect(made.status, made.text).toBe(201);
    expect(made.body.created >= released, `transfer ${made.body.created}, row released ${released}`).toBe(true);
    const [, out] = await entriesOf(api, a.id);
    expect(out.date >= released, `entry ${out.date}, row released ${released}`).toBe(true);
  });

  it('transfers both ways between two wallets at once without deadlock or lost money', async () => {
    const { api } = svc;
    const a = await createWallet(api);
    const b = await createWallet(api);
    await fund(api, a, 20);
    await fund(api, b, 20);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api.post('/transfer/', { source_wallet: i % 2 ? a.id : b.id, destination_wallet: i % 2 ? b.id : a.id, amount: 1 }),
      ),
    );
    expect(results.map((r) => r.status).every((s) => s === 201)).toBe(true);
    expect((await balanceOf(api, a.id)) + (await balanceOf(api, b.id))).toBe(40);
    await ledgerHolds();
  });

  it('a refund takes the split back proportionally; what a destination no longer holds, the platform covers as its receivable', async () => {
    const { api } = svc;
    const a = await createWallet(api);
    const b = await createWallet(api);
    const sink = await createWallet(api);
    const { sale } = await paidTransaction(
      api,
      priced('EUR', 10, {
        destination: [
          { wallet_id: a.id, amount: 3.33 },
          { wallet_id: b.id, amount: 3.33 },
        ],
      }),
    );
    // 1.00 of 10.00: each destination gives back floor(333 × 100 / 1000) = 33.
    const first = await api.post(`/sale/${sale.id}/refund/`, { amount: 1 });
    expect(first.status, first.text).toBe(200);
    expect(await balanceOf(api, a.id)).toBe(3);
    expect(await balanceOf(api, b.id)).toBe(3);
    expect((await entriesOf(api, a.id)).at(-1)).toMatchObject({ amount: -0.33, with_sale: sale.id, concept: 'refund' });

    // b spends almost all: the next refund needs 1.33 of it (after 5.00 in all: floor(333 × 500 / 1000) = 166).
    // It gives the 0.50 it holds; the platform covers 0.83, which b owes; the customer is refunded all the same.
    expect((await api.post('/transfer/', { source_wallet: b.id, destination_wallet: sink.id, amount: 2.5 })).status).toBe(201);
    const covered = await api.post(`/sale/${sale.id}/refund/`, { amount: 4 });
    expect(covered.status, covered.text).toBe(200);
    expect(covered.body.refunded).toBe(5);
    expect(await balanceOf(api, a.id)).toBe(1.67);
    expect((await api.get(`/wallet/${b.id}/`)).body).toMatchObject({ balance: 0, receivable: 0.83 });
    expect((await entriesOf(api, b.id)).at(-1)).toMatchObject({ amount: -0.5, balance: 0, with_sale: sale.id, concept: 'refund' });
    await ledgerHolds();

    // Money back in b pays the platform first, then the rest of the sale is refunded: each gives back exactly its share.
    expect((await api.post('/transfer/', { source_wallet: sink.id, destination_wallet: b.id, amount: 2.5 })).status).toBe(201);
    expect((await api.get(`/wallet/${b.id}/`)).body).toMatchObject({ balance: 1.67, receivable: 0 });
    expect((await api.post(`/sale/${sale.id}/refund/`, {})).status).toBe(200);
    expect(await balanceOf(api, a.id)).toBe(0);
    expect((await api.get(`/wallet/${b.id}/`)).body).toMatchObject({ balance: 0, receivable: 0 });
    await ledgerHolds();
  });

  it('records wallet.credited, wallet.debited and transfer.paid events for objects with a notify_url', async () => {
    const { api } = svc;
    const a = await createWallet(api, { notify_url: 'https://shop.example/a' });
    const b = await createWallet(api, { notify_url: 'https://shop.example/b' });
    await fund(api, a, 5);
    const t = await api.post('/transfer/', { source_wallet: a.id, destination_wallet: b.id, amount: 2, notify_url: 'https://shop.example/t' });
    const [credit, debit] = [(await entriesOf(api, a.id))[0], (await entriesOf(api, a.id))[1]];
    const events = async (id: string) => (await api.get(`/event/?object_id=${id}`)).body.results;
    expect(await events(credit.id)).toMatchObject([{ type: 'wallet.credited', notify_url: 'https://shop.example/a', data: credit }]);
    expect(await events(debit.id)).toMatchObject([{ type: 'wallet.debited', notify_url: 'https://shop.example/a', data: debit }]);
    const into = (await entriesOf(api, b.id))[0];
    expect(await events(into.id)).toMatchObject([{ type: 'wallet.credited', notify_url: 'https://shop.example/b', data: into }]);
    expect(await events(t.body.id)).toMatchObject([{ type: 'transfer.paid', notify_url: 'https://shop.example/t', data: t.body }]);
  });
});

describe.each(ENGINES)('payouts on %s', (engine) => {
  const svc = useOwnService(engine);
  const payoutsRun = () => svc.t.service.jobs.runOnce('payouts');

  it("a disabled client's wallets move no money by request: no transfer in or out, no payout, no transaction's source or destination; enabled again, they do", async () => {
    const { api, t } = svc;
    const client = await compliantClient(t, api);
    const w = await createWallet(api, { client_id: client.id });
    const other = await createWallet(api);
    await fund(api, w, 10);
    await fund(api, other, 10);
    expect((await api.patch(`/client/${client.id}/`, { enabled: false })).status).toBe(200);
    const refusedAt = async (res: Promise<{ status: number }>, path: string) => {
      const answer = await res;
      expect(answer.status).toBe(409);
      expect(problemPaths(answer as Parameters<typeof problemPaths>[0])).toEqual([path]);
    };
    await refusedAt(api.post('/transfer/', { source_wallet: w.id, destination_wallet: other.id, amount: 1 }), 'source_wallet');
    await refusedAt(api.post('/transfer/', { source_wallet: other.id, destination_wallet: w.id, amount: 1 }), 'destination_wallet');
    await refusedAt(api.post('/transfer/', { source_wallet: w.id, destination_iban: client.iban, amount: 1 }), 'source_wallet');
    await refusedAt(api.post('/transaction/', priced('EUR', 5, { destination: [{ wallet_id: w.id, amount: 5 }] })), 'destination.0.wallet_id');
    await refusedAt(api.post('/transaction/', priced('EUR', 5, { source: [{ wallet_id: w.id, amount: 5 }] })), 'source.0.wallet_id');
    expect(await balanceOf(api, w.id)).toBe(10);
    expect(await balanceOf(api, other.id)).toBe(10);

    expect((await api.patch(`/client/${client.id}/`, { enabled: true })).status).toBe(200);
    expect((await api.post('/transfer/', { source_wallet: w.id, destination_wallet: other.id, amount: 1 })).status).toBe(201);
    expect(await balanceOf(api, w.id)).toBe(9);
    await checkLedger(t.service.deps.database.db, api.keys.environment_id);
  });

  it('pays out to a client IBAN: pending at once, paid by the payouts job', async () => {
    const { api, t } = svc;
    const client = await compliantClient(t, api);
    const w = await createWallet(api, { client_id: client.id, notify_url: 'https://shop.example/w' });
    await fund(api, w, 20);
    const res = await api.post('/transfer/', { source_wallet: w.id, destination_iban: client.iban, amount: 7.5, notify_url: 'https://shop.example/t' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', destination_iban: client.iban, destination_wallet: null, amount: 7.5 });
    expect(await balanceOf(api, w.id)).toBe(12.5);
    expect((await entriesOf(api, w.id)).at(-1)).toMatchObject({ amount: -7.5, with_external: `iban:${client.iban}`, transfer: res.body.id });

    await payoutsRun();
    const paid = (await api.get(`/transfer/${res.body.id}/`)).body;
    expect(paid).toMatchObject({ status: 'paid', failure: null });
    expect(await balanceOf(api, w.id)).toBe(12.5);
    expect((await api.get(`/event/?object_id=${res.body.id}`)).body.results).toMatchObject([{ type: 'transfer.paid', data: paid }]);
    // Settled once: another round finds nothing to send.
    expect(await payoutsRun()).toBe(0);
    await checkLedger(t.service.deps.database.db, api.keys.environment_id);
  });

  it('a payout the bank refuses (IBAN ending 0000) fails and returns the money with a reversing entry', async () => {
    const { api, t } = svc;
    const client = await compliantClient(t, api, REFUSED_IBAN);
    const w = await createWallet(api, { client_id: client.id });
    await fund(api, w, 20);
    const res = await api.post('/transfer/', { source_wallet: w.id, destination_iban: client.iban, amount: 5, notify_url: 'https://shop.example/t' });
    expect(res.status, res.text).toBe(201);
    expect(await balanceOf(api, w.id)).toBe(15);
    await payoutsRun();
    const failed = (await api.get(`/transfer/${res.body.id}/`)).body;
    expect(failed.status).toBe('failed');
    expect(failed.failure).toMatch(/0000/);
    expect(await balanceOf(api, w.id)).toBe(20);
    expect((await entriesOf(api, w.id)).slice(-2)).toMatchObject([
      { amount: -5, balance: 15, with_external: `iban:${client.iban}` },
      { amount: 5, balance: 20, with_external: `iban:${client.iban}`, transfer: res.body.id },
    ]);
    expect((await api.get(`/event/?object_id=${res.body.id}`)).body.results).toMatchObject([{ type: 'transfer.failed', data: failed }]);
    await checkLedger(t.service.deps.database.db, api.keys.environment_id);
  });

  it("refuses payouts to an IBAN that has not passed compliance (409), or is not the wallet client's (400)", async () => {
    const { api, t } = svc;
    const pending = await newClientId(api);
    const pendingIban = (await api.post(`/client/${pending}/iban/`, { iban: IBANS.DE })).body.id;
    const w = await createWallet(api, { client_id: pending });
    await fund(api, w, 20);
    const notYet = await api.post('/transfer/', { source_wallet: w.id, destination_iban: pendingIban, amount: 1 });
    expect(notYet.status, notYet.text).toBe(409);
    expect(problemPaths(notYet)).toEqual(['destination_iban']);

    const other = await compliantClient(t, api);
    const foreign = await api.post('/transfer/', { source_wallet: w.id, destination_iban: other.iban, amount: 1 });
    expect(foreign.status).toBe(400);
    expect(problemPaths(foreign)).toEqual(['destination_iban']);
    const unknown = await api.post('/transfer/', { source_wallet: w.id, destination_iban: RANDOM_UUID, amount: 1 });
    expect(unknown.status).toBe(400);

    // An IBAN disabled by the merchant: 409 too.
    const owner = await compliantClient(t, api);
    const mine = await createWallet(api, { client_id: owner.id });
    await fund(api, mine, 5);
    expect((await api.patch(`/client/${owner.id}/iban/${owner.iban}/`, { enabled: false })).status).toBe(200);
    expect((await api.post('/transfer/', { source_wallet: mine.id, destination_iban: owner.iban, amount: 1 })).status).toBe(409);
    expect(await balanceOf(api, w.id)).toBe(20);
    expect(await balanceOf(api, mine.id)).toBe(5);
  });
});

/**
 * The sandbox payout provider behind a switch: the next call can hang (the bank never got
 * it) or lose its answer after the bank acted. Counts what reached the bank per reference.
 */
function unreliablePayouts() {
  const bank = sandboxPayouts();
  const reached = new Map<string, number>();
  const provider = {
    code: 'unreliable-payout',
    // A stand-in of the sandbox's: it serves sandbox environments.
    sandbox: true,
    next: 'answer' as 'answer' | 'hang' | 'answer-lost',
    reached,
    async payout(r) {
      const mode = provider.next;
      provider.next = 'answer';
      if (mode === 'hang') return new Promise<never>((_, reject) => r.signal.addEventListener('abort', () => reject(r.signal.reason)));
      reached.set(r.reference, (reached.get(r.reference) ?? 0) + 1);
      const result = await bank.payout(r);
      if (mode === 'answer-lost') throw new Error('connection reset after the bank answered');
      return result;
    },
  } satisfies PayoutGateway & Record<string, unknown>;
  return provider;
}

describe.each(ENGINES)('payouts whose provider does not answer, on %s', (engine) => {
  const clock = testClock();
  const provider = unreliablePayouts();
  // A claim of 1 s over calls of at most 200 ms: the clock is moved past it, not waited for.
  const svc = useOwnService(engine, { now: clock.now, payouts: provider, env: { GATEWAY_TIMEOUT_MS: '200', PAYMENT_CLAIM_MS: '1000' } });
  const payoutsRun = () => svc.t.service.jobs.runOnce('payouts');

  it.each([
    ['hangs (the bank never got it)', 'hang', IBANS.ES, 'paid', 1],
    ['loses the answer after the bank paid', 'answer-lost', IBANS.ES, 'paid', 2],
    ['loses the answer after the bank refused', 'answer-lost', REFUSED_IBAN, 'failed', 2],
  ] as const)('a call that %s leaves the payout pending, asked again with its reference once the claim runs out, settled once', async (_, mode, iban, status, asked) => {
    const { api, t } = svc;
    const client = await compliantClient(t, api, iban);
    const w = await createWallet(api, { client_id: client.id });
    await fund(api, w, 10);
    const res = await api.post('/transfer/', { source_wallet: w.id, destination_iban: client.iban, amount: 4, notify_url: 'https://shop.example/t' });
    expect(res.status, res.text).toBe(201);
    const id = res.body.id as string;

    provider.next = mode;
    expect(await payoutsRun()).toBe(0);
    expect((await api.get(`/transfer/${id}/`)).body.status).toBe('pending');
    expect(await balanceOf(api, w.id)).toBe(6);
    // Still claimed by the round that lost its answer: nobody asks again yet.
    expect(await payoutsRun()).toBe(0);

    clock.advance(1_001);
    expect(await payoutsRun()).toBe(1);
    expect((await api.get(`/transfer/${id}/`)).body.status).toBe(status);
    expect(await balanceOf(api, w.id)).toBe(status === 'paid' ? 6 : 10);
    // The provider was reached with one reference, the transfer's, and answered it alike.
    expect(provider.reached.get(id)).toBe(asked);
    expect((await api.get(`/event/?object_id=${id}`)).body.results.map((e: { type: string }) => e.type)).toEqual([`transfer.${status}`]);
    clock.advance(1_001);
    expect(await payoutsRun()).toBe(0);
    await checkLedger(t.service.deps.database.db, api.keys.environment_id);
  });
});
