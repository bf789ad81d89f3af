import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Gateway ids are per processor type, not per account: after a processor is disconnected and
// another account of its type connected in the same environment, a row made through the first
// one named the same gateway as the second, and its refund, lookup, dispute or saved card
// reached the wrong account (docs/processors.md "Rows of a disconnected account"). Each row
// that later needs its gateway now names the processor (processors.id) whose gateway made it:
// null for a gateway every environment shares (the sandbox's, GATEWAY_MODULES') and for the
// rows made before, which keep resolving by gateway id alone.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    for (const table of ['gateway_calls', 'sales', 'authorizations', 'payment_challenges']) {
      await db.schema.alterTable(table).addColumn('gateway_account', 'text').execute();
    }
  },
});
