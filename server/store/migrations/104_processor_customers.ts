import type { Migration } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Saved cards at a merchant's own processor (issue 45, Stripe's slice 5; docs/processors.md
// "Saved cards"):
// - an authorization may be saved for one of the environment's clients (`client_id`);
// - the processor's own customer object each client has at each connected processor
//   account (a Stripe Customer, `cus_…`): made once, the first time a card is saved for
//   that client there, and reused by every later one, so all of a client's cards hang on one
//   customer. One per (processor, client): the unique index is the last word when two
//   saves race.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('authorizations').addColumn('client_id', 'text', (c) => c.references('clients.id')).execute();
    await d
      .table(db, 'processor_customers')
      .build((t) =>
        owned(t)
          .addColumn('processor_id', 'text', (c) => c.notNull().references('processors.id'))
          .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id'))
          .addColumn('customer', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('processor_customers_one_per_client').on('processor_customers').columns(['processor_id', 'client_id']).unique().execute();
  },
});
