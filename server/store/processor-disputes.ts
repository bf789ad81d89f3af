import type { Db, Tx } from './db';
import { claimEach } from './locking';
import type { DisputeRow, SaleRow } from './schema';

// The rows behind a connected processor's disputes (payments/processor-disputes.ts,
// migration 103): a dispute found by the processor's id of it, the sale a processor's
// payment made, and the disputes whose merchant's answer the processor has not been told
// yet, claimed one at a time by the processor-disputes job.

/** The dispute a processor opened, by its id there. */
export function disputeOfProcessor(db: Db, processorId: string, processorDisputeId: string): Promise<DisputeRow | undefined> {
  return db.selectFrom('disputes').selectAll().where('processor_id', '=', processorId).where('processor_dispute_id', '=', processorDisputeId).executeTakeFirst();
}

/** The sale of an environment's gateway whose payment the processor names (`pi_…`): the reference its first operation recorded. */
export function saleOfPayment(db: Db, c: { environmentId: string; gatewayId: string; payment: string }): Promise<SaleRow | undefined> {
  return db
    .selectFrom('sale_operations')
    .innerJoin('sales', 'sales.id', 'sale_operations.sale_id')
    .selectAll('sales')
    .where('sale_operations.gateway_reference', '=', c.payment)
    .where('sale_operations.kind', 'in', ['authorize', 'capture', 'charge'])
    .where('sales.environment_id', '=', c.environmentId)
    .where('sales.gateway_id', '=', c.gatewayId)
    .orderBy('sales.id')
    .executeTakeFirst();
}

/** Claims, until `until`, the disputes with an answer the processor has not been told, whose earlier claim (if any) ran out. */
export function claimProcessorDisputes(db: Db, now: Date, until: Date, limit: number): Promise<DisputeRow[]> {
  const at = now.toISOString();
  const due = db
    .selectFrom('disputes')
    .selectAll()
    .where('processor_sync', 'is not', null)
    .where((eb) => eb.or([eb('processor_claimed_until', 'is', null), eb('processor_claimed_until', '<=', at)]))
    .orderBy('updated_at')
    .limit(limit);
  return claimEach(db, due, async (row) => {
    const taken = await db
      .updateTable('disputes')
      .set({ processor_claimed_until: until.toISOString() })
      .where('id', '=', row.id)
      .where('processor_sync', 'is not', null)
      .where((eb) => eb.or([eb('processor_claimed_until', 'is', null), eb('processor_claimed_until', '<=', at)]))
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1 ? row : undefined;
  });
}

/** The bytes of a dispute's files not yet at the processor. */
export function filesToUpload(db: Db, disputeId: string) {
  return db
    .selectFrom('dispute_files')
    .select(['id', 'file_name', 'content_type', 'data'])
    .where('dispute_id', '=', disputeId)
    .where('processor_file_id', 'is', null)
    .orderBy('id')
    .execute();
}

/**
 * What the processor was told: the ids of the files uploaded, and the answer marked told
 * unless the merchant changed the dispute since it was read (`updatedAt`): then the next
 * round sends it again. true when the dispute's answer is all told.
 */
export async function markTold(trx: Tx, d: Pick<DisputeRow, 'id' | 'updated_at'>, files: Record<string, string>): Promise<boolean> {
  for (const [id, processorFileId] of Object.entries(files)) {
    await trx.updateTable('dispute_files').set({ processor_file_id: processorFileId }).where('id', '=', id).where('dispute_id', '=', d.id).execute();
  }
  const told = await trx
    .updateTable('disputes')
    .set({ processor_sync: null, processor_claimed_until: null })
    .where('id', '=', d.id)
    .where('updated_at', '=', d.updated_at)
    .executeTakeFirst();
  if (Number(told.numUpdatedRows) === 1) return true;
  // Changed meanwhile: free for the next round at once.
  await trx.updateTable('disputes').set({ processor_claimed_until: null }).where('id', '=', d.id).execute();
  return false;
}
