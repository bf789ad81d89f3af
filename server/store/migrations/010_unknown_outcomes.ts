import { type Migration } from 'kysely';
import type { Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // An Idempotency-Key is bound to what its request did: the key row keeps a binding
    // (the same across a takeover), each gateway call of the request carries it with its
    // step, and completing or releasing the key checks who claimed it (`owner`).
    await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
    await db.schema.alterTable('idempotency_keys').addColumn('binding', 'text').execute();
    await db.schema.alterTable('gateway_calls').addColumn('binding', 'text').execute();
    await db.schema.alterTable('gateway_calls').addColumn('step', d.int).execute();
    // When the call's outcome became unknown (no answer): it stays pending until a lookup
    // or a notification proves it, over the settle window.
    await db.schema.alterTable('gateway_calls').addColumn('unknown_since', 'text').execute();
    await db.schema.createIndex('gateway_calls_binding').on('gateway_calls').columns(['binding', 'step']).unique().execute();
    // How many of the sale's gateway calls have an unknown outcome: its status is `pending` while any has.
    await db.schema.alterTable('sales').addColumn('pending', d.int, (c) => c.notNull().defaultTo(0)).execute();
  },
});
