import { type Migration, sql } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Payout files and what the bank sends back (issue 46; docs/balance.md#payout-files).
// - `payout_files`: one pain.001 file of one environment's payouts (a file never mixes
//   environments), its XML kept as written, so every download is the same file. `state`:
//   written → downloaded → booked, or cancelled. `message_id` is its MsgId, unique.
// - `payout_file_items`: the payouts in a file (a merchant payout or a transfer, `kind`),
//   with the ids the bank hands back. `active` is 1 while the file is not cancelled: a payout
//   is in at most one file not cancelled (the partial unique index), so two rounds of the job
//   can never put it in two files.
// - `bank_statement_reports`: each camt.053 / camt.054 report imported, by its key per
//   environment (unique), so the same statement imported again changes nothing.
// - `bank_statement_lines`: the booked lines of an imported report that matched no payout,
//   with why, for a person to look at.
// - `payout_status_reports`: the pain.002 reports imported, with the file each answered.
type Db = Parameters<Migration['up']>[0];

/** The files and the payouts in each. */
async function fileTables(db: Db, d: Def): Promise<void> {
  await d
    .table(db, 'payout_files')
    .build((t) =>
      owned(t)
        .addColumn('message_id', 'text', (c) => c.notNull().unique())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('debtor_iban', 'text', (c) => c.notNull())
        .addColumn('payout_count', d.int, (c) => c.notNull())
        .addColumn('control_sum', d.int, (c) => c.notNull())
        .addColumn('execution_date', 'text', (c) => c.notNull())
        .addColumn('xml', 'text', (c) => c.notNull())
        .addColumn('download_count', d.int, (c) => c.notNull())
        .addColumn('downloaded_at', 'text')
        .addColumn('cancelled_at', 'text'),
    )
    .execute();
  await db.schema.createIndex('payout_files_env_id').on('payout_files').columns(['environment_id', 'id']).execute();
  await db.schema.createIndex('payout_files_state').on('payout_files').columns(['state', 'created_at']).execute();
  await d
    .table(db, 'payout_file_items')
    .build((t) =>
      t
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('file_id', 'text', (c) => c.notNull().references('payout_files.id'))
        .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('payout_id', 'text', (c) => c.notNull())
        .addColumn('end_to_end_id', 'text', (c) => c.notNull())
        .addColumn('payment_info_id', 'text', (c) => c.notNull())
        .addColumn('amount', d.int, (c) => c.notNull())
        .addColumn('active', d.int, (c) => c.notNull()),
    )
    .execute();
  await db.schema.createIndex('payout_file_items_file').on('payout_file_items').columns(['file_id', 'id']).execute();
  await db.schema.createIndex('payout_file_items_end_to_end').on('payout_file_items').columns(['environment_id', 'end_to_end_id']).execute();
  await db.schema.createIndex('payout_file_items_one_file').on('payout_file_items').column('payout_id').unique().where(sql.ref('active'), '=', 1).execute();
}

/** What the bank sends back: statements, their unmatched lines, status reports. */
async function bankTables(db: Db, d: Def): Promise<void> {
  await d
    .table(db, 'bank_statement_reports')
    .build((t) =>
      t
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
        .addColumn('report_key', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('bank_statement_reports_key', ['environment_id', 'report_key']),
    )
    .execute();
  await d
    .table(db, 'bank_statement_lines')
    .build((t) =>
      t
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
        .addColumn('report_id', 'text', (c) => c.notNull().references('bank_statement_reports.id'))
        .addColumn('entry', d.int, (c) => c.notNull())
        .addColumn('reference', 'text')
        .addColumn('direction', 'text', (c) => c.notNull())
        .addColumn('amount', d.int, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('why', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull()),
    )
    .execute();
  await db.schema.createIndex('bank_statement_lines_env_id').on('bank_statement_lines').columns(['environment_id', 'id']).execute();
  await d
    .table(db, 'payout_status_reports')
    .build((t) =>
      t
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
        .addColumn('file_id', 'text', (c) => c.notNull().references('payout_files.id'))
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('rejected_count', d.int, (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull()),
    )
    .execute();
}

export const migration = (d: Def): Migration => ({
  async up(db) {
    await fileTables(db, d);
    await bankTables(db, d);
    if (d.engine === 'postgres') {
      await sql`alter table payout_files add constraint payout_files_state_check check (state in ('written', 'downloaded', 'booked', 'cancelled'))`.execute(db);
      await sql`alter table payout_file_items add constraint payout_file_items_kind_check check (kind in ('merchant_payout', 'transfer'))`.execute(db);
      await sql`alter table bank_statement_reports add constraint bank_statement_reports_kind_check check (kind in ('camt.053', 'camt.054'))`.execute(db);
      await sql`alter table bank_statement_lines add constraint bank_statement_lines_direction_check check (direction in ('CRDT', 'DBIT'))`.execute(db);
    }
  },
});
