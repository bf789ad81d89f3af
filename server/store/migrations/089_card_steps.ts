import { type Migration, sql } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The card steps (docs/payments.md, "Save a card on the hosted page"): a stored card
// records how its cardholder was authenticated (`authentication_status`, `_method`, as a
// sale does); a hosted save page's authorization the customer never completes ends
// `expired`, swept with lapsed challenges through `authorizations_waiting`; and a
// subscription's sign-up remembers the authorization whose challenge it waits for
// (`signup_authorization_id`), which starts the subscription once answered.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('authorizations').addColumn('authentication_status', 'text').execute();
    await db.schema.alterTable('authorizations').addColumn('authentication_method', 'text').execute();
    await db.schema.alterTable('subscriptions').addColumn('signup_authorization_id', 'text').execute();
    await sql`create index authorizations_waiting on authorizations (created_at) where status in ('pending', 'requires_action')`.execute(db);
    if (d.engine === 'postgres') {
      // Widens the check 085 set: a hosted page's authorization may expire.
      await sql`alter table authorizations drop constraint authorizations_status_check`.execute(db);
      await sql`alter table authorizations add constraint authorizations_status_check
        check (status in ('pending', 'requires_action', 'active', 'removed', 'failed', 'expired'))`.execute(db);
    }
  },
});
