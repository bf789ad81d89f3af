import { type Migration, sql } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// What a connected processor tells us that our books cannot take (issue 45, slice 6;
// docs/processors.md "Webhooks"):
// - `processor_attention`: one row per thing a person must look at, per environment: a
//   verified event for a reference we do not know, an answer that does not match what we
//   asked. `subject` is the processor's id of the object it is about (a session, a refund,
//   a charge): unique per processor, so an event delivered again, or another event about
//   the same object, adds no second row.
// - `sale_operations.kind` takes `refund_failed`: a refund the processor accepted, then
//   failed (the bank returned it); and an index on `gateway_reference`, by which the
//   processor's events find our operations (a refund's id) and sales (a payment's id).
// - a dispute a processor opened (`charge.dispute.*`) names it and its id there
//   (`processor_id`, `processor_dispute_id`: unique per processor); `processor_sync` is what
//   the merchant did that the processor has not been told yet (`evidence` staged, `submit`,
//   `accept`), sent by the processor-disputes job, which claims it until
//   `processor_claimed_until`; a file of its evidence keeps the processor's id once uploaded
//   (`dispute_files.processor_file_id`).
// - `processors.sweep_due_at`: when the daily sweep compares the processor's recent charges
//   and refunds with our books next (null: at once); the sweep job claims a processor by
//   moving it on.
export const migration = (d: Def): Migration => ({
  async up(db) {
    if (d.engine === 'postgres') {
      await sql`alter table sale_operations drop constraint sale_operations_kind_check`.execute(db);
      await sql`alter table sale_operations add constraint sale_operations_kind_check check (kind in ('authorize', 'capture', 'refund', 'void', 'charge', 'decline', 'refund_failed'))`.execute(db);
    }
    await db.schema.createIndex('sale_operations_gateway_reference').on('sale_operations').column('gateway_reference').execute();
    await d
      .table(db, 'processor_attention')
      .build((t) =>
        owned(t)
          .addColumn('processor_id', 'text', (c) => c.notNull().references('processors.id'))
          .addColumn('subject', 'text', (c) => c.notNull())
          .addColumn('event_id', 'text')
          .addColumn('event_type', 'text', (c) => c.notNull())
          .addColumn('reference', 'text')
          .addColumn('why', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('processor_attention_subject').on('processor_attention').columns(['processor_id', 'subject']).unique().execute();
    await db.schema.createIndex('processor_attention_env_id').on('processor_attention').columns(['environment_id', 'id']).execute();
    await db.schema
      .alterTable('disputes')
      .addColumn('processor_id', 'text', (c) => c.references('processors.id'))
      .execute();
    for (const column of ['processor_dispute_id', 'processor_sync', 'processor_claimed_until']) {
      await db.schema.alterTable('disputes').addColumn(column, 'text').execute();
    }
    await db.schema.createIndex('disputes_processor').on('disputes').columns(['processor_id', 'processor_dispute_id']).unique().execute();
    await db.schema.createIndex('disputes_processor_sync').on('disputes').column('processor_claimed_until').where(sql.ref('processor_sync'), 'is not', null).execute();
    if (d.engine === 'postgres') {
      await sql`alter table disputes add constraint disputes_processor_sync_check check (processor_sync in ('evidence', 'submit', 'accept'))`.execute(db);
    }
    await db.schema.alterTable('dispute_files').addColumn('processor_file_id', 'text').execute();
    await db.schema.alterTable('processors').addColumn('sweep_due_at', 'text').execute();
  },
});
