import { type Migration, sql } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A hosted save-card page stores one card, once: of two saves sent at once, one reserves
// the store and the other finds it taken (store-card.ts), and once a store has succeeded
// no other is sent, by this index rather than by reads before the insert, which two
// requests would both pass. A declined or failed store leaves room for another card.
// Both engines have partial unique indexes.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await sql`create unique index gateway_calls_one_store on gateway_calls (subject_id) where kind = 'store' and state in ('pending', 'succeeded')`.execute(db);
  },
});
