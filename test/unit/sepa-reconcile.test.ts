import { describe, expect, it } from 'vitest';
import { parseStatement } from '../../server/domain/sepa/camt';
import { applyActions, type FilePayoutRef, planStatement, planStatusReport } from '../../server/domain/sepa/match';
import { buildPayoutFile, type PayoutFile } from '../../server/domain/sepa/pain001';
import { parseStatusReport } from '../../server/domain/sepa/pain002';
import { cancelFile, type PayoutAction, type PayoutState } from '../../server/domain/sepa/states';
import { type BankLine, linesPerBatch, linesPerTransfer, statementXml, statusReportXml } from './sepa-bank';

// The whole path of a payout file, as the wiring will drive it, on an in-memory model of
// the payouts: a file is made, downloaded (in transit), the bank's statement is made from
// it and imported twice (paid once), a later statement returns one (money back once), a
// pain.002 rejects one before execution (failed), a file is cancelled (pending again).

const ACCOUNT = 'ES9121000418450200051332';
const DEBTOR = { name: 'Plataforma', iban: ACCOUNT, bic: 'CAIXESBBXXX' };
const id = (n: number) => `0195541a-0000-7000-8000-${String(n).padStart(12, '0')}`;

function makeFile(amounts: bigint[], fileId = '0195541a-7c2e-7b1a-9c3d-1234567890ab'): PayoutFile {
  return buildPayoutFile({
    fileId,
    createdAt: new Date('2026-03-03T10:00:00Z'),
    initiatingParty: 'Plataforma',
    executionDate: '2026-03-04',
    payouts: amounts.map((amount, i) => ({ id: id(i + 1), amount, currency: 'EUR', debtor: DEBTOR, creditor: { name: `C ${i}`, iban: 'DE89370400440532013000' } })),
  });
}

/** The service as the wiring will be: payout states, the events written, the money sent back, the reports imported. */
class Books {
  states = new Map<string, PayoutState>();
  events: string[] = [];
  moneyBack: string[] = [];
  imported = new Set<string>();
  constructor(readonly file: PayoutFile) {
    for (const p of file.batches.flatMap((b) => b.payouts)) this.states.set(p.id, 'pending');
  }
  refs(): FilePayoutRef[] {
    return this.file.batches.flatMap((b) => b.payouts.map((p) => ({ id: p.id, kind: 'merchant_payout' as const, endToEndId: p.endToEndId, paymentInfoId: b.paymentInfoId, amount: p.amount, state: this.states.get(p.id)! })));
  }
  apply(actions: { action: PayoutAction; payoutIds: string[]; reason: string | null }[]) {
    const { changes, refused } = applyActions(new Map(this.refs().map((r) => [r.id, { kind: r.kind, state: r.state }])), actions);
    for (const c of changes) {
      expect(this.states.get(c.id)).toBe(c.from);
      this.states.set(c.id, c.to);
      this.events.push(`${c.event} ${c.id.slice(-1)}${c.reason ? ` ${c.reason}` : ''}`);
      if (c.moneyBack) this.moneyBack.push(c.id);
    }
    return { changes, refused };
  }
  download() {
    return this.apply([{ action: 'send', payoutIds: [...this.states.keys()], reason: null }]);
  }
  /** Imports a statement as the wiring will: plan, apply, remember its reports. */
  importStatement(xml: string, opts: { forgetImports?: boolean } = {}) {
    const plan = planStatement(parseStatement(xml), { debtorIban: ACCOUNT, importedReports: opts.forgetImports ? new Set() : this.imported, payouts: this.refs() });
    if (!plan.ok) return plan;
    const applied = this.apply(plan.outcomes);
    for (const r of plan.reports) this.imported.add(r.key);
    return { ...plan, ...applied };
  }
}

const statement = (lines: BankLine[], over: Partial<Parameters<typeof statementXml>[0]> = {}) => statementXml({ iban: ACCOUNT, lines, ...over });

describe('a payout file from making to the bank statement', () => {
  it('round trip: a file, a camt.053 made from it, imported twice: each payout paid once', () => {
    const file = makeFile([1005n, 2005n, 999n]);
    const books = new Books(file);
    books.download();
    expect(books.events).toEqual(['merchant_payout.in_transit 1', 'merchant_payout.in_transit 2', 'merchant_payout.in_transit 3']);
    const xml = statement(linesPerTransfer(file));
    const first = books.importStatement(xml);
    expect(first).toMatchObject({ ok: true, reports: [{ key: `camt.053:${ACCOUNT}:STMT-2026-03-04`, duplicate: false }], unmatched: [] });
    const second = books.importStatement(xml);
    expect(second).toMatchObject({ ok: true, reports: [{ duplicate: true }], outcomes: [], changes: [] });
    // Even a statement whose key was not recorded (a camt.054 of the same transfers, say) pays nobody twice.
    expect(books.importStatement(xml, { forgetImports: true })).toMatchObject({ ok: true, changes: [], refused: [] });
    expect(books.importStatement(statement(linesPerTransfer(file), { kind: 'camt.054', version: '02' }))).toMatchObject({ ok: true, changes: [] });
    expect(books.events.filter((e) => e.startsWith('merchant_payout.paid'))).toEqual(['merchant_payout.paid 1', 'merchant_payout.paid 2', 'merchant_payout.paid 3']);
    expect([...books.states.values()]).toEqual(['paid', 'paid', 'paid']);
    expect(books.moneyBack).toEqual([]);
  });

  it('a bank that booked the batch as one debit: matched by PmtInfId and total, or listed when the total differs', () => {
    const file = makeFile([1005n, 2005n]);
    const books = new Books(file);
    books.download();
    const [batch] = linesPerBatch(file);
    // Banks write NOTPROVIDED where a transfer has no EndToEndId: the batch rule still applies.
    batch!.transactions = [{ endToEndId: 'NOTPROVIDED' }];
    const wrong = books.importStatement(statement([{ ...batch!, amount: 3009n, batch: { ...batch!.batch!, total: 3009n } }], { reportId: 'S1' }));
    expect(wrong).toMatchObject({ ok: true, outcomes: [], unmatched: [{ entry: 0, amount: 3009n, why: `the debit differs from the total of batch ${file.messageId}-1` }] });
    expect(books.importStatement(statement([batch!], { reportId: 'S2' }))).toMatchObject({ ok: true, unmatched: [] });
    expect([...books.states.values()]).toEqual(['paid', 'paid']);
  });

  it('a return after paid: returned with its reason, the money back once', () => {
    const file = makeFile([1005n, 2005n]);
    const books = new Books(file);
    books.download();
    books.importStatement(statement(linesPerTransfer(file), { reportId: 'DAY-1' }));
    const e2e = file.batches[0]!.payouts[1]!.endToEndId;
    const back = statement([{ direction: 'CRDT', amount: 2005n, transactions: [{ endToEndId: e2e, amount: 2005n, returnReason: 'AC04' }] }], { reportId: 'DAY-2', kind: 'camt.054' });
    books.importStatement(back);
    books.importStatement(back);
    books.importStatement(back, { forgetImports: true });
    expect(books.events.slice(-2)).toEqual(['merchant_payout.paid 2', 'merchant_payout.returned 2 AC04']);
    expect(books.moneyBack).toEqual([id(2)]);
    expect([...books.states.values()]).toEqual(['paid', 'returned']);
  });

  it('a debit and its return in one statement, or a return seen first: booked, then returned', () => {
    const file = makeFile([1005n]);
    const books = new Books(file);
    books.download();
    const e2e = file.batches[0]!.payouts[0]!.endToEndId;
    const ret: BankLine = { direction: 'CRDT', amount: 1005n, reversal: true, subFamily: 'ESCT', transactions: [{ endToEndId: e2e, returnReason: 'MD07' }] };
    books.importStatement(statement([ret, ...linesPerTransfer(file)]));
    expect(books.events.slice(1)).toEqual(['merchant_payout.paid 1', 'merchant_payout.returned 1 MD07']);
    expect(books.moneyBack).toEqual([id(1)]);
    // The debit's statement never imported: the return alone still books the payout first.
    const alone = new Books(file);
    alone.download();
    alone.importStatement(statement([ret]));
    expect(alone.events.slice(1)).toEqual(['merchant_payout.paid 1', 'merchant_payout.returned 1 MD07']);
  });

  it('a pain.002 rejection before execution: failed with its reason, money back once; a report of another file is refused', () => {
    const file = makeFile([1005n, 2005n, 999n]);
    const books = new Books(file);
    books.download();
    const [, e2, e3] = file.batches[0]!.payouts.map((p) => p.endToEndId);
    const xml = statusReportXml({
      version: '10',
      originalMessageId: file.messageId,
      groupStatus: 'PART',
      batches: [{ paymentInfoId: `${file.messageId}-1`, transactions: [{ endToEndId: e2!, status: 'RJCT', reason: 'AC01' }, { endToEndId: e3!, status: 'ACCP' }] }],
    });
    const plan = planStatusReport(parseStatusReport(xml), { messageId: file.messageId, payouts: books.refs() });
    expect(plan).toEqual({ ok: true, actions: [{ action: 'reject', payoutIds: [id(2)], reason: 'AC01' }] });
    books.apply(plan.ok ? plan.actions : []);
    books.apply(plan.ok ? plan.actions : []);
    expect(books.events.slice(3)).toEqual(['merchant_payout.failed 2 AC01']);
    expect(books.moneyBack).toEqual([id(2)]);
    expect(planStatusReport(parseStatusReport(xml), { messageId: 'another', payouts: books.refs() })).toEqual({ ok: false, reason: `the report answers file ${file.messageId}, not another` });
  });

  it('a whole file rejected: every payout failed; a rejection after paid is refused for a person', () => {
    const file = makeFile([1005n, 2005n]);
    const books = new Books(file);
    books.download();
    books.importStatement(statement(linesPerTransfer(file).slice(0, 1)));
    const report = parseStatusReport(statusReportXml({ version: '03', originalMessageId: file.messageId, groupStatus: 'RJCT', groupReason: 'FF01', batches: [] }));
    const plan = planStatusReport(report, { messageId: file.messageId, payouts: books.refs() });
    const { refused } = books.apply(plan.ok ? plan.actions : []);
    expect(refused).toEqual([{ id: id(1), reason: 'a payout that is paid cannot be rejected' }]);
    expect([...books.states.values()]).toEqual(['paid', 'failed']);
    expect(books.events.at(-1)).toBe('merchant_payout.failed 2 FF01');
  });

  it('a cancelled file: its payouts pending again, in a later file; the old file cannot book them', () => {
    const file = makeFile([1005n]);
    const books = new Books(file);
    books.download();
    const cancel = cancelFile('downloaded', 'merchant_payout', books.refs().map((r) => ({ id: r.id, state: r.state })));
    expect(cancel.ok).toBe(true);
    books.apply(cancel.ok ? cancel.transitions.map((t) => ({ action: 'cancel_file' as const, payoutIds: [t.id], reason: null })) : []);
    expect(books.events.at(-1)).toBe('merchant_payout.pending 1');
    const later = new Books(makeFile([1005n], '0195541a-7c2e-7b1a-9c3d-1234567890ff'));
    later.download();
    // The cancelled file uploaded anyway: its line names the old batch and is left for a person.
    const stale = later.importStatement(statement(linesPerTransfer(file)));
    expect(stale).toMatchObject({ ok: true, outcomes: [], unmatched: [{ why: expect.stringContaining('not the payout\'s current file') }] });
    expect(later.states.get(id(1))).toBe('in_transit');
  });
});

describe('statements that change nothing', () => {
  const file = makeFile([1005n, 2005n]);

  it('a statement of another account or currency is refused whole', () => {
    const books = new Books(file);
    books.download();
    expect(books.importStatement(statement(linesPerTransfer(file), { iban: 'DE89370400440532013000' }))).toEqual({ ok: false, reason: 'the statement is of account DE89370400440532013000, not of the payout account' });
    expect(books.importStatement(statement(linesPerTransfer(file), { currency: 'USD' }))).toEqual({ ok: false, reason: "the statement's account is in USD, not EUR" });
    const usd = linesPerTransfer(file).map((l, i) => (i === 1 ? { ...l, currency: 'USD' } : l));
    expect(books.importStatement(statement(usd, { currency: '' }))).toEqual({ ok: false, reason: 'entry 2 is in USD: payout files pay EUR only' });
    expect([...books.states.values()]).toEqual(['in_transit', 'in_transit']);
    expect(books.imported.size).toBe(0);
  });

  it('lines that are not ours, differ, or are not booked are listed, not applied', () => {
    const books = new Books(file);
    books.download();
    const [l1, l2] = linesPerTransfer(file);
    const plan = books.importStatement(
      statement([
        { direction: 'CRDT', amount: 5000n, subFamily: 'ESCT', transactions: [{ endToEndId: 'CARD-SETTLEMENT-1' }] },
        { ...l1!, amount: 1004n, transactions: [{ ...l1!.transactions[0]!, amount: 1004n }] },
        { direction: 'DBIT', amount: 77n, transactions: [{ endToEndId: 'NOTOURS' }] },
        { ...l2!, status: 'PDNG' },
        { direction: 'DBIT', amount: 12n, subFamily: 'CHRG', transactions: [] },
      ]),
    );
    expect(plan.ok && plan.unmatched.map((u) => [u.entry, u.direction, u.amount, u.why])).toEqual([
      [0, 'CRDT', 5000n, 'a credit that is not a return of a payout'],
      [1, 'DBIT', 1004n, `the amount of EndToEndId ${l1!.transactions[0]!.endToEndId} differs from the payout's`],
      [2, 'DBIT', 77n, 'EndToEndId NOTOURS is not a payout in a file'],
      [4, 'DBIT', 12n, 'a debit that names no payout of ours'],
    ]);
    expect([...books.states.values()]).toEqual(['in_transit', 'in_transit']);
  });
});
