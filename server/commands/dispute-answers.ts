import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type DisputeStatus, EVIDENCE_DATE_FIELDS, EVIDENCE_TEXT_FIELDS, type EvidenceField } from '../domain/disputes';
import type { Deps } from '../deps';
import { ApiError, type FieldError, zodErrors } from '../http/problem';
import { addEvidence, answerDispute, type DisputeOutcome } from '../payments/disputes';
import { processorEvidenceRefusal } from '../payments/processor-disputes';
import { documentFile, MAX_DOCUMENT_BYTES } from '../schemas/client-objects';
import { checkedBytes, DOCUMENT_LIMIT_TEXT, tooLargeDocument } from '../schemas/document-bytes';
import { freeText } from '../schemas/fields';
import { getDispute, type NewDisputeFile, type StoredDispute } from '../store/disputes';

// A dispute's evidence as POST /v1/dispute/{id}/evidence/ takes it (text fields and files),
// and its answers from input not yet parsed (the dashboard's forms): one schema and one
// check of the files for both front doors, then the use cases of payments/disputes.ts with
// their state rules, events and refusals.

/** At most this many files in one request (each within the client-document rules). */
export const MAX_EVIDENCE_FILES = 5;

const calendarDate = z.iso.date({ error: 'must be a real calendar date, YYYY-MM-DD' });
const evidenceText = (field: EvidenceField) =>
  (EVIDENCE_DATE_FIELDS.includes(field) ? calendarDate : freeText(20_000))
    .optional()
    .describe(`Evidence: ${field.replaceAll('_', ' ')}${EVIDENCE_DATE_FIELDS.includes(field) ? ', YYYY-MM-DD' : ''}; replaces what was saved`);

/** The evidence's text fields, each replacing the saved one, and files to add. */
export const evidenceIn = z
  .strictObject(Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((f) => [f, evidenceText(f)])) as Record<EvidenceField, ReturnType<typeof evidenceText>>)
  .extend({
    files: z
      .array(documentFile)
      .max(MAX_EVIDENCE_FILES)
      .optional()
      .describe(`Files to add (receipts, delivery proof, messages): PDF, PNG, JPEG or WebP, base64, at most ${MAX_EVIDENCE_FILES}, each and all together at most ${DOCUMENT_LIMIT_TEXT} (larger is a 413)`),
  })
  .meta({ id: 'DisputeEvidence', description: 'Evidence to add to a dispute: text fields (each replaces the saved one) and files (added)' });

/**
 * The files to keep, once their bytes are what they claim and the dispute takes them (a
 * processor's takes what the processor takes); throws the API's problem otherwise.
 */
export async function evidenceFiles(d: StoredDispute, files: z.output<typeof documentFile>[]): Promise<NewDisputeFile[]> {
  const refused = processorEvidenceRefusal(d.row, d.files.length, files);
  if (refused) throw new ApiError('invalid_request', `Evidence refused: ${refused.message}; nothing was saved`, [refused]);
  const kept: NewDisputeFile[] = [];
  for (const [i, f] of files.entries()) {
    const bytes = await checkedBytes(f, `files[${i}]`);
    kept.push({ file_name: f.name, content_type: f.content_type, size: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex'), data: bytes });
  }
  if (kept.reduce((all, f) => all + f.size, 0) > MAX_DOCUMENT_BYTES) throw tooLargeDocument('files');
  return kept;
}

/** Done, refused by the dispute's state (409 in the API), or refused input (`status` 400, or 413 for files too large). */
export type DisputeAnswer =
  | { kind: 'done'; dispute: StoredDispute }
  | { kind: 'conflict'; status: DisputeStatus }
  | { kind: 'invalid'; status: number; errors: FieldError[] };

const answerOf = (o: DisputeOutcome): DisputeAnswer => (o.kind === 'done' ? { kind: 'done', dispute: o.dispute } : { kind: 'conflict', status: o.status });

/** Undefined: no such dispute in the environment. */
export async function addDisputeEvidence(deps: Deps, environmentId: string, id: string, input: unknown): Promise<DisputeAnswer | undefined> {
  const d = await getDispute(deps.database.db, environmentId, id);
  if (!d) return undefined;
  const parsed = evidenceIn.safeParse(input);
  if (!parsed.success) return { kind: 'invalid', status: 400, errors: zodErrors(parsed.error) };
  const { files = [], ...text } = parsed.data;
  let kept: NewDisputeFile[];
  try {
    kept = await evidenceFiles(d, files);
  } catch (e) {
    if (e instanceof ApiError && e.errors) return { kind: 'invalid', status: e.status, errors: e.errors };
    throw e;
  }
  return answerOf(await addEvidence(deps, d, text, kept));
}

/** Submits the saved evidence or accepts the dispute; undefined: no such dispute in the environment. */
export async function answerDisputeOf(deps: Deps, environmentId: string, id: string, action: 'submit' | 'accept'): Promise<DisputeAnswer | undefined> {
  const d = await getDispute(deps.database.db, environmentId, id);
  return d && answerOf(await answerDispute(deps, d, action));
}
