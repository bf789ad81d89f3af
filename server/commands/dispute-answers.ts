import { z } from 'zod';
import { type DisputeStatus, EVIDENCE_DATE_FIELDS, EVIDENCE_TEXT_FIELDS, type EvidenceField } from '../domain/disputes';
import type { Deps } from '../deps';
import { type FieldError, zodErrors } from '../http/problem';
import { addEvidence, answerDispute, type DisputeOutcome } from '../payments/disputes';
import { freeText } from '../schemas/fields';
import { getDispute, type StoredDispute } from '../store/disputes';

// Answering a dispute from input not yet parsed (the dashboard's form): the text fields and
// limits of POST /v1/dispute/{id}/evidence/ (which adds files, api/disputes.ts), and the use
// cases of payments/disputes.ts with their state rules, events and refusals.

const calendarDate = z.iso.date({ error: 'must be a real calendar date, YYYY-MM-DD' });
const evidenceText = (field: EvidenceField) =>
  (EVIDENCE_DATE_FIELDS.includes(field) ? calendarDate : freeText(20_000))
    .optional()
    .describe(`Evidence: ${field.replaceAll('_', ' ')}${EVIDENCE_DATE_FIELDS.includes(field) ? ', YYYY-MM-DD' : ''}; replaces what was saved`);

/** The evidence's text fields, each replacing the saved one. */
export const evidenceTextIn = z.strictObject(Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((f) => [f, evidenceText(f)])) as Record<EvidenceField, ReturnType<typeof evidenceText>>);

/** Done, refused by the dispute's state (409 in the API), or refused input. */
export type DisputeAnswer = { kind: 'done'; dispute: StoredDispute } | { kind: 'conflict'; status: DisputeStatus } | { kind: 'invalid'; errors: FieldError[] };

const answerOf = (o: DisputeOutcome): DisputeAnswer => (o.kind === 'done' ? { kind: 'done', dispute: o.dispute } : { kind: 'conflict', status: o.status });

/** Undefined: no such dispute in the environment. */
export async function addDisputeEvidence(deps: Deps, environmentId: string, id: string, input: unknown): Promise<DisputeAnswer | undefined> {
  const d = await getDispute(deps.database.db, environmentId, id);
  if (!d) return undefined;
  const parsed = evidenceTextIn.safeParse(input);
  if (!parsed.success) return { kind: 'invalid', errors: zodErrors(parsed.error) };
  return answerOf(await addEvidence(deps, d, parsed.data, []));
}

/** Submits the saved evidence or accepts the dispute; undefined: no such dispute in the environment. */
export async function answerDisputeOf(deps: Deps, environmentId: string, id: string, action: 'submit' | 'accept'): Promise<DisputeAnswer | undefined> {
  const d = await getDispute(deps.database.db, environmentId, id);
  return d && answerOf(await answerDispute(deps, d, action));
}
