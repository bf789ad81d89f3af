import type Stripe from 'stripe';
import { z } from 'zod';
import type { EvidenceField, EvidenceText } from '../../domain/disputes';
import type { SeenDispute } from '../processor-said';
import { read, same } from './answers';
import type { StripeContext } from './context';
import { notActed } from './refusals';
import { ourUnits } from './units';

// Disputes at Stripe (docs/disputes.md "Stripe's disputes"): read by id (an event's, or
// after we answered one), and answered with the merchant's evidence. Evidence saved as a
// draft is staged with `submit: false`; it is sent to the bank with `submit: true` only
// when the merchant submits; accepting closes the dispute at Stripe. Files go to Stripe's
// files host first (purpose `dispute_evidence`), each once: its upload carries an
// Idempotency-Key of our file, and its id is kept by the service.

const disputeSchema = z.object({
  id: z.string().startsWith('dp_'),
  object: z.literal('dispute'),
  amount: z.number().int(),
  currency: z.string(),
  charge: z.string(),
  payment_intent: z.string().nullish(),
  reason: z.string(),
  status: z.string(),
  created: z.number().int(),
  evidence_details: z.object({ due_by: z.number().int().nullish() }),
});

const chargeSchema = z.object({ id: z.string().startsWith('ch_'), payment_intent: z.string().nullish() });
const fileSchema = z.object({ id: z.string().startsWith('file_'), object: z.literal('file'), purpose: z.string() });

/** The dispute events the connector reads (`charge.dispute.created`, `.updated`, `.closed`, `.funds_withdrawn`, `.funds_reinstated`). */
export const isDisputeEvent = (type: string) => type.startsWith('charge.dispute.');

/** A dispute as Stripe holds it now; its payment from its charge when the dispute does not name one. */
export async function readDispute(ctx: StripeContext, id: string): Promise<SeenDispute> {
  const d = read(disputeSchema, await ctx.stripe.disputes.retrieve(id), 'the dispute');
  same('id', id, d.id);
  return seen(ctx, d);
}

async function seen(ctx: StripeContext, d: z.infer<typeof disputeSchema>): Promise<SeenDispute> {
  const payment = d.payment_intent ?? read(chargeSchema, await ctx.stripe.charges.retrieve(d.charge), 'the disputed charge').payment_intent ?? null;
  return {
    id: d.id,
    charge: d.charge,
    payment,
    amount: ourUnits(d.amount, d.currency),
    currency: d.currency,
    reason: d.reason,
    status: d.status,
    dueBy: d.evidence_details.due_by ? new Date(d.evidence_details.due_by * 1000) : null,
    created: new Date(d.created * 1000),
  };
}

/** Our evidence fields that Stripe has under another name (Stripe's `cancellation_policy` and `refund_policy` are files). */
const RENAMED: Partial<Record<EvidenceField, keyof Stripe.DisputeUpdateParams.Evidence>> = {
  cancellation_policy: 'cancellation_policy_disclosure',
  refund_policy: 'refund_policy_disclosure',
};

/**
 * Our evidence as Stripe's: the same text fields, two under Stripe's names, and
 * `customer_communication` (a file at Stripe) quoted after `uncategorized_text`; the file,
 * as `uncategorized_file`.
 */
function stripeEvidence(text: EvidenceText, file: string | null): Stripe.DisputeUpdateParams.Evidence {
  const out: Stripe.DisputeUpdateParams.Evidence = {};
  for (const [field, value] of Object.entries(text) as [EvidenceField, string | undefined][]) {
    if (!value || field === 'customer_communication' || field === 'uncategorized_text') continue;
    out[RENAMED[field] ?? (field as keyof Stripe.DisputeUpdateParams.Evidence)] = value as never;
  }
  const uncategorized = [text.uncategorized_text, text.customer_communication ? `Customer communication:\n${text.customer_communication}` : undefined].filter(Boolean).join('\n\n');
  if (uncategorized) out.uncategorized_text = uncategorized;
  if (file) out.uncategorized_file = file;
  return out;
}

export interface EvidenceFile {
  /** Our file's id: the upload's Idempotency-Key. */
  id: string;
  name: string;
  contentType: string;
  data: Uint8Array;
  /** Stripe's id once uploaded. */
  processorFileId: string | null;
}

/** Uploads a file to Stripe's files host, once per our file; Stripe's id of it. */
async function upload(ctx: StripeContext, f: EvidenceFile): Promise<string> {
  if (f.processorFileId) return f.processorFileId;
  const made = await ctx.files.files.create({ purpose: 'dispute_evidence', file: { data: Buffer.from(f.data), name: f.name, type: f.contentType } }, { idempotencyKey: `dispute_file_${f.id}` });
  const file = read(fileSchema, made, 'the uploaded file');
  same('purpose', 'dispute_evidence', file.purpose);
  return file.id;
}

export interface DisputeAnswer {
  /** Stripe's dispute. */
  id: string;
  /** `evidence`: staged (`submit: false`); `submit`: sent to the bank; `accept`: the dispute closed. */
  action: 'evidence' | 'submit' | 'accept';
  evidence: EvidenceText;
  /** At most one (Stripe's `uncategorized_file`). */
  files: EvidenceFile[];
}

/** The dispute after an answer, the ids of the files uploaded (ours → Stripe's), and Stripe's refusal when it refused (the dispute then read again). */
export interface DisputeAnswered {
  dispute: SeenDispute;
  files: Record<string, string>;
  refused?: string;
}

/**
 * Sends the merchant's answer. A refusal (a 4xx: the dispute no longer takes evidence, a
 * file Stripe does not take) is answered with the dispute as Stripe holds it; anything
 * else (a 5xx, no answer) is thrown, and the answer is sent again later.
 */
export async function answerDispute(ctx: StripeContext, a: DisputeAnswer): Promise<DisputeAnswered> {
  const files: Record<string, string> = {};
  try {
    if (a.action === 'accept') {
      const closed = read(disputeSchema, await ctx.stripe.disputes.close(a.id), 'the closed dispute');
      same('id', a.id, closed.id);
      return { dispute: await seen(ctx, closed), files };
    }
    for (const f of a.files) files[f.id] = await upload(ctx, f);
    const file = a.files[0] ? files[a.files[0].id]! : null;
    const updated = read(disputeSchema, await ctx.stripe.disputes.update(a.id, { evidence: stripeEvidence(a.evidence, file), submit: a.action === 'submit' }), 'the updated dispute');
    same('id', a.id, updated.id);
    return { dispute: await seen(ctx, updated), files };
  } catch (error) {
    const refusal = notActed(error);
    if (!refusal) throw error;
    return { dispute: await readDispute(ctx, a.id), files, refused: refusal.reason };
  }
}
