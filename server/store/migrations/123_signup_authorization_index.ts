import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A sign-up's card saved on the processor's page (issues 45 and 46): the processor's
// notification, which alone saves a Redsys card, names the authorization, and finds by it
// the sign-up that waits for it (`signup_authorization_id`, 089) to start the subscription.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await sql`create index subscriptions_signup_authorization on subscriptions (signup_authorization_id) where signup_authorization_id is not null`.execute(db);
  },
});
