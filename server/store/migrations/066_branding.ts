import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // An environment's brand on its payment pages and emails (docs/checkout.md, "Brand").
    // Colours as applied (#rrggbb), after any contrast adjustment; null: the page's own.
    await db.schema.alterTable('environments').addColumn('display_name', 'text').execute();
    await db.schema.alterTable('environments').addColumn('brand_color', 'text').execute();
    await db.schema.alterTable('environments').addColumn('accent_color', 'text').execute();
    // The logo's SHA-256 names its URL, so a new logo is a new URL and the old one can be cached for ever.
    await db.schema.alterTable('environments').addColumn('logo_sha256', 'text').execute();
    await d
      .table(db, 'brand_logos')
      .build((t) =>
        t
          .addColumn('environment_id', 'text', (c) => c.primaryKey().references('environments.id'))
          .addColumn('sha256', 'text', (c) => c.notNull())
          .addColumn('content_type', 'text', (c) => c.notNull())
          .addColumn('data', d.bytes, (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
