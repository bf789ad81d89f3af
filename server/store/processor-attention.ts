import { uuidv7 } from '../domain/ids';
import type { Db } from './db';
import type { ProcessorAttentionRow } from './schema';

// What a connected processor told us that our books cannot take, kept for a person
// (migration 103; the Overview's "Needs attention", dashboard/home-page.tsx): a verified
// event for a reference we do not know, an answer that does not match what we asked, and
// the daily sweep's differences. One row per processor and subject (the processor's id of
// the object): the same event delivered again, or another event about the same object, adds
// nothing.

export type NewProcessorAttention = Pick<ProcessorAttentionRow, 'environment_id' | 'processor_id' | 'subject' | 'event_id' | 'event_type' | 'reference' | 'why'>;

/** Records an item; false when the processor has one about that subject already. */
export async function recordProcessorAttention(db: Db, item: NewProcessorAttention, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const inserted = await db
    .insertInto('processor_attention')
    .values({ ...item, id: uuidv7(now.getTime()), created_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['processor_id', 'subject']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** An environment's items, newest first. */
export function processorAttentionOf(db: Db, environmentId: string, limit: number): Promise<ProcessorAttentionRow[]> {
  return db.selectFrom('processor_attention').selectAll().where('environment_id', '=', environmentId).orderBy('id', 'desc').limit(limit).execute();
}
