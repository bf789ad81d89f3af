import type { Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A refund's operation names the ledger movement that took its sale's split back from the
// destinations and the rest from the merchant (payments/destinations.ts). The balance job
// reads the merchant's part of the refund from that movement: recomputed from the refunds
// confirmed before it, it could round a unit apart when a refund in flight beside it was
// then refused. Earlier refunds have none and are recomputed as before.
export const migration = (): Migration => ({
  async up(db) {
    await db.schema.alterTable('sale_operations').addColumn('movement_id', 'text').execute();
  },
});
