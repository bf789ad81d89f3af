import { type Migration } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // One row per gateway call, written before the call (the reservation) and settled
    // after it: a row still pending once its claim has run out is a call whose answer
    // was lost, which the reconciliation job asks the gateway about by `reference`.
    await d
      .table(db, 'gateway_calls')
      .build((t) =>
        owned(t)
          .addColumn('reference', 'text', (c) => c.notNull().unique())
          .addColumn('gateway_id', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('subject_id', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('request', 'text', (c) => c.notNull())
          .addColumn('claimed_until', 'text')
          .addColumn('check_at', 'text')
          .addColumn('checks', d.int, (c) => c.notNull().defaultTo(0))
          .addColumn('result_id', 'text'),
      )
      .execute();
    await db.schema.createIndex('gateway_calls_due').on('gateway_calls').columns(['state', 'check_at']).execute();
    await db.schema.createIndex('gateway_calls_subject').on('gateway_calls').columns(['subject_id', 'state']).execute();
  },
});
