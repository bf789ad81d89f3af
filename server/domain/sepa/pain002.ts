import { z } from 'zod';
import { at, childrenOf, readXml, textAt, type XmlElement, XmlRefused } from './xml';

// Payment status reports, ISO 20022 pain.002 (docs/balance.md#status-reports): the bank's
// answer to a pain.001 file before it executes it. pain.002.001.03 answers .03 files,
// pain.002.001.10 answers .09 files. A rejection (RJCT) can name the whole file (group
// status), one batch, or one transaction; each rejected payout goes to `failed` (states.ts)
// and its money back. Read with the safe reader (xml.ts), checked with zod.

const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:pain\.002\.001\.(03|10)$/;

const Code = z.string().regex(/^[A-Z0-9]{1,35}$/);
const Id = z.string().min(1).max(35);

const StatusReport = z.object({
  messageId: Id,
  originalMessageId: Id,
  groupStatus: Code.optional(),
  groupReason: Code.optional(),
  batches: z.array(
    z.object({
      paymentInfoId: Id,
      status: Code.optional(),
      reason: Code.optional(),
      transactions: z.array(z.object({ endToEndId: Id, status: Code.optional(), reason: Code.optional() })),
    }),
  ),
});
export type StatusReport = z.output<typeof StatusReport>;

const reasonOf = (el: XmlElement | undefined) => textAt(el, 'StsRsnInf', 'Rsn', 'Cd');

function batchOf(b: XmlElement) {
  return {
    paymentInfoId: textAt(b, 'OrgnlPmtInfId'),
    status: textAt(b, 'PmtInfSts'),
    reason: reasonOf(b),
    transactions: childrenOf(b, 'TxInfAndSts').map((t) => ({ endToEndId: textAt(t, 'OrgnlEndToEndId'), status: textAt(t, 'TxSts'), reason: reasonOf(t) })),
  };
}

/** A pain.002 status report (.001.03 or .001.10); XmlRefused for anything else. */
export function parseStatusReport(input: Uint8Array | string, maxBytes?: number): StatusReport {
  const root = readXml(input, maxBytes);
  if (root.name !== 'Document' || !NAMESPACE.test(root.ns)) throw new XmlRefused('not a pain.002 status report of version .001.03 or .001.10');
  const body = at(root, 'CstmrPmtStsRpt');
  const group = at(body, 'OrgnlGrpInfAndSts');
  const parsed = StatusReport.safeParse({
    messageId: textAt(body, 'GrpHdr', 'MsgId'),
    originalMessageId: textAt(group, 'OrgnlMsgId'),
    groupStatus: textAt(group, 'GrpSts'),
    groupReason: reasonOf(group),
    batches: childrenOf(body, 'OrgnlPmtInfAndSts').map(batchOf),
  });
  if (!parsed.success) throw new XmlRefused(`the status report is incomplete: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  return parsed.data;
}

export interface Rejection {
  endToEndId: string;
  /** The ISO 20022 status reason (AC01, AM04, …), the narrowest the report gives. */
  reason: string | null;
}

/**
 * The transfers of a file that `report` rejects, by EndToEndId: every one of them when the
 * whole file is rejected, those of a rejected batch, and each rejected transaction. A
 * report about another file rejects nothing (the caller refuses it: `report.originalMessageId`).
 */
export function rejectedTransfers(report: StatusReport, file: { messageId: string; batches: readonly { paymentInfoId: string; endToEndIds: readonly string[] }[] }): Rejection[] {
  if (report.originalMessageId !== file.messageId) return [];
  const out = new Map<string, string | null>();
  const reject = (id: string, reason: string | undefined) => out.set(id, reason ?? out.get(id) ?? null);
  for (const b of file.batches) {
    const reported = report.batches.find((r) => r.paymentInfoId === b.paymentInfoId);
    const whole = report.groupStatus === 'RJCT' ? report.groupReason : reported?.status === 'RJCT' ? reported.reason : undefined;
    const wholeRejected = report.groupStatus === 'RJCT' || reported?.status === 'RJCT';
    for (const id of b.endToEndIds) {
      const tx = reported?.transactions.find((t) => t.endToEndId === id);
      if (tx?.status === 'RJCT') reject(id, tx.reason ?? whole);
      else if (wholeRejected) reject(id, whole);
    }
  }
  return [...out].map(([endToEndId, reason]) => ({ endToEndId, reason }));
}
