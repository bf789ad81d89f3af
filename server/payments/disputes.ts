import {
  type DisputeReason,
  type DisputeStatus,
  type DisputeStep,
  EVIDENCE_WINDOW_MS,
  type EvidenceText,
  hasEvidence,
  moneyOf,
  nextStatus,
  sandboxVerdict,
} from '../domain/disputes';
import { normalizeCardNumber } from '../../widget/fields/card';
import type { Deps } from '../deps';
import { pricingOf } from '../store/balance';
import { inTransaction } from '../store/db';
import {
  disputableSales,
  getDispute,
  overdueDisputes,
  saveEvidence,
  type StoredDispute,
  submittedDisputes,
} from '../store/disputes';
import type { DisputeFileRow, DisputeRow } from '../store/schema';
import { moveDispute, openDispute } from './dispute-records';
import { SANDBOX_CARD_ID, TEST_CARDS } from './sandbox';

// Disputes' use cases: the merchant's answers (evidence, submit, accept), the deadline, and
// the sandbox bank, which opens a dispute a few seconds after a disputing test card is
// captured and decides submitted evidence by its words (docs/disputes.md). A real
// processor's disputes would arrive through its notifications instead (not built yet).

type DisputeDeps = Pick<Deps, 'database' | 'now' | 'outbox' | 'config'>;

/** The sandbox bank's test cards, by their last four digits: what each opens. */
const SANDBOX_DISPUTES: Record<string, { reason: DisputeReason; status: DisputeStatus }> = Object.fromEntries(
  (
    [
      [TEST_CARDS.disputedFraudulent, 'fraudulent', 'needs_response'],
      [TEST_CARDS.disputedNotReceived, 'product_not_received', 'needs_response'],
      [TEST_CARDS.disputeInquiry, 'general', 'warning_needs_response'],
    ] as const
  ).map(([card, reason, status]) => [normalizeCardNumber(card).slice(-4), { reason, status }]),
);

/** One round of the sandbox bank: disputes the captures of its test cards older than the delay. */
export async function openSandboxDisputes(deps: DisputeDeps, limit: number): Promise<number> {
  const db = deps.database.db;
  const now = deps.now();
  const before = new Date(now.getTime() - deps.config.sandboxDisputeDelayMs);
  const sales = await disputableSales(db, { gatewayId: SANDBOX_CARD_ID, last4s: Object.keys(SANDBOX_DISPUTES), before, limit });
  let opened = 0;
  for (const sale of sales) {
    const { reason, status } = SANDBOX_DISPUTES[sale.card_last4!]!;
    // The bank takes back what is captured and neither refunded nor being refunded.
    const amount = sale.captured - sale.refunded - sale.refunding - sale.disputed;
    const fee = Number((await pricingOf(db, sale.environment_id)).disputeFixed);
    const money = moneyOf(null, status);
    const made = await openDispute(db, deps.outbox, {
      sale,
      amount,
      fee,
      reason,
      status,
      money: money === 'debit' ? money : null,
      dueBy: new Date(now.getTime() + EVIDENCE_WINDOW_MS),
      now,
    });
    if (made) opened++;
  }
  return opened;
}

export type DisputeOutcome = { kind: 'done'; dispute: StoredDispute } | { kind: 'conflict'; status: DisputeStatus };

/** A step of the merchant's (submit, accept) or of the bank's, once, from the status it was read in. */
async function step(deps: DisputeDeps, d: DisputeRow, s: DisputeStep, evidenceFiles = 0): Promise<DisputeOutcome> {
  const evidence = JSON.parse(d.evidence) as EvidenceText;
  const to = nextStatus(d.status, s, hasEvidence(evidence, evidenceFiles));
  if (!to) return { kind: 'conflict', status: d.status };
  const money = moneyOf(d.status, to);
  const moved = await moveDispute(deps.database.db, deps.outbox, { dispute: d, to, money: money === 'reversal' ? money : null, now: deps.now() });
  const now = (await getDispute(deps.database.db, null, d.id))!;
  return moved ? { kind: 'done', dispute: now } : { kind: 'conflict', status: now.row.status };
}

/** The merchant submits its evidence, or accepts the dispute (it is lost; an inquiry is closed). */
export const answerDispute = (deps: DisputeDeps, d: StoredDispute, action: 'submit' | 'accept') => step(deps, d.row, action, d.files.length);

/** Adds evidence while the dispute awaits it: text fields given replace those saved, files are added. */
export async function addEvidence(
  deps: DisputeDeps,
  d: StoredDispute,
  text: EvidenceText,
  files: Omit<DisputeFileRow, 'id' | 'dispute_id' | 'created_at'>[],
): Promise<DisputeOutcome> {
  if (!nextStatus(d.row.status, 'evidence')) return { kind: 'conflict', status: d.row.status };
  const at = deps.now();
  const saved = await inTransaction(deps.database.db, async (trx) => {
    if (!(await saveEvidence(trx, { dispute: d.row, evidence: { ...d.evidence, ...text }, files, now: at }))) return false;
    await deps.outbox.emit(trx, 'dispute.updated', d.row.id, at);
    return true;
  });
  const now = (await getDispute(deps.database.db, null, d.row.id))!;
  return saved ? { kind: 'done', dispute: now } : { kind: 'conflict', status: now.row.status };
}

/** One round of the deadline: saved evidence is submitted for the merchant, none loses the dispute. */
export async function closeOverdueDisputes(deps: DisputeDeps, limit: number): Promise<number> {
  const due = await overdueDisputes(deps.database.db, deps.now(), limit);
  let moved = 0;
  for (const d of due) {
    const files = (await getDispute(deps.database.db, null, d.id))!.files.length;
    if ((await step(deps, d, 'deadline', files)).kind === 'done') moved++;
  }
  return moved;
}

/** One round of the sandbox bank's reviews: evidence submitted longer ago than the review time is decided. */
export async function decideSandboxDisputes(deps: DisputeDeps, limit: number): Promise<number> {
  const before = new Date(deps.now().getTime() - deps.config.sandboxDisputeReviewMs);
  const due = await submittedDisputes(deps.database.db, SANDBOX_CARD_ID, before, limit);
  let decided = 0;
  for (const d of due) {
    if ((await step(deps, d, sandboxVerdict(JSON.parse(d.evidence) as EvidenceText))).kind === 'done') decided++;
  }
  return decided;
}
