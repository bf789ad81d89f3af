import type { Kysely, Migration } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db: Kysely<any>) {
    // How the cardholder was authenticated for a sale (3-D Secure-like): null when nobody
    // was asked, as for every sale made before this.
    await db.schema.alterTable('sales').addColumn('authentication_status', 'text').execute();
    await db.schema.alterTable('sales').addColumn('authentication_method', 'text').execute();
    // A payment the issuer wants the customer to authenticate first: open until the
    // customer answers (completed, failed) or leaves it (abandoned). The transaction stays
    // payable meanwhile; answering it claims the transaction like any payment attempt.
    await d
      .table(db, 'payment_challenges')
      .build((t) =>
        owned(t)
          .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
          .addColumn('gateway_id', 'text', (c) => c.notNull())
          .addColumn('gateway_challenge', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('payment_challenges_transaction').on('payment_challenges').columns(['transaction_id', 'state']).execute();
  },
});
