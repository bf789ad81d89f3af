import { type Migration, sql } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'wallets')
      .build((t) =>
        owned(t)
          .addColumn('wallet_id', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id'))
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('notify_url', 'text')
          .addColumn('enabled', d.int, (c) => c.notNull())
          // The running balance and the number of entries so far, moved by one
          // conditional UPDATE per posting: the row is the lock and the floor.
          .addColumn('balance', d.int, (c) => c.notNull().check(sql`balance >= 0`))
          .addColumn('entry_count', d.int, (c) => c.notNull()),
      )
      .execute();
    await d
      .table(db, 'transfers')
      .build((t) =>
        owned(t)
          .addColumn('transfer_id', 'text')
          .addColumn('source_wallet', 'text', (c) => c.notNull().references('wallets.id'))
          .addColumn('destination_wallet', 'text', (c) => c.references('wallets.id'))
          .addColumn('destination_iban', 'text')
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('concept', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('failure', 'text')
          .addColumn('notify_url', 'text')
          // A payout worker's claim while it talks to the payout gateway.
          .addColumn('locked_until', 'text'),
      )
      .execute();
    // Immutable: inserted, never updated or deleted. Wallet entries carry the wallet's
    // balance after them and their number in the wallet (seq); entries of the service's
    // own accounts (card_payments, payouts, merchant) have neither.
    await d
      .table(db, 'ledger_entries')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('movement_id', 'text', (c) => c.notNull())
          .addColumn('account', 'text', (c) => c.notNull())
          .addColumn('wallet', 'text', (c) => c.references('wallets.id'))
          .addColumn('seq', d.int)
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('amount', d.int, (c) => c.notNull())
          .addColumn('balance', d.int)
          .addColumn('concept', 'text')
          .addColumn('with_wallet', 'text')
          .addColumn('with_sale', 'text')
          .addColumn('with_external', 'text')
          .addColumn('transfer', 'text', (c) => c.references('transfers.id'))
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('wallets_env_id').on('wallets').columns(['environment_id', 'id']).execute();
    await db.schema.createIndex('wallets_env_wallet_id').on('wallets').columns(['environment_id', 'wallet_id']).unique().execute();
    await db.schema.createIndex('transfers_env_id').on('transfers').columns(['environment_id', 'id']).execute();
    await db.schema.createIndex('transfers_env_transfer_id').on('transfers').columns(['environment_id', 'transfer_id']).unique().execute();
    await db.schema.createIndex('transfers_due').on('transfers').columns(['status', 'locked_until']).execute();
    await db.schema.createIndex('ledger_entries_wallet_seq').on('ledger_entries').columns(['wallet', 'seq']).unique().execute();
    await db.schema.createIndex('ledger_entries_movement').on('ledger_entries').column('movement_id').execute();
    await db.schema.createIndex('ledger_entries_sale').on('ledger_entries').column('with_sale').execute();
  },
});
