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
import type { TestCardBehaviour } from '../domain/test-cards';
import type { Gateway } from './gateway';
import { pricingOf } from '../store/balance';
import { Rollback, rollbackOn, type Tx } from '../store/db';
import {
  disputableSales,
  getDispute,
  lockDispute,
  overdueDisputes,
  markProcessorSync,
  type NewDisputeFile,
  saveEvidence,
  type StoredDispute,
  submittedDisputes,
} from '../store/disputes';
import { moveDispute, openDispute } from './dispute-records';

// Disputes' use cases: the merchant's answers (evidence, submit, accept), the deadline, and
// the sandbox bank, which opens a dispute a few seconds after a disputing test card is
// captured and decides submitted evidence by its words (docs/disputes.md). A connected
// processor's disputes arrive through its events (processor-disputes.ts): the merchant
// answers them here alike, and each answer is marked for the processor-disputes job to send.

type DisputeDeps = Pick<Deps, 'database' | 'now' | 'outbox' | 'config'>;

/** What the sandbox bank opens for a capture of each dispute test card. */
const SANDBOX_DISPUTES: Partial<Record<TestCardBehaviour, { reason: DisputeReason; status: DisputeStatus }>> = {
  disputedFraudulent: { reason: 'fraudulent', status: 'needs_response' },
  disputedNotReceived: { reason: 'product_not_received', status: 'needs_response' },
  disputeInquiry: { reason: 'general', status: 'warning_needs_response' },
};

/** A sandbox gateway's dispute cards, by their last four digits: what each opens. */
function disputeCards(g: Gateway): Map<string, { reason: DisputeReason; status: DisputeStatus }> {
  const cards = g.sandbox ? (g.testData?.cards ?? []) : [];
  return new Map(cards.flatMap((c) => (SANDBOX_DISPUTES[c.behaviour] ? [[normalizeCardNumber(c.number).slice(-4), SANDBOX_DISPUTES[c.behaviour]!] as const] : [])));
}

/**
 * One round of the sandbox bank: disputes the captures of the dispute test cards the
 * sandbox gateways declare, older than the delay.
 */
export async function openSandboxDisputes(deps: DisputeDeps & Pick<Deps, 'gateways'>, limit: number): Promise<number> {
  let opened = 0;
  for (const gateway of deps.gateways.all) {
    const cards = disputeCards(gateway);
    if (cards.size) opened += await openDisputesOf(deps, { gatewayId: gateway.id, byProcessor: gateway.settlement === 'processor' }, cards, limit);
  }
  return opened;
}

/**
 * The sandbox bank's disputes of one gateway's captures. `byProcessor`: the merchant's own
 * processor settles its money (settlement.ts), so the processor takes the disputed amount
 * and its fee from the merchant there: nothing moves in our balance and no fee of ours.
 */
async function openDisputesOf(
  deps: DisputeDeps,
  { gatewayId, byProcessor }: { gatewayId: string; byProcessor: boolean },
  cards: ReturnType<typeof disputeCards>,
  limit: number,
): Promise<number> {
  const db = deps.database.db;
  const now = deps.now();
  const before = new Date(now.getTime() - deps.config.sandboxDisputeDelayMs);
  const sales = await disputableSales(db, { gatewayId, last4s: [...cards.keys()], before, limit });
  let opened = 0;
  for (const sale of sales) {
    const { reason, status } = cards.get(sale.card_last4!)!;
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
      settledByProcessor: byProcessor,
      dueBy: new Date(now.getTime() + EVIDENCE_WINDOW_MS),
      now,
    });
    if (made) opened++;
  }
  return opened;
}

export type DisputeOutcome = { kind: 'done'; dispute: StoredDispute } | { kind: 'conflict'; status: DisputeStatus };

/**
 * Runs one change of a dispute in one transaction, judged on its row as it is once locked
 * (its status, its evidence, its files) and dated after the lock: a change under way (an
 * upload, a submit, the deadline) finishes first, and this one follows it or is refused
 * by the status it left. `change` answers false when the dispute does not take it, and
 * throws a Rollback to undo what it wrote.
 */
async function changeDispute(deps: DisputeDeps, id: string, change: (trx: Tx, d: StoredDispute, now: Date) => Promise<boolean>): Promise<DisputeOutcome> {
  const db = deps.database.db;
  const done = await rollbackOn<boolean, false>(db, async (trx) => change(trx, (await lockDispute(trx, id))!, deps.now()));
  const now = (await getDispute(db, null, id))!;
  return done ? { kind: 'done', dispute: now } : { kind: 'conflict', status: now.row.status };
}

/** A step of the merchant's (submit, accept), of the deadline's or of the bank's (which judges the evidence), once. */
function step(deps: DisputeDeps, id: string, s: DisputeStep | ((evidence: EvidenceText) => DisputeStep)): Promise<DisputeOutcome> {
  return changeDispute(deps, id, async (trx, d, now) => {
    const to = nextStatus(d.row.status, typeof s === 'function' ? s(d.evidence) : s, hasEvidence(d.evidence, d.files.length));
    if (!to) return false;
    const money = moneyOf(d.row.status, to);
    if (!(await moveDispute(trx, deps.outbox, { dispute: d.row, to, money: money === 'reversal' ? money : null, now }))) throw new Rollback(false);
    // The merchant's answer to a processor's dispute goes to the processor (processor-disputes.ts).
    if (d.row.processor_id && (s === 'submit' || s === 'accept')) await markProcessorSync(trx, d.row.id, s);
    return true;
  });
}

/** The merchant submits its evidence, or accepts the dispute (it is lost; an inquiry is closed). */
export const answerDispute = (deps: DisputeDeps, d: StoredDispute, action: 'submit' | 'accept') => step(deps, d.row.id, action);

/** Adds evidence while the dispute awaits it: text fields given replace those saved, files are added. */
export function addEvidence(
  deps: DisputeDeps,
  d: StoredDispute,
  text: EvidenceText,
  files: NewDisputeFile[],
): Promise<DisputeOutcome> {
  return changeDispute(deps, d.row.id, async (trx, current, now) => {
    if (!nextStatus(current.row.status, 'evidence')) return false;
    // A processor's dispute: staged there too (`submit: false`) by the processor-disputes job.
    const sync = current.row.processor_id ? ('evidence' as const) : undefined;
    if (!(await saveEvidence(trx, { dispute: current.row, evidence: { ...current.evidence, ...text }, files, now, sync }))) return false;
    await deps.outbox.emit(trx, 'dispute.updated', current.row.id, now);
    return true;
  });
}

/** One round of the deadline: saved evidence is submitted for the merchant, none loses the dispute. */
export async function closeOverdueDisputes(deps: DisputeDeps, limit: number): Promise<number> {
  const due = await overdueDisputes(deps.database.db, deps.now(), limit);
  let moved = 0;
  for (const d of due) {
    if ((await step(deps, d.id, 'deadline')).kind === 'done') moved++;
  }
  return moved;
}

/**
 * One round of the sandbox bank's reviews: evidence submitted longer ago than the review
 * time is decided, for the disputes of the sandbox gateways' sales.
 */
export async function decideSandboxDisputes(deps: DisputeDeps & Pick<Deps, 'gateways'>, limit: number): Promise<number> {
  const before = new Date(deps.now().getTime() - deps.config.sandboxDisputeReviewMs);
  let decided = 0;
  for (const gateway of deps.gateways.all.filter((g) => g.sandbox)) {
    for (const d of await submittedDisputes(deps.database.db, gateway.id, before, limit)) {
      if ((await step(deps, d.id, sandboxVerdict)).kind === 'done') decided++;
    }
  }
  return decided;
}
