import { reportKey, type Statement, type StatementEntry, type StatementReport } from './camt';
import { rejectedTransfers, type StatusReport } from './pain002';
import { type PayoutAction, type PayoutKind, type PayoutState, transition } from './states';
import { SEPA_CURRENCY } from './text';

// Matching a statement's lines to our payouts (docs/balance.md#statements), as pure
// functions: the wiring reads the payouts, plans, then applies the plan's transitions in
// one database transaction, each a conditional update from the state the plan saw.
//
// - A booked debit names its transfers by EndToEndId (BtchBookg=false asks the bank to book
//   each one): each one whose amount agrees is paid.
// - A bank that booked the batch as one debit names it by PmtInfId: when the debit equals
//   the batch's total (and count, when given), every payout of the batch is paid.
// - A booked credit that is a return (a return reason, a reversal, or the bank transaction
//   code …/RRTN) of a transfer of ours: that payout is returned.
// - Anything else is listed as unmatched, for a person: a line from another file (a
//   PmtInfId that is not the payout's current file's), an amount that differs, money that
//   is not ours.
// - A report already imported (its key, camt.ts reportKey) is skipped whole; and every
//   change is a transition of states.ts, which leaves a payout already there unchanged: so
//   importing a statement twice, or a camt.054 then the camt.053 of the same day, pays once.

/** A payout in a file, as matching needs it. */
export interface FilePayoutRef {
  id: string;
  kind: PayoutKind;
  endToEndId: string;
  /** The PmtInfId of the file it is in now. */
  paymentInfoId: string;
  /** Cents. */
  amount: bigint;
  state: PayoutState;
}

export interface ImportContext {
  /** The platform's account the files are paid from (SEPA_DEBTOR_IBAN). */
  debtorIban: string;
  /** Keys of the reports imported before. */
  importedReports: ReadonlySet<string>;
  payouts: readonly FilePayoutRef[];
}

export interface LineOutcome {
  action: Extract<PayoutAction, 'book' | 'return'>;
  payoutIds: string[];
  /** The return reason code, for a return. */
  reason: string | null;
  report: string;
  entry: number;
}

export interface UnmatchedLine {
  report: string;
  entry: number;
  reference?: string;
  direction: 'CRDT' | 'DBIT';
  /** Cents. */
  amount: bigint;
  why: string;
}

export type StatementPlan =
  | { ok: false; reason: string }
  | { ok: true; reports: { key: string; duplicate: boolean }[]; outcomes: LineOutcome[]; unmatched: UnmatchedLine[] };

/** Why a statement is not one of the platform's euro account, or null when it is. */
function statementRefusal(statement: Statement, debtorIban: string): string | null {
  for (const r of statement.reports) {
    if (r.iban !== debtorIban) return `the statement is of account ${r.iban}, not of the payout account`;
    if (r.currency !== undefined && r.currency !== SEPA_CURRENCY) return `the statement's account is in ${r.currency}, not ${SEPA_CURRENCY}`;
    const other = r.entries.find((e) => e.currency !== SEPA_CURRENCY);
    if (other) return `entry ${other.index + 1} is in ${other.currency}: payout files pay ${SEPA_CURRENCY} only`;
  }
  return null;
}

const isReturn = (e: StatementEntry) =>
  e.direction === 'CRDT' && (e.reversal || e.transactions.some((t) => t.returnReason) || /\/RRTN$/.test(e.bankTransactionCode ?? ''));

type Matched = { outcome: Omit<LineOutcome, 'report' | 'entry'> } | { why: string };

/** The payouts one transaction line names by EndToEndId, with its amount checked. */
function byEndToEnd(e: StatementEntry, payouts: readonly FilePayoutRef[], action: LineOutcome['action']): Matched | null {
  const named = e.transactions.filter((t) => t.endToEndId !== undefined);
  if (!named.length) return null;
  const ids: string[] = [];
  for (const t of named) {
    const p = payouts.find((q) => q.endToEndId === t.endToEndId);
    if (!p) return { why: `EndToEndId ${t.endToEndId} is not a payout in a file` };
    if (t.paymentInfoId !== undefined && t.paymentInfoId !== p.paymentInfoId) return { why: `EndToEndId ${t.endToEndId} is from file batch ${t.paymentInfoId}, not the payout's current file` };
    const amount = t.amount ?? (named.length === 1 ? e.amount : undefined);
    if (amount !== p.amount) return { why: `the amount of EndToEndId ${t.endToEndId} differs from the payout's` };
    ids.push(p.id);
  }
  const reason = e.transactions.find((t) => t.returnReason)?.returnReason ?? null;
  return { outcome: { action, payoutIds: ids, reason: action === 'return' ? reason : null } };
}

/** The payouts of a batch booked as one debit, by PmtInfId and total. */
function byBatch(e: StatementEntry, payouts: readonly FilePayoutRef[]): Matched | null {
  const pmtInfId = e.batch?.paymentInfoId ?? e.transactions.find((t) => t.paymentInfoId)?.paymentInfoId;
  if (!pmtInfId) return null;
  const batch = payouts.filter((p) => p.paymentInfoId === pmtInfId);
  if (!batch.length) return { why: `PmtInfId ${pmtInfId} is not a batch of a current file` };
  const total = batch.reduce((sum, p) => sum + p.amount, 0n);
  if (e.amount !== total || (e.batch?.total !== undefined && e.batch.total !== total)) return { why: `the debit differs from the total of batch ${pmtInfId}` };
  if (e.batch?.count !== undefined && e.batch.count !== batch.length) return { why: `the debit counts ${e.batch.count} transfers, batch ${pmtInfId} has ${batch.length}` };
  return { outcome: { action: 'book', payoutIds: batch.map((p) => p.id), reason: null } };
}

function matchEntry(e: StatementEntry, payouts: readonly FilePayoutRef[]): Matched {
  if (e.direction === 'DBIT' && !e.reversal) return byEndToEnd(e, payouts, 'book') ?? byBatch(e, payouts) ?? { why: 'a debit that names no payout of ours' };
  if (isReturn(e)) return byEndToEnd(e, payouts, 'return') ?? { why: 'a return that names no payout of ours' };
  return { why: e.direction === 'CRDT' ? 'a credit that is not a return of a payout' : 'a reversed debit' };
}

function planReport(r: StatementReport, key: string, payouts: readonly FilePayoutRef[]) {
  const outcomes: LineOutcome[] = [];
  const unmatched: UnmatchedLine[] = [];
  // Only booked lines move money; pending and information lines are for a later statement.
  for (const e of r.entries.filter((x) => x.status === 'BOOK')) {
    const m = matchEntry(e, payouts);
    if ('outcome' in m) outcomes.push({ ...m.outcome, report: key, entry: e.index });
    else unmatched.push({ report: key, entry: e.index, reference: e.reference, direction: e.direction, amount: e.amount, why: m.why });
  }
  return { outcomes, unmatched };
}

/** What importing `statement` does: refused whole, or the outcomes and unmatched lines of each report not seen before. */
export function planStatement(statement: Statement, ctx: ImportContext): StatementPlan {
  const refusal = statementRefusal(statement, ctx.debtorIban);
  if (refusal) return { ok: false, reason: refusal };
  const reports = statement.reports.map((r) => ({ r, key: reportKey(statement.kind, r) }));
  const fresh = reports.filter(({ key }) => !ctx.importedReports.has(key));
  const planned = fresh.map(({ r, key }) => planReport(r, key, ctx.payouts));
  return {
    ok: true,
    reports: reports.map(({ key }) => ({ key, duplicate: ctx.importedReports.has(key) })),
    // Debits first: a statement holding a transfer and its return books it, then returns it.
    outcomes: planned.flatMap((p) => p.outcomes).sort((a, b) => (a.action === b.action ? 0 : a.action === 'book' ? -1 : 1)),
    unmatched: planned.flatMap((p) => p.unmatched),
  };
}

export interface PayoutChange {
  id: string;
  from: PayoutState;
  to: PayoutState;
  event: string;
  moneyBack: boolean;
  reason: string | null;
}

/**
 * The changes `actions` make to `payouts` (id → kind and state), in order, each through
 * states.ts: the list of status changes and events to write, and the refusals (a
 * contradiction for a person: a rejection of a payout already paid, say). A return of a
 * payout still in transit books it first: the money left before it came back.
 */
export function applyActions(
  payouts: ReadonlyMap<string, { kind: PayoutKind; state: PayoutState }>,
  actions: readonly { action: PayoutAction; payoutIds: readonly string[]; reason: string | null }[],
): { changes: PayoutChange[]; refused: { id: string; reason: string }[] } {
  const states = new Map([...payouts].map(([id, p]) => [id, p.state]));
  const changes: PayoutChange[] = [];
  const refused: { id: string; reason: string }[] = [];
  const step = (id: string, kind: PayoutKind, action: PayoutAction, reason: string | null) => {
    const t = transition(kind, states.get(id)!, action);
    if (t.kind === 'changed') {
      changes.push({ id, from: t.from, to: t.to, event: t.event, moneyBack: t.moneyBack, reason });
      states.set(id, t.to);
    } else if (t.kind === 'refused') refused.push({ id, reason: t.reason });
  };
  for (const a of actions) {
    for (const id of a.payoutIds) {
      const p = payouts.get(id);
      if (!p) throw new RangeError(`unknown payout ${id}`);
      if (a.action === 'return' && states.get(id) === 'in_transit') step(id, p.kind, 'book', null);
      step(id, p.kind, a.action, a.reason);
    }
  }
  return { changes, refused };
}

/**
 * The rejections of a pain.002 `report` as actions on the payouts of `file`; refused when
 * the report is about another file.
 */
export function planStatusReport(
  report: StatusReport,
  file: { messageId: string; payouts: readonly FilePayoutRef[] },
): { ok: false; reason: string } | { ok: true; actions: { action: 'reject'; payoutIds: string[]; reason: string | null }[] } {
  if (report.originalMessageId !== file.messageId) return { ok: false, reason: `the report answers file ${report.originalMessageId}, not ${file.messageId}` };
  const batches = [...new Set(file.payouts.map((p) => p.paymentInfoId))].map((paymentInfoId) => ({
    paymentInfoId,
    endToEndIds: file.payouts.filter((p) => p.paymentInfoId === paymentInfoId).map((p) => p.endToEndId),
  }));
  const actions = rejectedTransfers(report, { messageId: file.messageId, batches }).map((r) => ({
    action: 'reject' as const,
    payoutIds: [file.payouts.find((p) => p.endToEndId === r.endToEndId)!.id],
    reason: r.reason,
  }));
  return { ok: true, actions };
}
