import { EVIDENCE_DATE_FIELDS, EVIDENCE_TEXT_FIELDS, type EvidenceField, type EvidenceText } from '../domain/disputes';
import type { FieldError } from '../http/problem';

// A dispute's evidence form: a posted form becomes the API's input, checked and applied by
// the API's own rules and use cases (commands/dispute-answers.ts): the same fields and
// limits, state rules, `dispute.updated` / `dispute.closed` events and refusals.

export type Errors = FieldError[];

export type EvidenceValues = Record<EvidenceField, string>;

/** The form's values: what was posted (anything but text is an empty field), or the evidence saved. */
export const postedEvidence = (body: Record<string, unknown>): EvidenceValues =>
  Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((f) => [f, typeof body[f] === 'string' ? body[f] : ''])) as EvidenceValues;

export const savedEvidence = (evidence: EvidenceText): EvidenceValues => Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((f) => [f, evidence[f] ?? ''])) as EvidenceValues;

/**
 * The API's input: only the fields that differ from what is saved, so an untouched empty
 * field stays unset (null in the API) and a cleared one is saved empty, as the API would.
 * A date field left empty is not sent (the API takes a date or nothing).
 */
export function evidenceInput(values: EvidenceValues, saved: EvidenceText): Partial<EvidenceValues> {
  const input: Partial<EvidenceValues> = {};
  for (const f of EVIDENCE_TEXT_FIELDS) {
    const value = values[f];
    if (value.trim() === (saved[f] ?? '').trim()) continue;
    if (EVIDENCE_DATE_FIELDS.includes(f) && value.trim() === '') continue;
    input[f] = EVIDENCE_DATE_FIELDS.includes(f) ? value.trim() : value;
  }
  return input;
}

/** Multi-line fields get a text area; names, addresses' single values and dates a line. */
export const LINE_FIELDS: readonly EvidenceField[] = ['customer_name', 'customer_email_address', 'shipping_carrier', 'shipping_tracking_number'];
