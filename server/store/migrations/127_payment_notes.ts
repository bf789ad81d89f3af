import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A payment's notes (issue 47, docs/dashboard.md#notes): short texts a member adds to a
// payment for the team, shown on its timeline with their author. Never changed once written,
// so no updated_at; read per payment by (transaction_id, id), always with the environment.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'payment_notes')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
          .addColumn('author_user_id', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('payment_notes_transaction').on('payment_notes').columns(['transaction_id', 'id']).execute();
  },
});
