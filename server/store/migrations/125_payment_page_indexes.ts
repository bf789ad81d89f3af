import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
//
// A payment's page (issue 47) reads the emails of the payment and of its sales (its
// receipt, sent and resent, and refund receipts) and the disputes of its sales, for its
// summary and timeline: by these indexes rather than by reading every email or dispute.
export const migration = (_d: Def): Migration => ({
  async up(db) {
    await db.schema.createIndex('mails_subject').on('mails').columns(['subject_id', 'kind']).execute();
    await db.schema.createIndex('disputes_sale').on('disputes').column('sale_id').execute();
  },
});
