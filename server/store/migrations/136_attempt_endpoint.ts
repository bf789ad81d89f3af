import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A webhook endpoint's page lists its attempts, newest first, a page at a time from the last
// one shown (issue 47, docs/dashboard.md "Webhook endpoints"). An attempt knew its delivery
// only, so that list would read every attempt of every delivery the endpoint ever had and
// sort them; with its delivery's endpoint beside it (null: a notify_url's) it is a range of
// one index, in the order the page reads it. The attempts made before are given theirs.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('delivery_attempts').addColumn('endpoint_id', 'text').execute();
    await sql`update delivery_attempts set endpoint_id = (select d.endpoint_id from event_deliveries d where d.id = delivery_attempts.delivery_id)`.execute(db);
    await db.schema.createIndex('delivery_attempts_endpoint').on('delivery_attempts').columns(['endpoint_id', 'created_at', 'id']).execute();
  },
});
