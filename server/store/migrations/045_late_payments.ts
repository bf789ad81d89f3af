import { type Migration } from 'kysely';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (): Migration => ({
  async up(db) {
    // A payment the gateway made after its transaction had moved on (paid by another
    // attempt, cancelled, expired): recorded as a sale of its own, not the transaction's
    // (one sale per paid transaction), naming the transaction it was for, and reversed
    // at the gateway (payments/pay.ts).
    await db.schema.alterTable('sales').addColumn('late_for_transaction_id', 'text').execute();
    await db.schema.createIndex('sales_late_for_transaction').on('sales').column('late_for_transaction_id').execute();
  },
});
