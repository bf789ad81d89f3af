import type { Migration } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The payouts a merchant's own processor account makes to the merchant's bank (issue 47,
// Balance; docs/processors.md "The processor's payouts"): Stripe's `payout` objects, read by
// the daily sweep and shown on the Balance page, never fetched while a page renders. One row
// per (processor, payout id): a later reading overwrites the status, which moves (pending,
// in transit, paid, failed, canceled), and adds nothing. Money in the processor's minor
// units of `currency` (upper-case ISO 4217). The page reads an environment's latest by
// arrival date, a range of the second index.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'processor_payouts')
      .build((t) =>
        owned(t)
          .addColumn('processor_id', 'text', (c) => c.notNull().references('processors.id'))
          .addColumn('payout', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('arrival_date', 'text', (c) => c.notNull())
          .addColumn('failure_message', 'text')
          .addColumn('payout_created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('processor_payouts_one_per_payout').on('processor_payouts').columns(['processor_id', 'payout']).unique().execute();
    await db.schema.createIndex('processor_payouts_env_arrival').on('processor_payouts').columns(['environment_id', 'arrival_date', 'id']).execute();
  },
});
