import { type Migration, sql } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// Processors a merchant connects per environment (issue 45; docs/processors.md): their own
// Stripe account today. The credentials (secret key, webhook signing secret, publishable
// key) are one JSON text, sealed at rest like every other secret the service reads back
// (store/sealed-secrets.ts); only the secret key's last four digits are kept in the clear,
// to show which key is connected. `version` moves on at every change, so a process that
// built a processor's gateways knows when to build them again. A deleted processor keeps
// its row and credentials (`deleted_at` set): the refunds, lookups and disputes of the
// payments it took still need them. One processor of a type per environment that is not
// deleted: the partial unique index is the last word, under any concurrency.
export const migration = (d: Def): Migration => ({
  async up(db) {
    await d
      .table(db, 'processors')
      .build((t) =>
        owned(t)
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('credentials', 'text', (c) => c.notNull())
          .addColumn('secret_key_last4', 'text', (c) => c.notNull())
          .addColumn('statement_descriptor', 'text')
          .addColumn('version', d.int, (c) => c.notNull())
          .addColumn('deleted_at', 'text'),
      )
      .execute();
    // The environment's processors, deleted ones included, newest first: the list and the
    // gateway loader's one query.
    await db.schema.createIndex('processors_env_id').on('processors').columns(['environment_id', 'id']).execute();
    await db.schema
      .createIndex('processors_one_per_type')
      .on('processors')
      .columns(['environment_id', 'type'])
      .unique()
      .where(sql.ref('deleted_at'), 'is', null)
      .execute();
    if (d.engine === 'postgres') await sql`alter table processors add constraint processors_type_check check (type in ('stripe'))`.execute(db);
  },
});
