import { type Migration, sql } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Payouts of the merchant's balance to its own bank account (docs/balance.md#payouts).
// `merchant_payout_settings`: the environment's IBAN and schedule, one row at most.
// `merchant_payouts`: one row per payout; (environment, currency, period) is unique, so
// two processes making a period's payout at once make one (a manual payout's period is
// its own id). `locked_until` / `claimed_by` are the payout job's lease while it asks the
// payout gateway.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'merchant_payout_settings')
      .build((t) =>
        t
          .addColumn('environment_id', 'text', (c) => c.primaryKey().references('environments.id'))
          .addColumn('iban', 'text')
          .addColumn('schedule', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'merchant_payouts')
      .build((t) =>
        owned(t)
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('period', 'text', (c) => c.notNull())
          .addColumn('schedule', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('line_count', d.int, (c) => c.notNull())
          .addColumn('iban', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('failure', 'text')
          .addColumn('locked_until', 'text')
          .addColumn('claimed_by', 'text')
          .addUniqueConstraint('merchant_payouts_period', ['environment_id', 'currency', 'period']),
      )
      .execute();
    await db.schema.createIndex('merchant_payouts_env_id').on('merchant_payouts').columns(['environment_id', 'id']).execute();
    await db.schema.createIndex('merchant_payouts_status').on('merchant_payouts').columns(['status', 'id']).execute();
    if (d.engine === 'postgres') {
      await sql`alter table merchant_payout_settings add constraint merchant_payout_settings_schedule_check check (schedule in ('daily', 'weekly', 'manual'))`.execute(db);
      await sql`alter table merchant_payouts add constraint merchant_payouts_schedule_check check (schedule in ('daily', 'weekly', 'manual'))`.execute(db);
      await sql`alter table merchant_payouts add constraint merchant_payouts_status_check check (status in ('pending', 'paid', 'failed'))`.execute(db);
    }
  },
});
