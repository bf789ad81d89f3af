import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Finding a payment and refunding it with a reason (issue 47, the dashboard's Payments):
// - a refund's reason as the merchant gave it (`duplicate`, `fraudulent`,
//   `requested_by_customer`, `other`), or null: not given, or not a refund;
// - the customer-facing reference of a payment ("AA20-78BF", domain/payment-reference.ts)
//   is the last eight hex digits of its sale's id: `substr(id, 29, 8)` of the UUID's text.
//   This index lets a search by reference go straight to the environment's sale instead of
//   reading every sale's id (store/search-match.ts uses the same expression).
export const migration = (d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('sale_operations').addColumn('reason', 'text').execute();
    if (d.engine === 'postgres') {
      await sql`alter table sale_operations add constraint sale_operations_reason_check check (reason in ('duplicate', 'fraudulent', 'requested_by_customer', 'other'))`.execute(db);
    }
    await sql`create index sales_env_reference on sales (environment_id, substr(id, 29, 8))`.execute(db);
  },
});
