import { type AccountSales, ofAccount } from './account-sales';
import type { Db } from './db';
import type { DisputeRow, SaleRow } from './schema';

// The rows behind a connected processor's disputes (payments/processor-disputes.ts,
// migration 103): a dispute found by the processor's id of it, the sale a processor's
// payment made, and the files of an answer at the processor or not yet. The disputes' writes
// (the processor-disputes job's claim, what the processor was told) are store/disputes.ts's.

/** The dispute a processor opened, by its id there. */
export function disputeOfProcessor(db: Db, processorId: string, processorDisputeId: string): Promise<DisputeRow | undefined> {
  return db.selectFrom('disputes').selectAll().where('processor_id', '=', processorId).where('processor_dispute_id', '=', processorDisputeId).executeTakeFirst();
}

/** The sale of one processor account whose payment the processor names (`pi_…`): the reference its first operation recorded. */
export function saleOfPayment(db: Db, c: AccountSales & { payment: string }): Promise<SaleRow | undefined> {
  return db
    .selectFrom('sale_operations')
    .innerJoin('sales', 'sales.id', 'sale_operations.sale_id')
    .selectAll('sales')
    .where('sale_operations.gateway_reference', '=', c.payment)
    .where('sale_operations.kind', 'in', ['authorize', 'capture', 'charge'])
    .where((eb) => ofAccount(eb, c))
    .orderBy('sales.id')
    .executeTakeFirst();
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

/** The files of a dispute already at the processor, with its ids of them. */
export function filesTold(db: Db, disputeId: string) {
  return db.selectFrom('dispute_files').select(['id', 'processor_file_id']).where('dispute_id', '=', disputeId).where('processor_file_id', 'is not', null).execute();
}
