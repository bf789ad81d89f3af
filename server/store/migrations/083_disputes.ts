import { type Migration, sql } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Disputes (docs/disputes.md): a customer's bank disputes a captured sale. One per sale
// (`sale_id` unique: whoever opens it first, the sandbox job of any process, wins). Its
// evidence's text fields are one JSON object; its files are rows of their own with their
// bytes, like a client's documents. A sale names its dispute (`dispute_id`, so it shows
// `disputed` without another query) and keeps what its open and lost disputes took
// (`disputed`, minor units): a refund may not take that part. Each environment's pricing
// gains a fixed fee per dispute, 1500 minor units unless the operator sets another.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'disputes')
      .build((t) =>
        owned(t)
          .addColumn('sale_id', 'text', (c) => c.notNull().unique().references('sales.id'))
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('fee', d.int, (c) => c.notNull())
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('evidence_due_by', 'text', (c) => c.notNull())
          .addColumn('evidence', 'text', (c) => c.notNull())
          .addColumn('submitted_at', 'text')
          .addColumn('closed_at', 'text'),
      )
      .execute();
    await db.schema.createIndex('disputes_env_id').on('disputes').columns(['environment_id', 'id']).execute();
    await db.schema.createIndex('disputes_status_due').on('disputes').columns(['status', 'evidence_due_by']).execute();
    await d
      .table(db, 'dispute_files')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('dispute_id', 'text', (c) => c.notNull().references('disputes.id'))
          .addColumn('file_name', 'text', (c) => c.notNull())
          .addColumn('content_type', 'text', (c) => c.notNull())
          .addColumn('size', d.int, (c) => c.notNull())
          .addColumn('sha256', 'text', (c) => c.notNull())
          .addColumn('data', d.bytes, (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('dispute_files_dispute').on('dispute_files').column('dispute_id').execute();
    await db.schema.alterTable('sales').addColumn('disputed', d.int, (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('sales').addColumn('dispute_id', 'text').execute();
    await db.schema.alterTable('environment_pricing').addColumn('dispute_fixed', d.int, (c) => c.notNull().defaultTo(1500)).execute();
    if (d.engine === 'postgres') {
      const statuses = ['needs_response', 'under_review', 'won', 'lost', 'warning_needs_response', 'warning_under_review', 'warning_closed'];
      const reasons = ['fraudulent', 'product_not_received', 'duplicate', 'subscription_canceled', 'product_unacceptable', 'credit_not_processed', 'unrecognized', 'general'];
      for (const [column, values] of [['status', statuses], ['reason', reasons]] as const) {
        const allowed = sql.join(values.map((v) => sql.lit(v)));
        await sql`alter table disputes add constraint ${sql.id(`disputes_${column}_check`)} check (${sql.ref(column)} in (${allowed}))`.execute(db);
      }
    }
  },
});
