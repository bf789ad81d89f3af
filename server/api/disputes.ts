import { z } from 'zod';
import { DISPUTE_REASONS, DISPUTE_STATUSES, EVIDENCE_DATE_FIELDS, EVIDENCE_TEXT_FIELDS, type EvidenceField } from '../domain/disputes';
import type { Deps } from '../deps';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, found } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { addEvidence, answerDispute, type DisputeOutcome } from '../payments/disputes';
import { presentDispute } from '../present/dispute';
import type { Db } from '../store/db';
import { getDispute, listDisputes } from '../store/disputes';
import { evidenceFiles, evidenceIn, MAX_EVIDENCE_FILES } from '../commands/dispute-answers';
import { DOCUMENT_LIMIT_TEXT } from '../schemas/document-bytes';
import { EXAMPLE_TIME, IDS, page } from './examples';
import { currencyOut, dateTime, exact, livemode, objectId, ref, timestamps } from '../schemas/fields';

// Disputes: a customer's bank disputing a captured sale (docs/disputes.md). Read, answered
// with evidence, submitted or accepted here; opened and decided by the bank (the sandbox's
// in payments/disputes.ts), closed at the deadline by the dispute-deadlines job.

const TAG = 'Disputes';
const DISPUTE_ID = '01943a70-1c2d-7e3f-8041-5b6c7d8e9fa0';
const FILE_ID = '01943a70-2d3e-7f40-9152-6c7d8e9fa0b1';

const evidenceShown = (field: EvidenceField) =>
  (EVIDENCE_DATE_FIELDS.includes(field) ? z.iso.date() : z.string()).nullable().describe('As sent; null when not given');

const fileOut = z.object({
  id: objectId,
  name: z.string().describe('File name, as uploaded'),
  content_type: z.string().describe('Media type, checked against the bytes'),
  size: z.number().int().describe('Size in bytes'),
  sha256: z.string().describe('Hex SHA-256 of the bytes'),
  created: dateTime.describe('When it was uploaded'),
});

export const disputeOut = z
  .object({
    id: objectId,
    livemode,
    sale: z.uuid().describe('`id` of the disputed sale'),
    amount: z.number().describe('What the bank disputes, major units of `currency` (an inquiry moves none of it)'),
    currency: currencyOut,
    fee: z.number().describe('The dispute fee your balance paid when the dispute opened (0 for an inquiry); kept whatever the outcome'),
    reason: z.enum(DISPUTE_REASONS).describe("The bank's reason"),
    status: z
      .enum(DISPUTE_STATUSES)
      .describe('`needs_response` → `under_review` → `won` | `lost`; an inquiry, which moves no money: `warning_needs_response` → `warning_under_review` → `warning_closed`'),
    evidence_due_by: dateTime.describe('Until when evidence is taken; then saved evidence is submitted, and a dispute without any is lost'),
    evidence: z
      .object({
        ...(Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((f) => [f, evidenceShown(f)])) as Record<EvidenceField, ReturnType<typeof evidenceShown>>),
        files: z.array(fileOut).describe('The files uploaded, oldest first (their bytes are kept, not shown)'),
      })
      .describe('The evidence saved so far'),
    submitted: dateTime.nullable().describe('When the evidence was submitted to the bank'),
    closed: dateTime.nullable().describe('When the dispute was won, lost or (an inquiry) closed'),
    ...timestamps,
  })
  .meta({ id: 'Dispute', description: "A customer's bank disputing a captured sale" });

const DISPUTE_EXAMPLE = {
  id: DISPUTE_ID,
  sale: IDS.sale,
  amount: 33.95,
  currency: 'EUR',
  fee: 15,
  reason: 'fraudulent' as const,
  status: 'needs_response' as const,
  evidence_due_by: '2026-01-22T10:30:00.000Z',
  evidence: {
    ...(Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((f) => [f, null])) as Record<EvidenceField, null>),
    product_description: 'Espresso machine, delivered 3 January',
    files: [{ id: FILE_ID, name: 'delivery.pdf', content_type: 'application/pdf', size: 48213, sha256: 'a3f1c2…', created: EXAMPLE_TIME }],
  },
  submitted: null,
  closed: null,
  created: EXAMPLE_TIME,
  updated: EXAMPLE_TIME,
};

const listQuery = pageQuery.extend({
  status: z.enum(DISPUTE_STATUSES).optional().describe('Only disputes in this status'),
  reason: z.enum(DISPUTE_REASONS).optional().describe('Only disputes for this reason'),
  sale: ref('sale').optional().describe('Only the dispute of this sale'),
  currency: exact(3).optional().describe('Only disputes in this currency'),
});

const noBody = z.strictObject({}).meta({ id: 'DisputeAction', description: 'No fields: send no body, or `{}`' });

/** The use cases on the request's handle: inside a keyed POST, its transaction. */
const on = (deps: Deps, db: Db): Deps => ({ ...deps, database: { ...deps.database, db } });

const dispute = async (db: Db, environmentId: string, id: string) => found(await getDispute(db, environmentId, id), 'dispute');

function answer(outcome: DisputeOutcome, what: string) {
  if (outcome.kind === 'done') return presentDispute(outcome.dispute);
  throw new ApiError('conflict', `${what} refused: the dispute is ${outcome.status}, and only a dispute awaiting a response (needs_response, warning_needs_response) takes it; nothing was changed`);
}

function evidenceRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/dispute/{id}/evidence/',
    operationId: 'addDisputeEvidence',
    summary: 'Add evidence to a dispute awaiting your response: text fields and files',
    description: `Saves evidence without submitting it: each text field sent replaces the saved one, files are added (PDF, PNG, JPEG or WebP, base64, checked against their bytes as client documents are; at most ${MAX_EVIDENCE_FILES} a request and ${DOCUMENT_LIMIT_TEXT} in all). A dispute no longer awaiting a response is a 409. Saved evidence is submitted for you at \`evidence_due_by\`.`,
    example: {
      request: { product_description: 'Espresso machine, delivered 3 January', files: [{ name: 'delivery.pdf', content_type: 'application/pdf', data: 'JVBERi0xLjQK' }] },
      response: DISPUTE_EXAMPLE,
    },
    tag: TAG,
    body: evidenceIn,
    response: disputeOut,
    status: 200,
    problems: [413],
    async handler({ env, params, body, deps, db }) {
      const d = await dispute(db, env.id, params.id!);
      const { files = [], ...text } = body;
      return answer(await addEvidence(on(deps, db), d, text, await evidenceFiles(d, files)), 'evidence');
    },
  });
}

const action = (name: 'submit' | 'accept', summary: string, description: string, status: 'under_review' | 'lost') =>
  route({
    method: 'post',
    path: `/dispute/{id}/${name}/`,
    operationId: `${name}Dispute`,
    summary,
    description,
    example: { request: {}, response: { ...DISPUTE_EXAMPLE, status, ...(status === 'lost' ? { closed: EXAMPLE_TIME } : { submitted: EXAMPLE_TIME }) } },
    tag: TAG,
    body: noBody,
    response: disputeOut,
    status: 200,
    async handler({ env, params, deps, db }) {
      const d = await dispute(db, env.id, params.id!);
      return answer(await answerDispute(on(deps, db), d, name), name === 'submit' ? 'submitting' : 'accepting');
    },
  });

export const disputeRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/dispute/',
    operationId: 'listDisputes',
    summary: 'List disputes, newest first',
    description: 'The disputes of your sales, newest first; filter by status, reason, sale or currency.',
    example: { response: page([DISPUTE_EXAMPLE]) },
    tag: TAG,
    query: listQuery,
    response: pageEnvelopeSchema(disputeOut),
    status: 200,
    async handler(ctx) {
      const { env, db } = ctx;
      return listPage(
        ctx,
        async ({ sale, ...filters }, p) => {
          const { count, items } = await listDisputes(db, env.id, { ...filters, sale_id: sale }, p);
          return { count, rows: items };
        },
        presentDispute,
      );
    },
  }),
  route({
    method: 'get',
    path: '/dispute/{id}/',
    operationId: 'getDispute',
    summary: 'Get a dispute with its evidence',
    description: 'One dispute, with the evidence saved so far (its files without their bytes).',
    example: { response: DISPUTE_EXAMPLE },
    tag: TAG,
    response: disputeOut,
    status: 200,
    async handler({ env, params, db }) {
      return presentDispute(await dispute(db, env.id, params.id!));
    },
  }),
  evidenceRoute(),
  action(
    'submit',
    'Submit the saved evidence to the bank',
    'Sends the evidence saved so far to the bank: the dispute goes `under_review` (an inquiry `warning_under_review`) until the bank decides. A dispute no longer awaiting a response is a 409.',
    'under_review',
  ),
  action(
    'accept',
    'Accept the dispute: it is lost (an inquiry is closed)',
    'Gives up the dispute: it is `lost` at once and the disputed amount and fee stay out of your balance (an inquiry is `warning_closed`, nothing moves). A dispute no longer awaiting a response is a 409.',
    'lost',
  ),
];
