import { z } from 'zod';
import { findCurrency } from '../currencies';
import { textToUnits } from './text';
import { at, childrenOf, readXml, textAt, type XmlElement, XmlRefused } from './xml';

// Bank statements, ISO 20022 camt.053 (the end-of-day statement) and camt.054 (a debit or
// credit notification), versions .001.02 and .001.08 (docs/balance.md#statements): the
// bank's word that a transfer of ours was booked, or came back. Read with the safe reader
// (xml.ts), then each entry checked with zod before anything uses it: amounts become
// integer minor units of their currency, exactly.
//
// What we keep of an entry is what matching needs (match.ts): its amount, direction,
// status, whether it is a reversal, the batch it books (PmtInfId, count, total) and each
// transaction's EndToEndId, PmtInfId, amount and return reason.

const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:(camt\.05[34])\.001\.(02|08)$/;

export type StatementKind = 'camt.053' | 'camt.054';

export interface StatementTransaction {
  endToEndId?: string;
  paymentInfoId?: string;
  messageId?: string;
  /** Minor units, when the bank gives the transaction's own amount. */
  amount?: bigint;
  /** ISO 20022 return reason (AC01, AC04, MD07, …) of a transfer that came back. */
  returnReason?: string;
}

export interface StatementEntry {
  /** Position of the entry in its report, from 0. */
  index: number;
  /** The bank's reference of the entry (AcctSvcrRef, else NtryRef). */
  reference?: string;
  amount: bigint;
  currency: string;
  direction: 'CRDT' | 'DBIT';
  reversal: boolean;
  /** BOOK, PDNG or INFO. */
  status: string;
  bookingDate?: string;
  /** Domain/family/sub-family, e.g. PMNT/ICDT/RRTN for a returned credit transfer. */
  bankTransactionCode?: string;
  batch?: { messageId?: string; paymentInfoId?: string; count?: number; total?: bigint };
  transactions: StatementTransaction[];
}

export interface StatementReport {
  /** Stmt/Id (camt.053) or Ntfctn/Id (camt.054): the bank's unique id of this report of the account. */
  id: string;
  iban: string;
  /** The account's currency, when the bank states it. */
  currency?: string;
  entries: StatementEntry[];
}

export interface Statement {
  kind: StatementKind;
  version: '02' | '08';
  messageId: string;
  reports: StatementReport[];
}

const Code = z.string().regex(/^[A-Z0-9]{1,35}$/);
const Currency = z.string().refine((c) => findCurrency(c) !== undefined, 'is not an ISO 4217 currency');
const Id = z.string().min(1).max(35);

/** `text` as minor units of `currency`, or a zod issue. */
function units(text: string | undefined, currency: string, ctx: z.RefinementCtx): bigint | undefined {
  if (text === undefined) return undefined;
  const n = textToUnits(text, findCurrency(currency)?.exponent ?? 2);
  if (n === null) ctx.addIssue({ code: 'custom', message: `"${text}" is not an amount in ${currency}` });
  return n ?? undefined;
}

const RawTransaction = z.object({
  endToEndId: Id.optional(),
  paymentInfoId: Id.optional(),
  messageId: Id.optional(),
  amount: z.string().optional(),
  currency: Currency.optional(),
  returnReason: Code.optional(),
});

const RawEntry = z
  .object({
    reference: z.string().max(35).optional(),
    amount: z.string(),
    currency: Currency,
    direction: z.enum(['CRDT', 'DBIT']),
    reversal: z.enum(['true', 'false', '1', '0']).optional(),
    status: Code,
    bookingDate: z.string().optional(),
    bankTransactionCode: z.string().optional(),
    batch: z.object({ messageId: Id.optional(), paymentInfoId: Id.optional(), count: z.string().regex(/^\d{1,15}$/).optional(), total: z.string().optional() }).optional(),
    transactions: z.array(RawTransaction),
  })
  .transform((e, ctx) => ({
    reference: e.reference,
    amount: units(e.amount, e.currency, ctx) ?? 0n,
    currency: e.currency,
    direction: e.direction,
    reversal: e.reversal === 'true' || e.reversal === '1',
    status: e.status,
    bookingDate: e.bookingDate,
    bankTransactionCode: e.bankTransactionCode,
    batch: e.batch && { ...e.batch, count: e.batch.count === undefined ? undefined : Number(e.batch.count), total: units(e.batch.total, e.currency, ctx) },
    transactions: e.transactions.map(({ amount, currency, ...t }) => ({ ...t, amount: units(amount, currency ?? e.currency, ctx) })),
  }));

/** An id as a bank writes it; NOTPROVIDED is the EPC's word for none. */
const idAt = (el: XmlElement, ...path: string[]) => {
  const id = textAt(el, ...path);
  return id === 'NOTPROVIDED' ? undefined : id;
};

/** The strings of one TxDtls, in either version, for RawTransaction to check. */
function rawTransaction(tx: XmlElement): Record<keyof z.input<typeof RawTransaction>, string | undefined> {
  // .08 gives the amount on TxDtls itself; .02 (and .08 too, at times) in AmtDtls.
  const amt = at(tx, 'Amt') ?? at(tx, 'AmtDtls', 'TxAmt', 'Amt') ?? at(tx, 'AmtDtls', 'InstdAmt', 'Amt');
  return {
    endToEndId: idAt(tx, 'Refs', 'EndToEndId'),
    paymentInfoId: idAt(tx, 'Refs', 'PmtInfId'),
    messageId: idAt(tx, 'Refs', 'MsgId'),
    amount: amt?.text.trim(),
    currency: amt?.attrs.Ccy,
    returnReason: textAt(tx, 'RtrInf', 'Rsn', 'Cd'),
  };
}

/** The strings of one Ntry, in either version, for RawEntry to check. */
function rawEntry(ntry: XmlElement): Record<string, unknown> {
  const details = childrenOf(ntry, 'NtryDtls');
  const btch = details.map((d) => at(d, 'Btch')).find((b) => b !== undefined);
  const code = at(ntry, 'BkTxCd', 'Domn');
  return {
    reference: textAt(ntry, 'AcctSvcrRef') ?? textAt(ntry, 'NtryRef'),
    amount: at(ntry, 'Amt')?.text.trim() ?? '',
    currency: at(ntry, 'Amt')?.attrs.Ccy ?? '',
    direction: textAt(ntry, 'CdtDbtInd'),
    reversal: textAt(ntry, 'RvslInd'),
    // .08 wraps the status in a code; .02 writes it as the element's text.
    status: textAt(ntry, 'Sts', 'Cd') ?? textAt(ntry, 'Sts') ?? '',
    bookingDate: textAt(ntry, 'BookgDt', 'Dt') ?? textAt(ntry, 'BookgDt', 'DtTm'),
    bankTransactionCode: code && [textAt(code, 'Cd'), textAt(code, 'Fmly', 'Cd'), textAt(code, 'Fmly', 'SubFmlyCd')].join('/'),
    batch: btch && {
      messageId: idAt(btch, 'MsgId'),
      paymentInfoId: idAt(btch, 'PmtInfId'),
      count: textAt(btch, 'NbOfTxs'),
      total: textAt(btch, 'TtlAmt'),
    },
    transactions: details.flatMap((d) => childrenOf(d, 'TxDtls')).map(rawTransaction),
  };
}

function report(el: XmlElement, where: string): StatementReport {
  const id = textAt(el, 'Id');
  const iban = textAt(el, 'Acct', 'Id', 'IBAN');
  if (!id || !iban) throw new XmlRefused(`${where}: the report has no Id or no account IBAN`);
  const currency = textAt(el, 'Acct', 'Ccy');
  const entries = childrenOf(el, 'Ntry').map((ntry, index) => {
    const parsed = RawEntry.safeParse(rawEntry(ntry));
    if (!parsed.success) throw new XmlRefused(`${where}, entry ${index + 1}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'entry'} ${i.message}`).join('; ')}`);
    return { index, ...parsed.data };
  });
  return { id, iban, currency, entries };
}

/**
 * A camt.053 or camt.054 message (.001.02 or .001.08). Throws XmlRefused for anything else:
 * another message, a DOCTYPE or entity, a file over the size cap, an entry without an
 * amount, currency, direction or status.
 */
export function parseStatement(input: Uint8Array | string, maxBytes?: number): Statement {
  const root = readXml(input, maxBytes);
  const m = NAMESPACE.exec(root.ns);
  if (root.name !== 'Document' || !m) throw new XmlRefused('not a camt.053 or camt.054 message of version .001.02 or .001.08');
  const kind = m[1] as StatementKind;
  const body = at(root, kind === 'camt.053' ? 'BkToCstmrStmt' : 'BkToCstmrDbtCdtNtfctn');
  const messageId = textAt(body, 'GrpHdr', 'MsgId');
  if (!body || !messageId) throw new XmlRefused(`the ${kind} message has no group header`);
  const reports = childrenOf(body, kind === 'camt.053' ? 'Stmt' : 'Ntfctn').map((r, i) => report(r, `report ${i + 1}`));
  if (!reports.length) throw new XmlRefused(`the ${kind} message holds no report`);
  return { kind, version: m[2] as '02' | '08', messageId, reports };
}

/**
 * The idempotency key of a report: the message kind, the account and the bank's id of the
 * report (Stmt/Id or Ntfctn/Id, unique per account by the standard). The same report
 * uploaded again, or inside another message, has the same key.
 */
export function reportKey(kind: StatementKind, r: Pick<StatementReport, 'iban' | 'id'>): string {
  return `${kind}:${r.iban}:${r.id}`;
}
