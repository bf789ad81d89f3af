import { type Migration, sql } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // The spec's product has no currency: a product without one takes the currency of
    // the transaction that uses it. SQLite cannot drop a NOT NULL, so the table is
    // rebuilt there (nothing references products: lines keep their own copy).
    if (d.engine === 'postgres') {
      await db.schema.alterTable('products').alterColumn('currency', (c) => c.dropNotNull()).execute();
      return;
    }
    await d
      .table(db, 'products_new')
      .build((t) =>
        owned(t)
          .addColumn('product_id', 'text')
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('description', 'text')
          .addColumn('price', d.int, (c) => c.notNull())
          .addColumn('currency', 'text')
          .addColumn('enabled', d.int, (c) => c.notNull()),
      )
      .execute();
    await sql`insert into products_new select id, environment_id, created_at, updated_at, product_id, name, description, price, currency, enabled from products`.execute(db);
    await db.schema.dropTable('products').execute();
    await db.schema.alterTable('products_new').renameTo('products').execute();
    await db.schema.createIndex('products_env_id').on('products').columns(['environment_id', 'id']).execute();
  },
});
