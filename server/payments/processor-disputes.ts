import { disputeReasonFrom, disputeStatusFrom, type DisputeStatus, followedMoney, isClosed } from '../domain/disputes';
import type { Deps } from '../deps';
import { inTransaction, rollbackOn, type Tx } from '../store/db';
import { claimProcessorDisputes, lockDispute, markTold } from '../store/disputes';
import { disputeOfProcessor, filesTold, filesToUpload, saleOfPayment } from '../store/processor-disputes';
import { saleRow } from '../store/sales';
import type { DisputeRow } from '../store/schema';
import { salesOfAccount } from './account-sales';
import type { PaymentDeps } from './ask';
import { moveDispute, openDispute } from './dispute-records';
import { needsAttention, type ProcessorSource } from './processor-attention';
import type { SeenDispute } from './processor-said';
import { settledByProcessor } from './settlement';
import type { StripeCardGateway } from './stripe/gateway';

// A connected processor's disputes (docs/disputes.md "Disputes at Stripe"): its
// `charge.dispute.*` events, read again by id, become our dispute object on the sale, and
// follow the processor's status, which is the processor's to decide; each answer of the
// merchant (evidence staged, submitted, the dispute accepted: disputes.ts, marked
// `processor_sync`) is sent to the processor by the processor-disputes job, outside any
// database transaction, and sent again until the processor has it. The money: only the
// sale's `disputed` moves (what the dispute holds is not refundable); a sale the processor
// settles (every connected processor's) moves nothing in our balance and pays no dispute
// fee of ours (settlement.ts).

/** What happens to a dispute the processor told of: opened, followed, or nothing (our own answer not sent yet). */
export async function applyDispute(deps: PaymentDeps, source: ProcessorSource, seen: SeenDispute): Promise<void> {
  const attention = (why: string) => needsAttention(deps, source, { subject: seen.id, reference: null, why });
  const status = disputeStatusFrom(seen.status);
  if (!status) return attention(`a dispute in status ${seen.status}, which our disputes do not follow: see it at the processor`);
  const ours = await disputeOfProcessor(deps.database.db, source.processorId, seen.id);
  if (ours) return follow(deps, ours.id, status);
  const sale = seen.payment ? await saleOfPayment(deps.database.db, { ...(await salesOfAccount(deps, source)), payment: seen.payment }) : undefined;
  if (!sale) return attention(`a dispute of a payment we do not know (${seen.payment ?? seen.charge})`);
  if (sale.currency.toLowerCase() !== seen.currency) return attention(`a dispute in ${seen.currency.toUpperCase()} of a sale in ${sale.currency}`);
  const now = deps.now();
  const money = followedMoney(null, status) === 'debit' ? 'debit' : null;
  const opened = await openDispute(deps.database.db, deps.outbox, {
    sale,
    amount: seen.amount,
    fee: 0,
    reason: disputeReasonFrom(seen.reason),
    status,
    money,
    settledByProcessor: settledByProcessor(source.gateway, deps.gateways.all),
    dueBy: seen.dueBy ?? now,
    now,
    row: {
      processor_id: source.processorId,
      processor_dispute_id: seen.id,
      submitted_at: /under_review|won|lost|closed/.test(status) ? now.toISOString() : null,
      closed_at: isClosed(status) ? now.toISOString() : null,
    },
  });
  if (!opened) return attention(`a dispute of the sale ${sale.id} that our books could not open (it has a dispute already, or less left than ${seen.amount} to dispute)`);
}

/**
 * Moves our dispute to the processor's status, with its money, once: judged on its row
 * locked. Left as it is while the merchant's own answer has not reached the processor
 * (`processor_sync`): the processor still shows the state before it.
 */
async function follow(deps: PaymentDeps, id: string, to: DisputeStatus): Promise<void> {
  const now = deps.now();
  await rollbackOn<void, void>(deps.database.db, async (trx: Tx) => {
    const d = (await lockDispute(trx, id))!;
    if (d.row.processor_sync !== null || d.row.status === to) return;
    await moveDispute(trx, deps.outbox, { dispute: d.row, to, money: followedMoney(d.row.status, to), now });
  });
}

/** Stripe's dispute takes one file of evidence, a PDF, PNG or JPEG: what the API refuses before saving (null: taken). */
export function processorEvidenceRefusal(d: DisputeRow, kept: number, files: { content_type: string }[]): { path: string; message: string } | null {
  if (!d.processor_id) return null;
  const notTaken = files.findIndex((f) => !['application/pdf', 'image/png', 'image/jpeg'].includes(f.content_type));
  if (notTaken >= 0) return { path: `files[${notTaken}].content_type`, message: 'Stripe takes dispute evidence as PDF, PNG or JPEG only' };
  if (kept + files.length > 1) return { path: 'files', message: 'a Stripe dispute takes one file of evidence: combine yours into one PDF' };
  return null;
}

type JobDeps = PaymentDeps & Pick<Deps, 'gateways'>;

/** One round of the processor-disputes job: the merchant's answers the processors have not been told, each sent once it is claimed. */
export async function sendDisputeAnswers(deps: JobDeps, limit: number): Promise<number> {
  const now = deps.now();
  // Held for two of the processor's timeouts: a round that dies leaves it to the next one after that.
  const until = new Date(now.getTime() + 2 * deps.config.gatewayTimeoutMs);
  let sent = 0;
  for (const d of await claimProcessorDisputes(deps.database.db, now, until, limit)) {
    if (await sendAnswer(deps, d)) sent++;
  }
  return sent;
}

async function sendAnswer(deps: JobDeps, d: DisputeRow): Promise<boolean> {
  const db = deps.database.db;
  const sale = (await saleRow(db, d.sale_id))!;
  const gateway = (await deps.gateways.of(d.environment_id)).find(sale) as StripeCardGateway | undefined;
  if (!gateway?.answerDispute || !d.processor_id || !d.processor_dispute_id) return false;
  const files = (await filesToUpload(db, d.id)).map((f) => ({ id: f.id, name: f.file_name, contentType: f.content_type, data: f.data, processorFileId: null }));
  const told = await filesTold(db, d.id);
  const answer = {
    id: d.processor_dispute_id,
    action: d.processor_sync!,
    evidence: JSON.parse(d.evidence) as Record<string, string>,
    files: [...told.map((f) => ({ id: f.id, name: '', contentType: '', data: new Uint8Array(), processorFileId: f.processor_file_id })), ...files],
  };
  let answered;
  try {
    answered = await gateway.answerDispute({ ...answer, signal: AbortSignal.timeout(deps.config.gatewayTimeoutMs) });
  } catch (err) {
    deps.log.warn({ dispute: d.id, err }, 'dispute answer not sent to the processor: sent again later');
    return false;
  }
  if (!(await inTransaction(db, (trx) => markTold(trx, d, answered.files)))) return false;
  const source: ProcessorSource = { environmentId: d.environment_id, processorId: d.processor_id, gateway, event: null, type: `dispute.${answer.action}` };
  if (answered.refused) await needsAttention(deps, source, { subject: d.processor_dispute_id, reference: null, why: `the processor refused the merchant's answer (${answer.action}): ${answered.refused}` });
  await applyDispute(deps, source, answered.dispute);
  return true;
}
