import type { Db } from './db';

// When each processor last delivered a webhook that verified (migration 106): written by
// payments/processor-events.ts on every verified delivery, read by the dashboard's live
// readiness (dashboard/live-readiness.ts).

/** Records a verified delivery of `processorId` at `now`. */
export async function noteVerifiedDelivery(db: Db, processorId: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await db
    .insertInto('processor_deliveries')
    .values({ processor_id: processorId, last_verified_at: at })
    .onConflict((oc) => oc.column('processor_id').doUpdateSet({ last_verified_at: at }))
    .execute();
}

/** A connected processor as the readiness checklist reads it. */
export interface ProcessorDelivery {
  id: string;
  type: string;
  secret_key_last4: string;
  /** The last verified webhook delivery; null: none yet. */
  last_verified_at: string | null;
}

/** The environment's processors that are not deleted, newest first, each with its last verified delivery. */
export function deliveriesOf(db: Db, environmentId: string): Promise<ProcessorDelivery[]> {
  return db
    .selectFrom('processors as p')
    .leftJoin('processor_deliveries as d', 'd.processor_id', 'p.id')
    .select(['p.id', 'p.type', 'p.secret_key_last4', 'd.last_verified_at'])
    .where('p.environment_id', '=', environmentId)
    .where('p.deleted_at', 'is', null)
    .orderBy('p.id', 'desc')
    .execute();
}
