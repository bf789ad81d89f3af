import type { PayoutFile } from '../../server/domain/sepa/pain001';
import { centsToText } from '../../server/domain/sepa/text';

// A bank's side of the SEPA tests: camt.053 / camt.054 statements and pain.002 status
// reports made from a pain.001 file we wrote, the way a bank would answer it. Written by
// hand from the ISO 20022 message definitions (not with our own writer, so a mistake in
// one is not repeated in the other); the camt.053 ones validate against the vendored XSDs
// (sepa-statements.test.ts), so they are shaped as a real statement is.

export type CamtVersion = '02' | '08';

export interface BankLine {
  direction: 'DBIT' | 'CRDT';
  /** Cents. */
  amount: bigint;
  status?: 'BOOK' | 'PDNG';
  currency?: string;
  reversal?: boolean;
  /** …/RRTN for a return. */
  subFamily?: string;
  batch?: { messageId: string; paymentInfoId: string; count: number; total: bigint };
  transactions: { endToEndId?: string; paymentInfoId?: string; messageId?: string; amount?: bigint; returnReason?: string }[];
}

const amt = (cents: bigint, ccy: string) => `<Amt Ccy="${ccy}">${centsToText(cents)}</Amt>`;

function txXml(v: CamtVersion, line: BankLine, t: BankLine['transactions'][number]): string {
  const ccy = line.currency ?? 'EUR';
  const refs = `<Refs>${t.messageId ? `<MsgId>${t.messageId}</MsgId>` : ''}${t.paymentInfoId ? `<PmtInfId>${t.paymentInfoId}</PmtInfId>` : ''}${t.endToEndId ? `<EndToEndId>${t.endToEndId}</EndToEndId>` : ''}</Refs>`;
  const amount = t.amount === undefined ? '' : v === '08' ? `${amt(t.amount, ccy)}<CdtDbtInd>${line.direction}</CdtDbtInd>` : `<AmtDtls><TxAmt>${amt(t.amount, ccy)}</TxAmt></AmtDtls>`;
  const rtr = t.returnReason ? `<RtrInf><Rsn><Cd>${t.returnReason}</Cd></Rsn></RtrInf>` : '';
  return `<TxDtls>${refs}${amount}${rtr}</TxDtls>`;
}

function entryXml(v: CamtVersion, line: BankLine, i: number): string {
  const ccy = line.currency ?? 'EUR';
  const status = line.status ?? 'BOOK';
  const btch = line.batch
    ? `<Btch><MsgId>${line.batch.messageId}</MsgId><PmtInfId>${line.batch.paymentInfoId}</PmtInfId><NbOfTxs>${line.batch.count}</NbOfTxs><TtlAmt Ccy="${ccy}">${centsToText(line.batch.total)}</TtlAmt><CdtDbtInd>${line.direction}</CdtDbtInd></Btch>`
    : '';
  const sub = line.subFamily ?? (line.direction === 'DBIT' ? 'ESCT' : 'RRTN');
  return [
    `<Ntry><NtryRef>E${i + 1}</NtryRef>${amt(line.amount, ccy)}<CdtDbtInd>${line.direction}</CdtDbtInd>`,
    line.reversal ? '<RvslInd>true</RvslInd>' : '',
    v === '08' ? `<Sts><Cd>${status}</Cd></Sts>` : `<Sts>${status}</Sts>`,
    '<BookgDt><Dt>2026-03-04</Dt></BookgDt><ValDt><Dt>2026-03-04</Dt></ValDt>',
    `<AcctSvcrRef>BANKREF${i + 1}</AcctSvcrRef>`,
    `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>${sub}</SubFmlyCd></Fmly></Domn></BkTxCd>`,
    `<NtryDtls>${btch}${line.transactions.map((t) => txXml(v, line, t)).join('')}</NtryDtls></Ntry>`,
  ].join('');
}

export interface StatementOptions {
  kind?: 'camt.053' | 'camt.054';
  version?: CamtVersion;
  messageId?: string;
  reportId?: string;
  iban: string;
  currency?: string;
  lines: BankLine[];
}

/** A camt.053 statement (or camt.054 notification) of `o.lines` on account `o.iban`. */
export function statementXml(o: StatementOptions): string {
  const kind = o.kind ?? 'camt.053';
  const v = o.version ?? '08';
  const [body, report] = kind === 'camt.053' ? ['BkToCstmrStmt', 'Stmt'] : ['BkToCstmrDbtCdtNtfctn', 'Ntfctn'];
  const bal = kind === 'camt.053' ? '<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-04</Dt></Dt></Bal>' : '';
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:${kind}.001.${v}"><${body}>`,
    `<GrpHdr><MsgId>${o.messageId ?? 'STMT-MSG-1'}</MsgId><CreDtTm>2026-03-04T18:00:00</CreDtTm></GrpHdr>`,
    `<${report}><Id>${o.reportId ?? 'STMT-2026-03-04'}</Id><CreDtTm>2026-03-04T18:00:00</CreDtTm>`,
    `<Acct><Id><IBAN>${o.iban}</IBAN></Id>${o.currency === undefined ? '<Ccy>EUR</Ccy>' : o.currency ? `<Ccy>${o.currency}</Ccy>` : ''}</Acct>${bal}`,
    o.lines.map((l, i) => entryXml(v, l, i)).join(''),
    `</${report}></${body}></Document>\n`,
  ].join('');
}

/** One booked debit per transfer of `file`, named by EndToEndId: what BtchBookg=false asks for. */
export function linesPerTransfer(file: PayoutFile): BankLine[] {
  return file.batches.flatMap((b) =>
    b.payouts.map((p) => ({ direction: 'DBIT' as const, amount: p.amount, transactions: [{ endToEndId: p.endToEndId, paymentInfoId: b.paymentInfoId, messageId: file.messageId, amount: p.amount }] })),
  );
}

/** One booked debit per batch of `file`, named by PmtInfId only: a bank that booked the batch anyway. */
export function linesPerBatch(file: PayoutFile): BankLine[] {
  return file.batches.map((b) => ({
    direction: 'DBIT' as const,
    amount: b.controlSum,
    batch: { messageId: file.messageId, paymentInfoId: b.paymentInfoId, count: b.count, total: b.controlSum },
    transactions: [],
  }));
}

export interface StatusOptions {
  version: '03' | '10';
  originalMessageId: string;
  groupStatus?: string;
  groupReason?: string;
  batches: { paymentInfoId: string; status?: string; transactions: { endToEndId: string; status: string; reason?: string }[] }[];
}

const reason = (code: string | undefined) => (code ? `<StsRsnInf><Rsn><Cd>${code}</Cd></Rsn></StsRsnInf>` : '');

/** A pain.002 status report answering file `o.originalMessageId`. */
export function statusReportXml(o: StatusOptions): string {
  const nm = o.version === '10' ? 'pain.001.001.09' : 'pain.001.001.03';
  const batches = o.batches.map(
    (b) =>
      `<OrgnlPmtInfAndSts><OrgnlPmtInfId>${b.paymentInfoId}</OrgnlPmtInfId>${b.status ? `<PmtInfSts>${b.status}</PmtInfSts>` : ''}${b.transactions
        .map((t) => `<TxInfAndSts><OrgnlEndToEndId>${t.endToEndId}</OrgnlEndToEndId><TxSts>${t.status}</TxSts>${reason(t.reason)}</TxInfAndSts>`)
        .join('')}</OrgnlPmtInfAndSts>`,
  );
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.${o.version}"><CstmrPmtStsRpt>`,
    '<GrpHdr><MsgId>STS-1</MsgId><CreDtTm>2026-03-04T09:00:00</CreDtTm></GrpHdr>',
    `<OrgnlGrpInfAndSts><OrgnlMsgId>${o.originalMessageId}</OrgnlMsgId><OrgnlMsgNmId>${nm}</OrgnlMsgNmId>${o.groupStatus ? `<GrpSts>${o.groupStatus}</GrpSts>` : ''}${reason(o.groupReason)}</OrgnlGrpInfAndSts>`,
    ...batches,
    '</CstmrPmtStsRpt></Document>\n',
  ].join('');
}
