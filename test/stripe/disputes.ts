import { type Books, expand } from './books';
import { invalid, noSuch } from './errors';
import { dispute, type StripeObject } from './objects';
import type { Params } from './params';

// Disputes of a captured charge. The cardholder's bank opens one (`openDispute`, a test
// hook); the account answers with evidence (`POST /v1/disputes/{id}`): staged with
// `submit=false`, sent to the bank with `submit=true` (the default, as Stripe's), or gives up
// (`POST /v1/disputes/{id}/close`); the bank decides (`decideDispute`, a test hook). Strict
// where Stripe is: evidence is taken only while the dispute awaits a response, a file field
// must name a file uploaded for `dispute_evidence`, the text fields together take at most
// 150,000 characters. Each change queues the events Stripe sends (`charge.dispute.created`,
// `.funds_withdrawn`, `.updated`, `.closed`, `.funds_reinstated`).

const AWAITING = ['needs_response', 'warning_needs_response'];

/** The evidence fields that take a file's id (`file_…`) rather than text. */
export const EVIDENCE_FILES = [
  'cancellation_policy',
  'customer_communication',
  'customer_signature',
  'duplicate_charge_documentation',
  'receipt',
  'refund_policy',
  'service_documentation',
  'shipping_documentation',
  'uncategorized_file',
] as const;

/** The evidence fields that take text. */
export const EVIDENCE_TEXT = [
  'access_activity_log',
  'billing_address',
  'cancellation_policy_disclosure',
  'cancellation_rebuttal',
  'customer_email_address',
  'customer_name',
  'customer_purchase_ip',
  'duplicate_charge_explanation',
  'duplicate_charge_id',
  'product_description',
  'refund_policy_disclosure',
  'refund_refusal_explanation',
  'service_date',
  'shipping_address',
  'shipping_carrier',
  'shipping_date',
  'shipping_tracking_number',
  'uncategorized_text',
] as const;

const TEXT_LIMIT = 150_000;

const inquiry = (status: string) => status.startsWith('warning_');

export function disputeOf(books: Books, id: string): StripeObject {
  const found = books.disputes.get(id);
  if (!found) throw noSuch('dispute', id);
  return found;
}

/** The bank disputes a captured charge (a test hook): all of what is captured and not refunded unless `amount` says. */
export function openDispute(books: Books, chargeId: string, o: { reason?: string; inquiry?: boolean; amount?: number } = {}): StripeObject {
  const ch = books.charges.get(chargeId);
  if (!ch?.captured) throw new Error(`charge ${chargeId} has nothing captured to dispute`);
  if (ch.disputed) throw new Error(`charge ${chargeId} is disputed already`);
  const status = o.inquiry ? 'warning_needs_response' : 'needs_response';
  const dp = dispute({ charge: ch, amount: o.amount ?? ch.amount_captured - (ch.amount_refunded - (ch.amount - ch.amount_captured)), reason: o.reason ?? 'fraudulent', status, created: books.now() });
  books.disputes.set(dp.id, dp);
  ch.disputed = true;
  books.outbox.push({ type: 'charge.dispute.created', object: structuredClone(dp) });
  if (!o.inquiry) books.outbox.push({ type: 'charge.dispute.funds_withdrawn', object: structuredClone(dp) });
  return dp;
}

function checkEvidence(books: Books, evidence: Record<string, string>): void {
  let length = 0;
  for (const [field, value] of Object.entries(evidence)) {
    if ((EVIDENCE_FILES as readonly string[]).includes(field)) {
      const f = books.files.get(value);
      if (!f) throw invalid('resource_missing', `No such file upload: '${value}'`, `evidence[${field}]`);
      if (f.purpose !== 'dispute_evidence') throw invalid(null, `The file ${value} was not uploaded for dispute evidence (its purpose is ${f.purpose}).`, `evidence[${field}]`);
    } else length += value.length;
  }
  if (length > TEXT_LIMIT) throw invalid(null, `The combined character count of all evidence fields is limited to ${TEXT_LIMIT}.`, 'evidence');
}

/** Evidence staged (`submit=false`) or sent to the bank (`submit`, the default); refused once the dispute no longer awaits a response. */
export function updateDispute(books: Books, id: string, params: Params): StripeObject {
  const dp = disputeOf(books, id);
  const evidence = (params.evidence as Record<string, string> | undefined) ?? {};
  if (!AWAITING.includes(dp.status)) {
    throw invalid(null, `This dispute is ${dp.status}: evidence can no longer be updated or submitted.`, params.evidence ? 'evidence' : 'submit');
  }
  checkEvidence(books, evidence);
  const previous = { status: dp.status, evidence: structuredClone(dp.evidence) };
  Object.assign(dp.evidence, evidence);
  if (params.metadata) dp.metadata = { ...dp.metadata, ...(params.metadata as object) };
  dp.evidence_details.has_evidence = Object.entries(dp.evidence).some(([k, v]) => k !== 'enhanced_evidence' && v !== null && v !== '');
  if (params.submit !== false) {
    dp.status = inquiry(dp.status) ? 'warning_under_review' : 'under_review';
    dp.evidence_details.submission_count += 1;
    dp.evidence_details.past_due = books.now() > dp.evidence_details.due_by;
  }
  books.outbox.push({ type: 'charge.dispute.updated', object: structuredClone(dp), previous });
  return expand(books, dp, params.expand as string[]);
}

/** The account gives the dispute up: lost (an inquiry closed); refused once it no longer awaits a response. */
export function closeDispute(books: Books, id: string, params: Params): StripeObject {
  const dp = disputeOf(books, id);
  if (!AWAITING.includes(dp.status)) throw invalid(null, `This dispute is ${dp.status} and cannot be closed.`);
  dp.status = inquiry(dp.status) ? 'warning_closed' : 'lost';
  books.outbox.push({ type: 'charge.dispute.closed', object: structuredClone(dp) });
  return expand(books, dp, params.expand as string[]);
}

/** The bank decides a dispute under review (a test hook): won gives the money back, lost keeps it with the cardholder. */
export function decideDispute(books: Books, id: string, outcome: 'won' | 'lost'): StripeObject {
  const dp = disputeOf(books, id);
  if (dp.status !== 'under_review' && dp.status !== 'warning_under_review' && !AWAITING.includes(dp.status)) throw new Error(`dispute ${id} is ${dp.status}`);
  dp.status = inquiry(dp.status) ? 'warning_closed' : outcome;
  books.outbox.push({ type: 'charge.dispute.closed', object: structuredClone(dp) });
  if (dp.status === 'won') books.outbox.push({ type: 'charge.dispute.funds_reinstated', object: structuredClone(dp) });
  return dp;
}
