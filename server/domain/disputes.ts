import { balanced, type Posting } from './ledger';

// Disputes, without storage: their reasons and statuses, the one table of what may happen
// to a dispute in each status, what each step moves on the ledger, and the sandbox's
// verdict. docs/disputes.md says the same to merchants.
//
//   needs_response ─submit─▶ under_review ─won─▶ won
//        │  └─deadline, evidence saved: submitted    └─lost─▶ lost
//        └─accept / deadline, no evidence─────────────────▶ lost
//   warning_needs_response ─submit─▶ warning_under_review ─decided─▶ warning_closed
//        └─accept / deadline──────────────────────────────────────▶ warning_closed
//
// An inquiry (`warning_*`) moves no money. A dispute takes its amount and the dispute fee
// from the merchant's balance when it opens, and gives the amount back if it is won; the
// fee is the platform's either way, as card networks charge it whatever the outcome.

export const DISPUTE_REASONS = [
  'fraudulent',
  'product_not_received',
  'duplicate',
  'subscription_canceled',
  'product_unacceptable',
  'credit_not_processed',
  'unrecognized',
  'general',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

export const DISPUTE_STATUSES = [
  'needs_response',
  'under_review',
  'won',
  'lost',
  'warning_needs_response',
  'warning_under_review',
  'warning_closed',
] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** The evidence's text fields, each optional. */
export const EVIDENCE_TEXT_FIELDS = [
  'uncategorized_text',
  'product_description',
  'customer_communication',
  'customer_name',
  'customer_email_address',
  'billing_address',
  'shipping_address',
  'shipping_carrier',
  'shipping_tracking_number',
  'shipping_date',
  'service_date',
  'refund_policy',
  'refund_refusal_explanation',
  'cancellation_policy',
  'cancellation_rebuttal',
  'duplicate_charge_explanation',
  'access_activity_log',
] as const;
export type EvidenceField = (typeof EVIDENCE_TEXT_FIELDS)[number];
/** The fields that are calendar dates (YYYY-MM-DD) rather than free text. */
export const EVIDENCE_DATE_FIELDS: readonly EvidenceField[] = ['shipping_date', 'service_date'];
export type EvidenceText = Partial<Record<EvidenceField, string>>;

/**
 * The evidence each reason asks for first: what overturns a dispute of that reason with the
 * card schemes (after the processors' published guidance per reason; Stripe's is the most
 * complete), "other evidence" last. Every other field is still accepted.
 */
const EVIDENCE_FOR_REASON: Record<DisputeReason, readonly EvidenceField[]> = {
  fraudulent: ['customer_name', 'customer_email_address', 'billing_address', 'shipping_address', 'shipping_tracking_number', 'access_activity_log', 'customer_communication'],
  product_not_received: ['shipping_carrier', 'shipping_tracking_number', 'shipping_date', 'shipping_address', 'service_date', 'customer_communication'],
  duplicate: ['duplicate_charge_explanation', 'refund_policy', 'customer_communication'],
  subscription_canceled: ['cancellation_policy', 'cancellation_rebuttal', 'service_date', 'customer_communication'],
  product_unacceptable: ['product_description', 'refund_policy', 'refund_refusal_explanation', 'customer_communication'],
  credit_not_processed: ['refund_policy', 'refund_refusal_explanation', 'customer_communication'],
  unrecognized: ['product_description', 'customer_name', 'customer_email_address', 'billing_address', 'access_activity_log'],
  general: ['product_description', 'customer_communication', 'refund_policy'],
};

/** The fields a dispute of `reason` asks for (then "other evidence"), and the rest in the table's order. */
export function evidenceFields(reason: DisputeReason): { asked: EvidenceField[]; other: EvidenceField[] } {
  const asked: EvidenceField[] = [...EVIDENCE_FOR_REASON[reason], 'uncategorized_text'];
  return { asked, other: EVIDENCE_TEXT_FIELDS.filter((f) => !asked.includes(f)) };
}

/** How long the merchant has to answer, from the dispute's opening. */
export const EVIDENCE_WINDOW_MS = 7 * 86_400_000;

/** What may happen to a dispute: the merchant's three actions, the deadline, the bank's decision. */
export type DisputeStep = 'evidence' | 'submit' | 'accept' | 'deadline' | 'won' | 'lost';

const isInquiry = (s: DisputeStatus) => s.startsWith('warning_');
const CLOSED_STATUSES: readonly DisputeStatus[] = ['won', 'lost', 'warning_closed'];
export const isClosed = (s: DisputeStatus) => CLOSED_STATUSES.includes(s);
/** The statuses in which the merchant can still act (evidence, submit, accept). */
export const AWAITING_RESPONSE: readonly DisputeStatus[] = ['needs_response', 'warning_needs_response'];

/**
 * The status after `step` from `status`, or null when the step is not allowed now. At the
 * deadline, saved evidence is submitted for the merchant (`hasEvidence`); none loses.
 */
export function nextStatus(status: DisputeStatus, step: DisputeStep, hasEvidence = false): DisputeStatus | null {
  const inquiry = isInquiry(status);
  switch (step) {
    case 'evidence':
      return AWAITING_RESPONSE.includes(status) ? status : null;
    case 'submit':
      return AWAITING_RESPONSE.includes(status) ? (inquiry ? 'warning_under_review' : 'under_review') : null;
    case 'accept':
      return AWAITING_RESPONSE.includes(status) ? (inquiry ? 'warning_closed' : 'lost') : null;
    case 'deadline':
      if (!AWAITING_RESPONSE.includes(status)) return null;
      if (hasEvidence) return inquiry ? 'warning_under_review' : 'under_review';
      return inquiry ? 'warning_closed' : 'lost';
    case 'won':
    case 'lost':
      if (status === 'warning_under_review') return 'warning_closed';
      return status === 'under_review' ? step : null;
  }
}

/** What a change of status moves on the merchant's balance. */
export type DisputeMoney = 'debit' | 'reversal' | null;

/** The money of opening a dispute in `status` (an inquiry: none), or of moving `from` → `to`. */
export function moneyOf(from: DisputeStatus | null, to: DisputeStatus): DisputeMoney {
  if (from === null) return isInquiry(to) ? null : 'debit';
  return to === 'won' && from !== 'won' ? 'reversal' : null;
}

/**
 * The ledger movement of a dispute's balance transaction. The debit sends the disputed
 * amount back out to the card (`card_payments`, the outside world) and takes the fee, both
 * from the merchant; the reversal brings the amount back. Each adds up to zero.
 */
export function disputePostings(money: 'debit' | 'reversal', sale: string, amount: bigint, fee: bigint): Posting[] {
  const counterpart = { with_sale: sale };
  const sign = money === 'debit' ? -1n : 1n;
  return balanced([
    { account: { system: 'card_payments' }, amount: -sign * amount, counterpart },
    { account: { system: 'merchant' }, amount: sign * amount - (money === 'debit' ? fee : 0n), counterpart },
    { account: { system: 'fees' }, amount: money === 'debit' ? fee : 0n, counterpart },
  ]);
}

/** The balance transaction of a movement: `amount` and `fee` as the merchant sees them. */
export function disputeBalance(money: 'debit' | 'reversal', amount: bigint, fee: bigint) {
  return money === 'debit'
    ? { type: 'dispute' as const, amount: -amount, fee, net: -amount - fee }
    : { type: 'dispute_reversal' as const, amount, fee: 0n, net: amount };
}

/** A processor's dispute status as ours (the same words as Stripe's); null for one we do not follow (`prevented`, an appeal's). */
export const disputeStatusFrom = (status: string): DisputeStatus | null => ((DISPUTE_STATUSES as readonly string[]).includes(status) ? (status as DisputeStatus) : null);

/** A processor's dispute reason as ours: one of ours by the same word, else `general`. */
export const disputeReasonFrom = (reason: string): DisputeReason => ((DISPUTE_REASONS as readonly string[]).includes(reason) ? (reason as DisputeReason) : 'general');

/**
 * The money of a processor's dispute moving `from` → `to` as the processor says (it decides,
 * not our steps): an inquiry turned into a dispute takes the amount, a dispute won gives it
 * back. A processor's dispute first seen already won holds nothing (`from` null).
 */
export function followedMoney(from: DisputeStatus | null, to: DisputeStatus): DisputeMoney {
  const held = (s: DisputeStatus) => !isInquiry(s) && s !== 'won';
  if (from === null) return held(to) ? 'debit' : null;
  if (held(to) && !held(from)) return from === 'won' ? null : 'debit';
  return held(from) && to === 'won' ? 'reversal' : null;
}

/** The sandbox bank's decision on submitted evidence: `winning_evidence` in any text field wins. */
export function sandboxVerdict(evidence: EvidenceText): 'won' | 'lost' {
  return Object.values(evidence).some((v) => v?.includes('winning_evidence')) ? 'won' : 'lost';
}

/** Whether there is anything to submit: a text field or a file. */
export const hasEvidence = (evidence: EvidenceText, files: number) => files > 0 || Object.values(evidence).some((v) => !!v && v.trim() !== '');
