import { type Migration, sql } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Saving a card without touching it (docs/payments.md, "Save a card on the hosted page"):
// an authorization may wait for its customer on a hosted page (`token`, the page's
// return and cancel URLs), and may wait for the issuer's challenge (`requires_action`,
// the gateway's challenge id and when it lapses). `hosted_page` says the customer gives
// the card on the page (a declined card leaves it open) rather than the merchant through
// the API (a failed challenge ends it). An environment may refuse raw card numbers in the
// API (`raw_card_numbers`, on by default).
export const migration = (d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('environments').addColumn('raw_card_numbers', d.int, (c) => c.notNull().defaultTo(1)).execute();
    await db.schema.alterTable('authorizations').addColumn('token', 'text').execute();
    await db.schema.alterTable('authorizations').addColumn('return_url', 'text').execute();
    await db.schema.alterTable('authorizations').addColumn('cancel_url', 'text').execute();
    await db.schema.alterTable('authorizations').addColumn('hosted_page', d.int, (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('authorizations').addColumn('gateway_challenge', 'text').execute();
    await db.schema.alterTable('authorizations').addColumn('challenge_expires_at', 'text').execute();
    await db.schema.createIndex('authorizations_token').on('authorizations').column('token').unique().execute();
    if (d.engine === 'postgres') {
      // Widens the check 075 added: an authorization may wait for the customer's challenge.
      await sql`alter table authorizations drop constraint authorizations_status_check`.execute(db);
      await sql`alter table authorizations add constraint authorizations_status_check
        check (status in ('pending', 'requires_action', 'active', 'removed', 'failed'))`.execute(db);
    }
  },
});
