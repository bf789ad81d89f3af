import { type CreateTableBuilder, type Kysely, type Migration, Migrator, sql } from 'kysely';
import type { Database, Engine } from './db';

// One set of versioned migrations for both engines. The only dialect choices are here:
// 64-bit integers are `bigint` on PostgreSQL (SQLite's INTEGER is already 64-bit), and
// SQLite tables are STRICT so a wrong type is an error there too.
function dialect(engine: Engine) {
  const int = engine === 'postgres' ? 'bigint' : 'integer';
  return {
    engine,
    int: sql.raw(int),
    bytes: sql.raw(engine === 'postgres' ? 'bytea' : 'blob'),
    table<T extends string>(db: Kysely<unknown>, name: T) {
      const builder = db.schema.createTable(name);
      return {
        build(define: (t: CreateTableBuilder<T, never>) => CreateTableBuilder<T, string>) {
          const table = define(builder);
          return engine === 'sqlite' ? table.modifyEnd(sql`strict`) : table;
        },
      };
    },
  };
}

type Def = ReturnType<typeof dialect>;

function owned<T extends string>(t: CreateTableBuilder<T, never>) {
  return t
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());
}

const migrations: Record<string, (d: Def) => Migration> = {
  '001_foundation': (d) => ({
    async up(db) {
      await d
        .table(db, 'environments')
        .build((t) =>
          t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('public_key', 'text', (c) => c.notNull().unique())
            .addColumn('secret_hash', 'text', (c) => c.notNull())
            .addColumn('webhook_secret', 'text', (c) => c.notNull())
            .addColumn('allowed_origins', 'text', (c) => c.notNull().defaultTo('[]'))
            .addColumn('is_demo', d.int, (c) => c.notNull().defaultTo(0))
            .addColumn('created_at', 'text', (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'products')
        .build((t) =>
          owned(t)
            .addColumn('product_id', 'text')
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('description', 'text')
            .addColumn('price', d.int, (c) => c.notNull())
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('enabled', d.int, (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'plans')
        .build((t) =>
          owned(t)
            .addColumn('plan_id', 'text')
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('description', 'text')
            .addColumn('amount', d.int, (c) => c.notNull())
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('interval', 'text', (c) => c.notNull())
            .addColumn('interval_count', d.int, (c) => c.notNull())
            .addColumn('trial_days', d.int, (c) => c.notNull())
            .addColumn('enabled', d.int, (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'taxes')
        .build((t) =>
          owned(t)
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('rate_e4', d.int, (c) => c.notNull())
            .addColumn('enabled', d.int, (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'shipping')
        .build((t) =>
          owned(t)
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('price', d.int, (c) => c.notNull())
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('enabled', d.int, (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'coupons')
        .build((t) =>
          owned(t)
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('code', 'text')
            .addColumn('kind', 'text', (c) => c.notNull())
            .addColumn('value', d.int, (c) => c.notNull())
            .addColumn('currency', 'text')
            .addColumn('enabled', d.int, (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'transactions')
        .build((t) =>
          owned(t)
            .addColumn('token', 'text', (c) => c.notNull().unique())
            .addColumn('order_id', 'text')
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('note', 'text')
            .addColumn('extra', 'text')
            .addColumn('return_url', 'text')
            .addColumn('cancel_url', 'text')
            .addColumn('notify_url', 'text')
            .addColumn('gateway_selected', d.int, (c) => c.notNull())
            .addColumn('language', 'text')
            .addColumn('expired_at', 'text', (c) => c.notNull())
            .addColumn('authorize', d.int, (c) => c.notNull())
            .addColumn('tax_ref', 'text')
            .addColumn('tax_name', 'text')
            .addColumn('tax_value', d.int, (c) => c.notNull())
            .addColumn('shipping_ref', 'text')
            .addColumn('shipping_name', 'text')
            .addColumn('shipping_value', d.int, (c) => c.notNull())
            .addColumn('coupon_ref', 'text')
            .addColumn('coupon_name', 'text')
            .addColumn('coupon_value', d.int, (c) => c.notNull())
            .addColumn('items_price', d.int, (c) => c.notNull())
            .addColumn('total_price', d.int, (c) => c.notNull())
            .addColumn('source', 'text')
            .addColumn('destination', 'text')
            .addColumn('status', 'text', (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'transaction_lines')
        .build((t) =>
          t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
            .addColumn('position', d.int, (c) => c.notNull())
            .addColumn('product_ref', 'text')
            .addColumn('product_id', 'text')
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('description', 'text')
            .addColumn('unit_price', d.int, (c) => c.notNull())
            .addColumn('quantity', 'text', (c) => c.notNull())
            .addColumn('line_total', d.int, (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'idempotency_keys')
        .build((t) =>
          t
            .addColumn('environment_id', 'text', (c) => c.notNull())
            .addColumn('key', 'text', (c) => c.notNull())
            .addColumn('request_hash', 'text', (c) => c.notNull())
            .addColumn('state', 'text', (c) => c.notNull())
            .addColumn('status_code', d.int)
            .addColumn('response_body', 'text')
            .addColumn('created_at', 'text', (c) => c.notNull())
            .addPrimaryKeyConstraint('idempotency_keys_pk', ['environment_id', 'key']),
        )
        .execute();
      // Every list is "environment, newest first"; ids are UUIDv7, so id order is time order.
      for (const table of ['products', 'plans', 'taxes', 'shipping', 'coupons', 'transactions']) {
        await db.schema
          .createIndex(`${table}_env_id`)
          .on(table)
          .columns(['environment_id', 'id'])
          .execute();
      }
      await db.schema
        .createIndex('transaction_lines_tx')
        .on('transaction_lines')
        .columns(['transaction_id', 'position'])
        .execute();
    },
  }),
  '002_payments': (d) => ({
    async up(db) {
      // Set while one payment attempt talks to its gateway, so a second click waits its
      // turn instead of charging twice; cleared when the attempt ends.
      await db.schema.alterTable('transactions').addColumn('processing_until', 'text').execute();
      // Server-wide secrets (the checkout's CSRF key), shared by every process.
      await d
        .table(db, 'secrets')
        .build((t) =>
          t.addColumn('name', 'text', (c) => c.primaryKey()).addColumn('value', 'text', (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'authorizations')
        .build((t) =>
          owned(t)
            .addColumn('transaction_id', 'text', (c) => c.references('transactions.id'))
            .addColumn('gateway_id', 'text', (c) => c.notNull())
            .addColumn('status', 'text', (c) => c.notNull())
            .addColumn('card_brand', 'text')
            .addColumn('card_last4', 'text')
            .addColumn('card_exp_month', d.int)
            .addColumn('card_exp_year', d.int)
            .addColumn('gateway_reference', 'text', (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'sales')
        .build((t) =>
          owned(t)
            // One sale per paid transaction: the database itself refuses a second payment.
            .addColumn('transaction_id', 'text', (c) => c.unique().references('transactions.id'))
            .addColumn('authorization_id', 'text', (c) => c.references('authorizations.id'))
            .addColumn('gateway_id', 'text', (c) => c.notNull())
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('amount', d.int, (c) => c.notNull())
            .addColumn('held', d.int, (c) => c.notNull())
            .addColumn('captured', d.int, (c) => c.notNull())
            .addColumn('refunded', d.int, (c) => c.notNull())
            .addColumn('voided', d.int, (c) => c.notNull())
            .addColumn('description', 'text')
            .addColumn('card_brand', 'text')
            .addColumn('card_last4', 'text'),
        )
        .execute();
      await d
        .table(db, 'sale_operations')
        .build((t) =>
          t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('sale_id', 'text', (c) => c.notNull().references('sales.id'))
            .addColumn('kind', 'text', (c) => c.notNull())
            .addColumn('amount', d.int, (c) => c.notNull())
            .addColumn('gateway_reference', 'text')
            .addColumn('created_at', 'text', (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'payment_attempts')
        .build((t) =>
          t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
            .addColumn('gateway_id', 'text', (c) => c.notNull())
            .addColumn('outcome', 'text', (c) => c.notNull())
            .addColumn('card_brand', 'text')
            .addColumn('card_last4', 'text')
            .addColumn('created_at', 'text', (c) => c.notNull()),
        )
        .execute();
      for (const table of ['sales', 'authorizations']) {
        await db.schema
          .createIndex(`${table}_env_id`)
          .on(table)
          .columns(['environment_id', 'id'])
          .execute();
      }
      await db.schema.createIndex('sale_operations_sale').on('sale_operations').column('sale_id').execute();
      await db.schema
        .createIndex('payment_attempts_tx')
        .on('payment_attempts')
        .column('transaction_id')
        .execute();
    },
  }),
  '003_notifications': (d) => ({
    async up(db) {
      // Sales and authorizations carry the notify_url of the transaction (or request) that
      // made them, so every event finds its URL on the object that changed.
      await db.schema.alterTable('sales').addColumn('notify_url', 'text').execute();
      await db.schema.alterTable('authorizations').addColumn('notify_url', 'text').execute();
      // A charge the gateway declined is kept as a sale that moved no money.
      await db.schema.alterTable('sales').addColumn('failure', 'text').execute();
      // The outbox: written in the same database transaction as the change it reports.
      await d
        .table(db, 'events')
        .build((t) =>
          t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
            .addColumn('type', 'text', (c) => c.notNull())
            .addColumn('object_id', 'text', (c) => c.notNull())
            .addColumn('notify_url', 'text', (c) => c.notNull())
            // The exact JSON body sent on every attempt, so each retry is byte-identical.
            .addColumn('payload', 'text', (c) => c.notNull())
            .addColumn('delivery_status', 'text', (c) => c.notNull())
            .addColumn('attempt_count', d.int, (c) => c.notNull())
            .addColumn('next_attempt_at', 'text')
            // A worker's claim on the event while it posts it; expires if that worker dies.
            .addColumn('locked_until', 'text')
            .addColumn('claimed_by', 'text')
            .addColumn('delivered_at', 'text')
            .addColumn('created_at', 'text', (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'delivery_attempts')
        .build((t) =>
          t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
            .addColumn('attempt', d.int, (c) => c.notNull())
            .addColumn('result', 'text', (c) => c.notNull())
            .addColumn('status_code', d.int)
            .addColumn('error', 'text')
            .addColumn('response_body', 'text')
            .addColumn('duration_ms', d.int, (c) => c.notNull())
            .addColumn('created_at', 'text', (c) => c.notNull()),
        )
        .execute();
      await db.schema.createIndex('events_env_id').on('events').columns(['environment_id', 'id']).execute();
      await db.schema.createIndex('events_due').on('events').columns(['delivery_status', 'next_attempt_at']).execute();
      await db.schema.createIndex('delivery_attempts_event').on('delivery_attempts').columns(['event_id', 'attempt']).execute();
      await db.schema.createIndex('transactions_expiry').on('transactions').columns(['status', 'expired_at']).execute();
      await db.schema.createIndex('sales_authorization').on('sales').column('authorization_id').execute();
    },
  }),
  '004_gateway_calls': (d) => ({
    async up(db) {
      // One row per gateway call, written before the call (the reservation) and settled
      // after it: a row still pending once its claim has run out is a call whose answer
      // was lost, which the reconciliation job asks the gateway about by `reference`.
      await d
        .table(db, 'gateway_calls')
        .build((t) =>
          owned(t)
            .addColumn('reference', 'text', (c) => c.notNull().unique())
            .addColumn('gateway_id', 'text', (c) => c.notNull())
            .addColumn('kind', 'text', (c) => c.notNull())
            .addColumn('state', 'text', (c) => c.notNull())
            .addColumn('subject_id', 'text', (c) => c.notNull())
            .addColumn('amount', d.int, (c) => c.notNull())
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('request', 'text', (c) => c.notNull())
            .addColumn('claimed_until', 'text')
            .addColumn('check_at', 'text')
            .addColumn('checks', d.int, (c) => c.notNull().defaultTo(0))
            .addColumn('result_id', 'text'),
        )
        .execute();
      await db.schema.createIndex('gateway_calls_due').on('gateway_calls').columns(['state', 'check_at']).execute();
      await db.schema.createIndex('gateway_calls_subject').on('gateway_calls').columns(['subject_id', 'state']).execute();
    },
  }),
  '005_clients': (d) => ({
    async up(db) {
      await d
        .table(db, 'clients')
        .build((t) =>
          owned(t)
            .addColumn('client_id', 'text')
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('client_type', 'text')
            .addColumn('id_type', 'text')
            .addColumn('id_country', 'text', (c) => c.notNull())
            .addColumn('id_number', 'text', (c) => c.notNull())
            .addColumn('id_expiration_date', 'text')
            .addColumn('email', 'text')
            .addColumn('phone', 'text')
            .addColumn('web', 'text')
            .addColumn('incorporation_date', 'text')
            .addColumn('birth_date', 'text')
            .addColumn('birth_country', 'text')
            .addColumn('nationality', 'text')
            .addColumn('street', 'text')
            .addColumn('postal_code', 'text')
            .addColumn('city', 'text')
            .addColumn('province', 'text')
            .addColumn('country', 'text')
            .addColumn('notify_url', 'text')
            .addColumn('enabled', d.int, (c) => c.notNull())
            .addColumn('enabled_by_compliance', d.int, (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'client_ibans')
        .build((t) =>
          owned(t)
            .addColumn('client_ref', 'text', (c) => c.notNull().references('clients.id'))
            .addColumn('iban_id', 'text')
            .addColumn('iban', 'text', (c) => c.notNull())
            .addColumn('notify_url', 'text')
            .addColumn('enabled', d.int, (c) => c.notNull())
            .addColumn('enabled_by_compliance', d.int, (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'client_documents')
        .build((t) =>
          owned(t)
            .addColumn('client_ref', 'text', (c) => c.notNull().references('clients.id'))
            .addColumn('type', 'text', (c) => c.notNull())
            .addColumn('status', 'text', (c) => c.notNull())
            .addColumn('status_reason', 'text')
            .addColumn('file_name', 'text', (c) => c.notNull())
            .addColumn('content_type', 'text', (c) => c.notNull())
            .addColumn('size', d.int, (c) => c.notNull())
            .addColumn('sha256', 'text', (c) => c.notNull())
            .addColumn('reviewed_at', 'text'),
        )
        .execute();
      // The bytes apart, so listing documents never reads files.
      await d
        .table(db, 'client_document_files')
        .build((t) =>
          t
            .addColumn('document_id', 'text', (c) => c.primaryKey().references('client_documents.id'))
            .addColumn('data', d.bytes, (c) => c.notNull()),
        )
        .execute();
      // NULLs are distinct in both engines: only given external ids must be unique.
      await db.schema.createIndex('clients_env_client_id').unique().on('clients').columns(['environment_id', 'client_id']).execute();
      await db.schema.createIndex('clients_env_id').on('clients').columns(['environment_id', 'id']).execute();
      await db.schema.createIndex('client_ibans_client_iban_id').unique().on('client_ibans').columns(['client_ref', 'iban_id']).execute();
      await db.schema.createIndex('client_ibans_client').on('client_ibans').columns(['client_ref', 'id']).execute();
      await db.schema.createIndex('client_documents_client').on('client_documents').columns(['client_ref', 'id']).execute();
      await db.schema.createIndex('client_documents_pending').on('client_documents').columns(['status', 'id']).execute();
    },
  }),
  '006_subscriptions': (d) => ({
    async up(db) {
      await d
        .table(db, 'subscriptions')
        .build((t) =>
          owned(t)
            // The plan's id and its terms as they were at creation: a later PATCH or DELETE
            // of the plan never changes what an existing subscriber pays.
            .addColumn('plan_ref', 'text', (c) => c.notNull())
            .addColumn('plan_name', 'text', (c) => c.notNull())
            .addColumn('amount', d.int, (c) => c.notNull())
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('interval', 'text', (c) => c.notNull())
            .addColumn('interval_count', d.int, (c) => c.notNull())
            .addColumn('trial_days', d.int, (c) => c.notNull())
            .addColumn('client_ref', 'text')
            .addColumn('subscription_id', 'text')
            .addColumn('authorization_id', 'text', (c) => c.references('authorizations.id'))
            .addColumn('token', 'text', (c) => c.notNull().unique())
            .addColumn('notify_url', 'text')
            .addColumn('return_url', 'text')
            .addColumn('cancel_url', 'text')
            .addColumn('language', 'text')
            .addColumn('status', 'text', (c) => c.notNull())
            .addColumn('started_at', 'text')
            .addColumn('trial_end', 'text')
            // The period owed next: number `period` of the subscription's life (1, 2, …;
            // never reused), index `anchor_index` of the run that began at `anchor_at`.
            .addColumn('period', d.int, (c) => c.notNull())
            .addColumn('anchor_at', 'text')
            .addColumn('anchor_index', d.int, (c) => c.notNull())
            .addColumn('failures', d.int, (c) => c.notNull())
            .addColumn('next_charge_at', 'text')
            .addColumn('current_period_start', 'text')
            .addColumn('current_period_end', 'text')
            .addColumn('paused_at', 'text')
            .addColumn('stopped_at', 'text')
            .addColumn('stop_reason', 'text')
            // A scheduler's claim while it charges; expires if that process dies.
            .addColumn('claimed_until', 'text')
            .addColumn('claimed_by', 'text'),
        )
        .execute();
      await d
        .table(db, 'subscription_charges')
        .build((t) =>
          t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id'))
            .addColumn('period', d.int, (c) => c.notNull())
            .addColumn('period_start', 'text', (c) => c.notNull())
            .addColumn('period_end', 'text', (c) => c.notNull())
            .addColumn('amount', d.int, (c) => c.notNull())
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('status', 'text', (c) => c.notNull())
            .addColumn('attempts', d.int, (c) => c.notNull())
            .addColumn('reference', 'text', (c) => c.notNull())
            .addColumn('failure', 'text')
            .addColumn('transaction_id', 'text', (c) => c.references('transactions.id'))
            .addColumn('sale_id', 'text', (c) => c.references('sales.id'))
            .addColumn('created_at', 'text', (c) => c.notNull())
            .addColumn('updated_at', 'text', (c) => c.notNull())
            // The reservation: a second charge of one period cannot even be recorded.
            .addUniqueConstraint('subscription_charges_period', ['subscription_id', 'period']),
        )
        .execute();
      await db.schema.createIndex('subscriptions_env_id').on('subscriptions').columns(['environment_id', 'id']).execute();
      await db.schema.createIndex('subscriptions_due').on('subscriptions').columns(['status', 'next_charge_at']).execute();
    },
  }),
  '007_wallets': (d) => ({
    async up(db) {
      await d
        .table(db, 'wallets')
        .build((t) =>
          owned(t)
            .addColumn('wallet_id', 'text', (c) => c.notNull())
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id'))
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('notify_url', 'text')
            .addColumn('enabled', d.int, (c) => c.notNull())
            // The running balance and the number of entries so far, moved by one
            // conditional UPDATE per posting: the row is the lock and the floor.
            .addColumn('balance', d.int, (c) => c.notNull().check(sql`balance >= 0`))
            .addColumn('entry_count', d.int, (c) => c.notNull()),
        )
        .execute();
      await d
        .table(db, 'transfers')
        .build((t) =>
          owned(t)
            .addColumn('transfer_id', 'text')
            .addColumn('source_wallet', 'text', (c) => c.notNull().references('wallets.id'))
            .addColumn('destination_wallet', 'text', (c) => c.references('wallets.id'))
            .addColumn('destination_iban', 'text')
            .addColumn('amount', d.int, (c) => c.notNull())
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('concept', 'text')
            .addColumn('status', 'text', (c) => c.notNull())
            .addColumn('failure', 'text')
            .addColumn('notify_url', 'text')
            // A payout worker's claim while it talks to the payout gateway.
            .addColumn('locked_until', 'text'),
        )
        .execute();
      // Immutable: inserted, never updated or deleted. Wallet entries carry the wallet's
      // balance after them and their number in the wallet (seq); entries of the service's
      // own accounts (card_payments, payouts, merchant) have neither.
      await d
        .table(db, 'ledger_entries')
        .build((t) =>
          t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
            .addColumn('movement_id', 'text', (c) => c.notNull())
            .addColumn('account', 'text', (c) => c.notNull())
            .addColumn('wallet', 'text', (c) => c.references('wallets.id'))
            .addColumn('seq', d.int)
            .addColumn('currency', 'text', (c) => c.notNull())
            .addColumn('amount', d.int, (c) => c.notNull())
            .addColumn('balance', d.int)
            .addColumn('concept', 'text')
            .addColumn('with_wallet', 'text')
            .addColumn('with_sale', 'text')
            .addColumn('with_external', 'text')
            .addColumn('transfer', 'text', (c) => c.references('transfers.id'))
            .addColumn('created_at', 'text', (c) => c.notNull()),
        )
        .execute();
      await db.schema.createIndex('wallets_env_id').on('wallets').columns(['environment_id', 'id']).execute();
      await db.schema.createIndex('wallets_env_wallet_id').on('wallets').columns(['environment_id', 'wallet_id']).unique().execute();
      await db.schema.createIndex('transfers_env_id').on('transfers').columns(['environment_id', 'id']).execute();
      await db.schema.createIndex('transfers_env_transfer_id').on('transfers').columns(['environment_id', 'transfer_id']).unique().execute();
      await db.schema.createIndex('transfers_due').on('transfers').columns(['status', 'locked_until']).execute();
      await db.schema.createIndex('ledger_entries_wallet_seq').on('ledger_entries').columns(['wallet', 'seq']).unique().execute();
      await db.schema.createIndex('ledger_entries_movement').on('ledger_entries').column('movement_id').execute();
      await db.schema.createIndex('ledger_entries_sale').on('ledger_entries').column('with_sale').execute();
    },
  }),
  '008_source_charges': () => ({
    async up(db) {
      // A card charge that paid part of a transaction's `source`: its refunds take that
      // transaction's destinations' shares back (store/destinations.ts).
      await db.schema.alterTable('sales').addColumn('source_transaction_id', 'text', (c) => c.references('transactions.id')).execute();
      await db.schema.createIndex('sales_source_transaction').on('sales').column('source_transaction_id').execute();
    },
  }),
  '009_product_currency_optional': (d) => ({
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
  }),
};

/** Migrates to the latest version, or up to `to` (a migration's name: tests of an upgrade). */
export async function migrate(database: Database, to?: string): Promise<string[]> {
  const d = dialect(database.engine);
  const migrator = new Migrator({
    db: database.db,
    provider: {
      getMigrations: async () =>
        Object.fromEntries(Object.entries(migrations).map(([name, m]) => [name, m(d)])),
    },
  });
  const { error, results } = await (to ? migrator.migrateTo(to) : migrator.migrateToLatest());
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
