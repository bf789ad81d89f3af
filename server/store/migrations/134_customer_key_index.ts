import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The Customers page's lifetime values (issue 47, store/customers.ts valuesOf) find a
// customer's payments by the key of the email each payment gave, trimmed and lower-cased
// (domain/customers.ts customerKey). On PostgreSQL an index on that expression finds them
// at once, where the page lower-cased every distinct email of the shop on each view (9.5 ms
// at 10,000 payments, docs/performance.md). SQLite's lower() is the service's own
// (sqlite-functions.mjs), which an index may not use: there the distinct emails are keyed.
export const migration = (d: Def): Migration => ({
  async up(db) {
    if (d.engine !== 'postgres') return;
    await sql`create index transactions_env_customer_key on transactions (environment_id, (lower(trim(customer_email))))`.execute(db);
  },
});
