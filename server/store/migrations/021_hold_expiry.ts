import { type Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (): Migration => ({
  async up(db) {
    // Holds expire (payments/hold-expiry.ts): when the hold-expiry job voided a sale's
    // uncaptured hold, and the claim a process holds on a sale while it voids it.
    await db.schema.alterTable('sales').addColumn('hold_expired_at', 'text').execute();
    await db.schema.alterTable('sales').addColumn('expiry_claimed_until', 'text').execute();
    // The job's candidates: sales still holding money, oldest first.
    await db.schema.createIndex('sales_held_created').on('sales').columns(['held', 'created_at']).execute();
  },
});
