import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Redsys joins Stripe as a processor type (issue 46; docs/processors.md "Connecting Redsys"):
// PostgreSQL's check of `processors.type` is widened. Its credentials (merchant code,
// terminal, key, signature version, whether the query service is enabled) go in the same
// sealed JSON text as Stripe's keys; SQLite has no check on the column.
//
// Redsys carries out a confirmation, cancellation or refund again when it is sent again, and
// the query that proves an unknown one counts operations of a type and amount on the order:
// so at most one of them may be pending per sale (one Redsys order) across every process.
// The partial unique index is that rule under any concurrency; it names the Redsys gateways'
// ids, which are the same in every environment (payments/redsys/gateway.ts).
export const migration = (d: Def): Migration => ({
  async up(db) {
    await db.schema
      .createIndex('gateway_calls_one_redsys_operation')
      .on('gateway_calls')
      .column('subject_id')
      .unique()
      .where(sql.raw<boolean>(`state = 'pending' and kind in ('capture', 'refund', 'void') and gateway_id in ('0190f5a0-0000-7000-8000-0000000e5001', '0190f5a0-0000-7000-8000-0000000e5002')`))
      .execute();
    if (d.engine !== 'postgres') return;
    await sql`alter table processors drop constraint processors_type_check`.execute(db);
    await sql`alter table processors add constraint processors_type_check check (type in ('stripe', 'redsys'))`.execute(db);
  },
});
