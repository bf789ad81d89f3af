import type { Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // Where receipts go: personal data, kept with its object and erased with it (docs/checkout.md, "Receipts").
    await db.schema.alterTable('transactions').addColumn('customer_email', 'text').execute();
    await db.schema.alterTable('subscriptions').addColumn('customer_email', 'text').execute();
    // The trial reminder is sent once: set when the reminder job queues it.
    await db.schema.alterTable('subscriptions').addColumn('reminded_at', 'text').execute();
    // The merchant's address for customers' questions, printed on every email.
    await db.schema.alterTable('environments').addColumn('support_email', 'text').execute();
    // Emails to customers: written in the same database transaction as the change they
    // report, sent by the mail job. `id` is the change's event id (the Message-ID), so a
    // change queues one email at most and a resend after a crash carries the same id.
    await d
      .table(db, 'mails')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('subject_id', 'text', (c) => c.notNull())
          // A refund receipt's sale operation: one receipt per refund, however its event is emitted.
          .addColumn('operation_id', 'text', (c) => c.unique())
          // Erased (null) once the email is sent or given up: the row then only records that it was.
          .addColumn('recipient', 'text')
          .addColumn('content', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempt_count', d.int, (c) => c.notNull())
          .addColumn('next_attempt_at', 'text')
          .addColumn('locked_until', 'text')
          .addColumn('claimed_by', 'text')
          .addColumn('last_error', 'text')
          .addColumn('sent_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('mails_due').on('mails').columns(['status', 'next_attempt_at']).execute();
    await db.schema.createIndex('subscriptions_trial_end').on('subscriptions').columns(['status', 'trial_end']).execute();
  },
});
