import { beforeAll, describe, expect, it } from 'vitest';
import { createGateways } from '../../server/payments/registry';
import { sandboxGateways } from '../../server/payments/sandbox';
import { auditOf } from '../../server/store/audit';
import { setPricing } from '../../server/store/balance';
import { createEnvironment } from '../../server/store/environments';
import { type BankLine, statementXml, statusReportXml } from '../unit/sepa-bank';
import { member } from './dashboard';
import { IBANS } from './documents';
import { Client, ENGINES, problemPaths } from './harness';
import { balanceOf, checkLedger, useOwnService } from './ledger';
import { payWithCard, priced } from './pay';
import { acquirer, cents, DEBTOR, debits, type FileJson, livePayouts, REAL_CARD, REAL_ID, SEPA, upload } from './sepa-payouts';

// Payouts by SEPA file through the API (PAYOUT_PROVIDER=sepa-file; docs/balance.md#payout-files),
// on both engines, a live environment's wallet payouts to client IBANs: the job writes a
// file, its first download sends the payouts, a statement made from the file by the test's
// bank (test/unit/sepa-bank.ts) pays them once however often it is imported, a later one
// returns one (the money back once), a pain.002 rejects one, a cancelled file puts its
// payouts back (audited), an owner marks a merchant payout paid by hand (mark_paid/); a payout in
// another currency, an XXE statement and another account's
// statement are refused. After each, the ledger adds up.

describe.each(ENGINES)('payouts by SEPA file on %s', (engine) => {
  const svc = useOwnService(engine, { gateways: createGateways([...sandboxGateways(), acquirer()]), env: SEPA });
  let live: Client;
  const db = () => svc.t.service.deps.database.db;
  const runFiles = () => svc.t.service.jobs.runOnce('payout-files');

  beforeAll(async () => {
    live = new Client(svc.t.url, await createEnvironment(db(), { name: 'Live shop', mode: 'live', now: new Date() }));
  });

  const { fundedWallet, payout, fileOf } = livePayouts(() => svc.t, () => live);

  const statusOf = async (id: string) => (await live.get(`/transfer/${id}/`)).body.status as string;
  const eventsOfIn = async (api: Client, id: string) => ((await api.get(`/event/?object_id=${id}&page_size=100`)).body.results as { type: string }[]).map((e) => e.type).reverse();
  const eventsOf = (id: string) => eventsOfIn(live, id);

  it('round trip: file, first download sends, a camt.053 made from it imported twice pays once', async () => {
    const a = await payout(4);
    const b = await payout(2.5);
    expect(await runFiles()).toBe(1);
    const file = await fileOf(a.id);
    expect(file.payouts.map((p) => p.id).sort()).toEqual([a.id, b.id].sort());
    expect(file).toMatchObject({ state: 'written', download_count: 0, warning: null });
    // Written, not sent: nothing moves until the file is downloaded.
    expect(await statusOf(a.id)).toBe('pending');
    expect(await runFiles()).toBe(0);

    const first = await live.get(`/payout_file/${file.id}/xml/`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(first.headers.get('payout-file-warning')).toBeNull();
    const xml = first.text;
    expect(xml).toContain(`<MsgId>${file.message_id}</MsgId>`);
    expect(xml).toContain('<Nm>Jose Muller + Son</Nm>');
    expect(await statusOf(a.id)).toBe('in_transit');
    const again = await live.get(`/payout_file/${file.id}/xml/`);
    expect(again.text).toBe(xml);
    expect(again.headers.get('payout-file-warning')).toMatch(/pays every payout in it twice/);
    expect((await live.get(`/payout_file/${file.id}/`)).body).toMatchObject({ state: 'downloaded', download_count: 2, warning: expect.stringMatching(/twice/) });

    const statement = upload(statementXml({ iban: DEBTOR, reportId: `STMT-${file.message_id}`, lines: debits(await fileOf(a.id)) }));
    const imported = await live.post('/bank_statement/', statement);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.changes.map((c: { to: string }) => c.to)).toEqual(['paid', 'paid']);
    // Under an Idempotency-Key the import runs in the key's transaction and replays.
    const keyed = await live.post('/bank_statement/', statement, { 'Idempotency-Key': `stmt-${file.id}` });
    expect(keyed.status, keyed.text).toBe(201);
    expect((await live.post('/bank_statement/', statement, { 'Idempotency-Key': `stmt-${file.id}` })).headers.get('idempotent-replayed')).toBe('true');
    const twice = await live.post('/bank_statement/', statement);
    expect(twice.status, twice.text).toBe(201);
    expect(twice.body).toMatchObject({ reports: [{ duplicate: true }], changes: [], unmatched: [] });
    for (const id of [a.id, b.id]) {
      expect(await statusOf(id)).toBe('paid');
      expect((await eventsOf(id)).filter((t) => t.startsWith('transfer.'))).toEqual(['transfer.in_transit', 'transfer.paid']);
    }
    expect((await live.get(`/payout_file/${file.id}/`)).body.state).toBe('booked');
    const cancel = await live.post(`/payout_file/${file.id}/cancel/`, {});
    expect(cancel.status, cancel.text).toBe(409);
    await checkLedger(db(), live.keys.environment_id);
  });

  it('a return after paid: the money back once, with its own event, however often imported', async () => {
    const p = await payout(4);
    await runFiles();
    const file = await fileOf(p.id);
    expect((await live.get(`/payout_file/${file.id}/xml/`)).status).toBe(200);
    expect((await live.post('/bank_statement/', upload(statementXml({ iban: DEBTOR, reportId: `PAID-${p.id}`, lines: debits(file) })))).status).toBe(201);
    expect(await balanceOf(live, p.wallet)).toBe(6);
    const item = file.payouts[0]!;
    const back: BankLine = { direction: 'CRDT', amount: cents(item.amount), transactions: [{ endToEndId: item.end_to_end_id, amount: cents(item.amount), returnReason: 'AC04' }] };
    const returned = await live.post('/bank_statement/', upload(statementXml({ iban: DEBTOR, reportId: `RTRN-${p.id}`, lines: [back] })));
    expect(returned.status, returned.text).toBe(201);
    expect(returned.body.changes).toEqual([{ object: 'transfer', id: p.id, from: 'paid', to: 'returned' }]);
    // The same return again, and inside another report: nothing more.
    expect((await live.post('/bank_statement/', upload(statementXml({ iban: DEBTOR, reportId: `RTRN-${p.id}`, lines: [back] })))).body.changes).toEqual([]);
    expect((await live.post('/bank_statement/', upload(statementXml({ iban: DEBTOR, reportId: `RTRN2-${p.id}`, lines: [back] })))).body.changes).toEqual([]);
    expect(await balanceOf(live, p.wallet)).toBe(10);
    const transfer = (await live.get(`/transfer/${p.id}/`)).body;
    expect(transfer).toMatchObject({ status: 'returned', failure: expect.stringContaining('AC04') });
    expect((await eventsOf(p.id)).filter((t) => t.startsWith('transfer.'))).toEqual(['transfer.in_transit', 'transfer.paid', 'transfer.returned']);
    await checkLedger(db(), live.keys.environment_id);
  });

  it('a pain.002 rejection fails the payout and returns its money', async () => {
    const p = await payout(3);
    await runFiles();
    const file = await fileOf(p.id);
    await live.get(`/payout_file/${file.id}/xml/`);
    const item = file.payouts[0]!;
    const report = statusReportXml({ version: '10', originalMessageId: file.message_id, batches: [{ paymentInfoId: item.payment_info_id, transactions: [{ endToEndId: item.end_to_end_id, status: 'RJCT', reason: 'AC01' }] }] });
    const rejected = await live.post('/bank_statement/', upload(report, 'pain002.xml'));
    expect(rejected.status, rejected.text).toBe(201);
    expect(rejected.body).toMatchObject({ kind: 'pain.002', changes: [{ id: p.id, from: 'in_transit', to: 'failed' }] });
    expect((await live.post('/bank_statement/', upload(report, 'pain002.xml'))).body.changes).toEqual([]);
    expect(await statusOf(p.id)).toBe('failed');
    expect(await balanceOf(live, p.wallet)).toBe(10);
    await checkLedger(db(), live.keys.environment_id);
  });

  it('a cancelled file puts its payouts back to pending for the next file, and is never sent again', async () => {
    const p = await payout(2);
    await runFiles();
    const file = await fileOf(p.id);
    await live.get(`/payout_file/${file.id}/xml/`);
    const cancelled = await live.post(`/payout_file/${file.id}/cancel/`, {});
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    expect(await statusOf(p.id)).toBe('pending');
    // Audited as the dashboard's cancel is, once: a repeat answers the file as it is and changes nothing.
    expect((await live.post(`/payout_file/${file.id}/cancel/`, {})).body.state).toBe('cancelled');
    const audited = (await auditOf(db(), live.keys.environment_id, { limit: 100, offset: 0 })).filter((a) => a.action === 'payout_file_cancelled');
    expect(audited.map((a) => ({ email: a.email, detail: JSON.parse(a.detail!) as unknown }))).toEqual([{ email: null, detail: { file: file.id, pending: '1' } }]);
    expect((await eventsOf(p.id)).filter((t) => t.startsWith('transfer.'))).toEqual(['transfer.in_transit', 'transfer.pending']);
    expect((await live.get(`/payout_file/${file.id}/xml/`)).status).toBe(409);
    expect(await runFiles()).toBe(1);
    const next = await fileOf(p.id);
    expect(next.id).not.toBe(file.id);
    // A line of the cancelled file seen later pays nothing: it is listed for a person.
    const old = await live.post('/bank_statement/', upload(statementXml({ iban: DEBTOR, reportId: `OLD-${p.id}`, lines: debits(file) })));
    expect(old.body.changes).toEqual([]);
    expect(old.body.unmatched).toHaveLength(1);
  });

  /** A live merchant with 25 EUR available, its bank account named, and a manual payout of it made (`pending`). */
  async function merchantPayout(name: string) {
    const shop = new Client(svc.t.url, await createEnvironment(db(), { name, mode: 'live', now: new Date() }));
    const noFee = { percentE2: 0n, fixed: 0n };
    await setPricing(db(), shop.keys.environment_id, { charge: noFee, refund: noFee, settlementDelayDays: 0 }, new Date());
    const tx = await shop.post('/transaction/', priced('EUR', 25));
    expect((await payWithCard(svc.t.url, tx.body.token, REAL_CARD, REAL_ID)).status).toBe(200);
    await svc.t.service.jobs.runOnce('balance');
    const available = async () => ((await shop.get('/balance/')).body.available as { currency: string; amount: number }[]).find((a) => a.currency === 'EUR')?.amount ?? 0;
    expect(await available()).toBe(25);
    expect((await shop.patch('/payout_settings/', { iban: IBANS.ES })).status).toBe(200);
    expect((await shop.post('/merchant_payout/', { currency: 'EUR' })).status).toBe(409);
    expect((await shop.patch('/payout_settings/', { account_holder_name: 'Tienda Ejemplo SL' })).status).toBe(200);
    const made = await shop.post('/merchant_payout/', { currency: 'EUR' });
    expect(made.status, made.text).toBe(201);
    expect(await available()).toBe(0);
    return { shop, payoutId: made.body.id as string, available };
  }

  /** The one file of a merchant's environment. */
  async function onlyFile(shop: Client): Promise<FileJson> {
    const listed = (await shop.get('/payout_file/')).body.results as { id: string }[];
    expect(listed).toHaveLength(1);
    return (await shop.get(`/payout_file/${listed[0]!.id}/`)).body as FileJson;
  }

  const returnOf = (item: FileJson['payouts'][number], code: string): BankLine => ({
    direction: 'CRDT',
    amount: cents(item.amount),
    transactions: [{ endToEndId: item.end_to_end_id, amount: cents(item.amount), returnReason: code }],
  });

  it("a merchant payout by file: the balance's money leaves, is paid once, comes back once on a return", async () => {
    const { shop, payoutId, available } = await merchantPayout('Live merchant');
    // The payout worker leaves a live payout to the file job.
    await svc.t.service.jobs.runOnce('merchant-payouts');
    expect((await shop.get(`/merchant_payout/${payoutId}/`)).body.status).toBe('pending');
    await runFiles();
    const file = await onlyFile(shop);
    expect(file.payouts).toEqual([expect.objectContaining({ id: payoutId, amount: 25, status: 'pending' })]);
    // Written and not downloaded: the Overview's Needs attention says since when, until it is.
    const { browser } = await member(svc.t, shop, 'owner');
    expect((await browser.get('/dashboard/')).text).toContain('A payout file waiting to be sent since');
    expect((await shop.get(`/payout_file/${file.id}/xml/`)).status).toBe(200);
    expect((await browser.get('/dashboard/')).text).not.toContain('A payout file waiting to be sent');
    const paid = await shop.post('/bank_statement/', upload(statementXml({ iban: DEBTOR, reportId: `M-${file.id}`, lines: debits(file) })));
    expect(paid.body.changes).toEqual([{ object: 'merchant_payout', id: payoutId, from: 'in_transit', to: 'paid' }]);
    const back = returnOf(file.payouts[0]!, 'MD07');
    for (const reportId of [`MR-${file.id}`, `MR-${file.id}`, `MR2-${file.id}`]) {
      expect((await shop.post('/bank_statement/', upload(statementXml({ iban: DEBTOR, reportId, lines: [back] })))).status).toBe(201);
    }
    expect((await shop.get(`/merchant_payout/${payoutId}/`)).body).toMatchObject({ status: 'returned', failure: expect.stringContaining('MD07') });
    expect(await available()).toBe(25);
    const events = (await eventsOfIn(shop, payoutId)).filter((t) => t.startsWith('merchant_payout.'));
    expect(events).toEqual(['merchant_payout.created', 'merchant_payout.in_transit', 'merchant_payout.paid', 'merchant_payout.returned']);
    await checkLedger(db(), shop.keys.environment_id);
  });

  it('marks a merchant payout in transit paid by hand through the API: once, one event, audited; refused while pending or returned', async () => {
    const { shop, payoutId, available } = await merchantPayout('Live merchant marking by hand');
    await runFiles();
    const file = await onlyFile(shop);
    const markPaid = (body: unknown, headers?: Record<string, string>) => shop.post(`/payout_file/${file.id}/mark_paid/`, body, headers);
    const reason = 'Seen paid on the bank website';

    // Pending (the file not downloaded, so never sent): the state's rule refuses it.
    const early = await markPaid({ payout: payoutId, reason });
    expect(early.status, early.text).toBe(409);
    expect(early.body.detail).toContain('a payout that is pending cannot be marked paid');
    expect((await shop.get(`/payout_file/${file.id}/xml/`)).status).toBe(200);

    for (const [body, path] of [
      [{ payout: payoutId }, 'reason'],
      [{ payout: payoutId, reason: '   ' }, 'reason'],
      [{ payout: payoutId, reason: 'x'.repeat(501) }, 'reason'],
      [{ payout: 'not-an-id', reason }, 'payout'],
      [{ payout: payoutId, reason, status: 'paid' }, 'status'],
    ] as const) {
      const res = await markPaid(body);
      expect(res.status, res.text).toBe(400);
      expect(problemPaths(res)).toEqual([path]);
    }
    expect((await markPaid({ payout: crypto.randomUUID(), reason })).status).toBe(404);
    // Another environment's file is not found, and nothing moves.
    expect((await live.post(`/payout_file/${file.id}/mark_paid/`, { payout: payoutId, reason })).status).toBe(404);
    expect((await shop.get(`/merchant_payout/${payoutId}/`)).body.status).toBe('in_transit');

    const marked = await markPaid({ payout: payoutId, reason }, { 'Idempotency-Key': `mark-${payoutId}` });
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body).toMatchObject({ id: file.id, state: 'booked', payouts: [{ id: payoutId, status: 'paid' }] });
    const replay = await markPaid({ payout: payoutId, reason }, { 'Idempotency-Key': `mark-${payoutId}` });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(marked.body);
    // Marked again without the key: it is paid already, so nothing changes.
    expect((await markPaid({ payout: payoutId, reason: 'Again' })).status).toBe(200);
    expect((await shop.get(`/merchant_payout/${payoutId}/`)).body.status).toBe('paid');
    const events = (await eventsOfIn(shop, payoutId)).filter((t) => t.startsWith('merchant_payout.'));
    expect(events).toEqual(['merchant_payout.created', 'merchant_payout.in_transit', 'merchant_payout.paid']);
    const audited = (await auditOf(db(), shop.keys.environment_id, { limit: 100, offset: 0 })).filter((a) => a.action === 'payout_marked_paid');
    expect(audited.map((a) => ({ email: a.email, detail: JSON.parse(a.detail!) as unknown }))).toEqual([{ email: null, detail: { file: file.id, payout: payoutId, reason } }]);
    // Booked: it can no longer be cancelled.
    expect((await shop.post(`/payout_file/${file.id}/cancel/`, {})).status).toBe(409);

    // The bank returns it later: the money back once, and it can no longer be marked paid.
    expect((await shop.post('/bank_statement/', upload(statementXml({ iban: DEBTOR, reportId: `HR-${file.id}`, lines: [returnOf(file.payouts[0]!, 'AC04')] })))).status).toBe(201);
    expect(await available()).toBe(25);
    const late = await markPaid({ payout: payoutId, reason });
    expect(late.status, late.text).toBe(409);
    expect((await shop.get(`/merchant_payout/${payoutId}/`)).body.status).toBe('returned');
    await checkLedger(db(), shop.keys.environment_id);
  });

  it('refuses a payout in another currency, a live payout with no holder, an XXE statement and another account', async () => {
    const usd = await payout(4, 'USD');
    await runFiles();
    expect((await live.get(`/transfer/${usd.id}/`)).body).toMatchObject({ status: 'failed', failure: expect.stringContaining('euros only, not USD') });
    expect(await balanceOf(live, usd.wallet)).toBe(10);

    const { wallet, iban, clientId } = await fundedWallet();
    expect((await live.patch(`/client/${clientId}/iban/${iban}/`, { account_holder_name: null })).status).toBe(200);
    const nameless = await live.post('/transfer/', { source_wallet: wallet.id, destination_iban: iban, amount: 1 });
    expect(nameless.status, nameless.text).toBe(409);
    expect(nameless.body.detail).toContain('account_holder_name');

    const xxe = '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">&x;</Document>';
    const refused = await live.post('/bank_statement/', upload(xxe));
    expect(refused.status, refused.text).toBe(400);
    expect(problemPaths(refused)).toEqual(['file.data']);
    for (const junk of ['not xml at all', '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"/>', '<a><b></a>']) {
      const res = await live.post('/bank_statement/', upload(junk));
      expect(res.status, res.text).toBe(400);
    }
    const other = await live.post('/bank_statement/', upload(statementXml({ iban: IBANS.ES, reportId: 'OTHER', lines: [] })));
    expect(other.status, other.text).toBe(409);
    expect(other.body.detail).toContain('nothing was changed');
    await checkLedger(db(), live.keys.environment_id);
  });
});
