import { type Migration } from 'kysely';
import { type Def, owned } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
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
});
