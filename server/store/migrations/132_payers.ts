import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// The dashboard's Customers page (issue 47, store/customers.ts) grouped every payment of an
// environment by its payer's email on each view: 56–65 ms in process at 10,000 payments
// (docs/performance.md, round two), over the page budget of 50. Each payer is now kept in
// a row of its own, counted as payments are made: a trigger on the insert of a
// transaction, so no writer of the service can forget it and a payment pays no extra
// round trip. Transactions are never deleted and their email never changes, so a count
// only grows. `tool`: made by the demo shop or `npm run trigger` (the order ids
// store/transactions.ts TOOL_ORDER_PREFIXES names, as they were when this was written),
// which the page leaves out unless asked. The key is the email trimmed and lower-cased
// (domain/customers.ts customerKey): on SQLite by the service's lower(), JavaScript's.
const KEY = (email: string) => sql.raw(`lower(trim(${email}))`);
const TOOL = (orderId: string) => sql.raw(`case when ${orderId} like 'demo-%' or ${orderId} like 'trigger-%' then 1 else 0 end`);
const COUNTED = (email: string) => sql.raw(`${email} is not null and trim(${email}) <> ''`);
const COLUMNS = sql.raw('environment_id, customer_key, tool, first_id, payments, last_at');
const ON_CONFLICT = sql.raw(`on conflict (environment_id, customer_key, tool) do update set
  payments = payers.payments + excluded.payments,
  first_id = case when excluded.first_id < payers.first_id then excluded.first_id else payers.first_id end,
  last_at = case when excluded.last_at > payers.last_at then excluded.last_at else payers.last_at end`);

export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'payers')
      .build((t) =>
        t
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('customer_key', 'text', (c) => c.notNull())
          .addColumn('tool', d.int, (c) => c.notNull())
          .addColumn('first_id', 'text', (c) => c.notNull())
          .addColumn('payments', d.int, (c) => c.notNull())
          .addColumn('last_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('payers_pk', ['environment_id', 'customer_key', 'tool']),
      )
      .execute();
    await sql`insert into payers (${COLUMNS})
      select environment_id, ${KEY('customer_email')}, ${TOOL('order_id')}, min(id), count(*), max(created_at)
      from transactions where ${COUNTED('customer_email')}
      group by environment_id, ${KEY('customer_email')}, ${TOOL('order_id')}`.execute(db);
    const upsert = (row: string) =>
      sql`insert into payers (${COLUMNS}) values (${sql.raw(`${row}.environment_id`)}, ${KEY(`${row}.customer_email`)}, ${TOOL(`${row}.order_id`)}, ${sql.raw(`${row}.id, 1, ${row}.created_at`)}) ${ON_CONFLICT}`;
    if (d.engine === 'postgres') {
      await sql`create function payer_counted() returns trigger language plpgsql as $$ begin
        if ${COUNTED('new.customer_email')} then ${upsert('new')}; end if;
        return null;
      end $$`.execute(db);
      await sql`create trigger transactions_payer_counted after insert on transactions for each row execute function payer_counted()`.execute(db);
    } else {
      await sql`create trigger transactions_payer_counted after insert on transactions for each row when ${COUNTED('new.customer_email')}
        begin ${upsert('new')}; end`.execute(db);
    }
  },
});
