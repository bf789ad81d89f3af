import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The sandbox processor's open sessions beside its books (migration 141): a redirect's page
// and an issuer's challenge, so the step after the one that opened them (the customer's
// return, the answer to the challenge) may land on any process. Keyed by the processor's own
// id (`sbx_session_…`, `chl_…`); `state` is JSON: a redirect's return URL, or a challenge's
// reference, card summary (brand, last 4, expiry: never the number or the CVC) and whether
// the issuer then declines. The processor's table, not ours: written outside our transactions.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'sandbox_sessions')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
