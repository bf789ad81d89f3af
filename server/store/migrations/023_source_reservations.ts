import { type Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (): Migration => ({
  async up(db) {
    // Source payments reserve first (payments/sources.ts): the transaction is stored
    // `reserved` before its first card is charged, and ends `paid` or `failed` (with why);
    // null for every other transaction. The source-payments job finishes a reserved one
    // whose process died (its claim, processing_until, ran out).
    await db.schema.alterTable('transactions').addColumn('source_state', 'text').execute();
    await db.schema.alterTable('transactions').addColumn('source_failure', 'text').execute();
    await db.schema.createIndex('transactions_source_state').on('transactions').column('source_state').execute();
  },
});
