import type { Deps } from '../deps';
import { uuidv7 } from '../domain/ids';
import { parseStatement, type Statement } from '../domain/sepa/camt';
import { applyActions, type FilePayoutRef, planStatement, planStatusReport, type UnmatchedLine } from '../domain/sepa/match';
import { parseStatusReport, type StatusReport } from '../domain/sepa/pain002';
import type { PayoutKind, PayoutState } from '../domain/sepa/states';
import { XmlRefused } from '../domain/sepa/xml';
import { DuplicateKeyError, uniquely } from '../store/clients';
import { type Db, type Tx, Rollback, rollbackOn } from '../store/db';
import { activeItems, fileByMessageId, fileItems, importedReports, insertReport, insertStatusReport, setFileState } from '../store/payout-files';
import type { PayoutFileItemRow } from '../store/schema';
import { applyPayoutChange } from './payout-changes';

// What the bank sends back (docs/balance.md#statements): a camt.053 / camt.054 statement or
// a pain.002 status report, uploaded by a person. Read by the pure core (domain/sepa:
// DOCTYPE and entities refused, a size cap), matched against the environment's payouts in
// files, then applied in one database transaction: each report's key, its unmatched lines,
// and every change (one status change and one event each, the money back once on a return
// or a rejection). A report imported before is skipped whole, and every change is a
// transition that leaves a payout already there unchanged: the same statement twice changes
// nothing. A statement of another account or currency is refused whole, changing nothing.

type ImportDeps = Pick<Deps, 'outbox' | 'payouts' | 'now'>;

/** Statements and status reports up to this size (the core's own cap is larger). */
export const BANK_FILE_MAX_BYTES = 10 * 1024 * 1024;

export interface ImportedChange {
  object: PayoutKind;
  id: string;
  from: PayoutState;
  to: PayoutState;
}

export interface BankImport {
  kind: 'camt.053' | 'camt.054' | 'pain.002';
  reports: { key: string; duplicate: boolean }[];
  changes: ImportedChange[];
  /** Payouts a line named but could not move (a rejection of one already paid…): for a person. */
  refused: { object: PayoutKind; id: string; reason: string }[];
  unmatched: (Omit<UnmatchedLine, 'amount'> & { amount: number })[];
}

export type ImportResult = { ok: true; result: BankImport } | { ok: false; status: 'invalid' | 'refused' | 'conflict'; reason: string };

/** The payouts of files not cancelled, as matching reads them. */
const refsOf = (items: (PayoutFileItemRow & { status: PayoutState })[]): FilePayoutRef[] =>
  items.map((i) => ({ id: i.payout_id, kind: i.kind, endToEndId: i.end_to_end_id, paymentInfoId: i.payment_info_id, amount: BigInt(i.amount), state: i.status }));

/** On `db`: a keyed request's transaction (the import joins it), or the database. */
export async function importBankFile(deps: ImportDeps, db: Db, environmentId: string, file: { name: string; bytes: Uint8Array }): Promise<ImportResult> {
  const debtor = deps.payouts.forMode(true)?.files;
  if (!debtor) return { ok: false, status: 'refused', reason: 'Payouts are not paid by SEPA file here (PAYOUT_PROVIDER=sepa-file): there is nothing a statement could match' };
  const head = Buffer.from(file.bytes.subarray(0, 4096)).toString('utf8');
  const isStatusReport = /urn:iso:std:iso:20022:tech:xsd:pain\.002\./.test(head);
  let parsed: { statement: Statement } | { report: StatusReport };
  try {
    parsed = isStatusReport ? { report: parseStatusReport(file.bytes, BANK_FILE_MAX_BYTES) } : { statement: parseStatement(file.bytes, BANK_FILE_MAX_BYTES) };
  } catch (err) {
    // Whatever the reader could not take is the uploader's file at fault, never a 500.
    return { ok: false, status: 'invalid', reason: err instanceof XmlRefused ? err.message : 'the file is not a statement or status report this service can read' };
  }
  try {
    if ('report' in parsed) return await importStatusReport(deps, db, environmentId, parsed.report);
    return await importStatement(deps, db, environmentId, debtor.iban, file, parsed.statement);
  } catch (err) {
    if (err instanceof DuplicateKeyError) return { ok: false, status: 'conflict', reason: 'The same statement is being imported at this moment: import it again to see what it changed' };
    if (err instanceof Rollback) return err.result as ImportResult;
    throw err;
  }
}

const CHANGED_MEANWHILE: ImportResult = { ok: false, status: 'conflict', reason: 'A payout of this file changed while it was imported; nothing was changed: import it again' };

async function applyChanges(trx: Tx, deps: ImportDeps, items: FilePayoutRef[], actions: Parameters<typeof applyActions>[1], now: Date) {
  const { changes, refused } = applyActions(new Map(items.map((p) => [p.id, { kind: p.kind, state: p.state }])), actions);
  const kinds = new Map(items.map((p) => [p.id, p.kind]));
  for (const c of changes) {
    const kind = kinds.get(c.id)!;
    const reason = c.reason && c.to === 'returned' ? `returned by the bank (${c.reason})` : c.reason && c.to === 'failed' ? `rejected by the bank (${c.reason})` : null;
    if (!(await applyPayoutChange(trx, deps.outbox, { kind, id: c.id, from: c.from, to: c.to, moneyBack: c.moneyBack, reason }, now))) throw new Rollback(CHANGED_MEANWHILE);
  }
  return {
    changes: changes.map((c) => ({ object: kinds.get(c.id)!, id: c.id, from: c.from, to: c.to })),
    refused: refused.map((r) => ({ object: kinds.get(r.id)!, id: r.id, reason: r.reason })),
  };
}

async function importStatement(deps: ImportDeps, db: Db, environmentId: string, debtorIban: string, file: { name: string }, statement: Statement): Promise<ImportResult> {
  const keys = statement.reports.map((r) => `${statement.kind}:${r.iban}:${r.id}`);
  const items = refsOf(await activeItems(db, environmentId));
  const plan = planStatement(statement, { debtorIban, importedReports: await importedReports(db, environmentId, keys), payouts: items });
  if (!plan.ok) return { ok: false, status: 'refused', reason: `${plan.reason}; nothing was changed` };
  const now = deps.now();
  const at = now.toISOString();
  return uniquely(() =>
    rollbackOn(db, async (trx): Promise<ImportResult> => {
      for (const r of plan.reports.filter((x) => !x.duplicate)) {
        const reportId = uuidv7(now.getTime());
        const lines = plan.unmatched.filter((u) => u.report === r.key);
        await insertReport(
          trx,
          { id: reportId, environment_id: environmentId, report_key: r.key, kind: statement.kind, file_name: file.name, created_at: at },
          lines.map((u) => ({ id: uuidv7(now.getTime()), environment_id: environmentId, report_id: reportId, entry: u.entry + 1, reference: u.reference ?? null, direction: u.direction, amount: Number(u.amount), currency: 'EUR', why: u.why, created_at: at })),
        );
      }
      const applied = await applyChanges(trx, deps, items, plan.outcomes, now);
      // A file the bank booked any of can no longer be cancelled.
      const booked = new Set(applied.changes.filter((c) => c.to === 'paid').map((c) => items.find((i) => i.id === c.id)!.paymentInfoId.replace(/-\d+$/, '')));
      await bookFiles(trx, environmentId, booked, now);
      return { ok: true, result: { kind: statement.kind, reports: plan.reports, ...applied, unmatched: plan.unmatched.map((u) => ({ ...u, entry: u.entry + 1, amount: Number(u.amount) })) } };
    }),
  );
}

async function bookFiles(trx: Tx, environmentId: string, messageIds: Set<string>, now: Date) {
  for (const messageId of messageIds) {
    const f = await fileByMessageId(trx, environmentId, messageId);
    if (f && f.state === 'downloaded') await setFileState(trx, f.id, 'booked', now);
  }
}

async function importStatusReport(deps: ImportDeps, db: Db, environmentId: string, report: StatusReport): Promise<ImportResult> {
  const file = await fileByMessageId(db, environmentId, report.originalMessageId);
  if (!file) return { ok: false, status: 'refused', reason: `The status report answers file ${report.originalMessageId}, which is no payout file of yours; nothing was changed` };
  const items = refsOf(await fileItems(db, file.id));
  const plan = planStatusReport(report, { messageId: file.message_id, payouts: items });
  if (!plan.ok) return { ok: false, status: 'refused', reason: `${plan.reason}; nothing was changed` };
  const now = deps.now();
  return rollbackOn(db, async (trx): Promise<ImportResult> => {
    const rejected = plan.actions.reduce((n, a) => n + a.payoutIds.length, 0);
    await insertStatusReport(trx, { id: uuidv7(now.getTime()), environment_id: environmentId, file_id: file.id, message_id: report.messageId, rejected_count: rejected, created_at: now.toISOString() });
    const applied = await applyChanges(trx, deps, items, plan.actions, now);
    return { ok: true, result: { kind: 'pain.002', reports: [{ key: `pain.002:${report.messageId}`, duplicate: false }], ...applied, unmatched: [] } };
  });
}
