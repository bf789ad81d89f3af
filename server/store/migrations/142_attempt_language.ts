import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The language the customer paid in on the hosted page (issue 47, docs/dashboard.md "A
// payment's page"): `au`, `es`, `en` or `fr`, as the page was shown when the attempt's pay
// call was made. Null for attempts made before, and for those not made from the page.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.alterTable('payment_attempts').addColumn('language', 'text').execute();
  },
});
