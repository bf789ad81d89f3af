import { type Migration, sql } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // What the platform covered for a wallet that had spent its share of a refunded sale,
    // and that the wallet's next credits pay back first (docs/wallets.md). Never negative.
    await db.schema
      .alterTable('wallets')
      .addColumn('receivable', d.int, (c) => c.notNull().defaultTo(0).check(sql`receivable >= 0`))
      .execute();
  },
});
