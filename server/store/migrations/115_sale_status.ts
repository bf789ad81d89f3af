import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A sale's status, stored (issue 48, step 1): written by store/sale-aggregate.ts with every
// change of the amounts it derives from (domain/sales.ts saleStatus), so `GET /v1/sale/?status=`
// filters on a column instead of a second definition of the rule in SQL. Existing rows get
// the status their amounts give: the CASE below is saleStatus as it stood when this ran.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('sales').addColumn('status', 'text', (c) => c.notNull().defaultTo('pending')).execute();
    await sql`update sales set status = case
      when pending > 0 then 'pending'
      when failure = 'not_processed' then 'failed'
      when failure is not null then 'declined'
      when held + capturing + voiding > 0 then case when captured > 0 then 'partially_captured' else 'held' end
      when captured = 0 and voided > 0 then 'voided'
      when refunded = 0 then 'captured'
      when refunded < captured then 'partially_refunded'
      else 'refunded' end`.execute(db);
    await db.schema.createIndex('sales_env_status').on('sales').columns(['environment_id', 'status']).execute();
  },
});
