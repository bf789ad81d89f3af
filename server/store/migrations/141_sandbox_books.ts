import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The sandbox processor's own books (issue 49): what it did for each of our references, so
// a repeated call from any process answers the first answer and a lookup from any process,
// or after a restart, finds it. The processor's table, not ours: no environment (a gateway
// call does not tell the processor one), written outside our transactions. `answer` is
// what the call answered and `found` what a lookup answers, both JSON.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'sandbox_charges')
      .build((t) =>
        t
          .addColumn('reference', 'text', (c) => c.primaryKey())
          .addColumn('answer', 'text', (c) => c.notNull())
          .addColumn('found', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
