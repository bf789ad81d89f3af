import { type Migration, sql } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // Several labelled key pairs per environment, looked up by public key on every API
    // request. Rolling keeps the public key and replaces the secret; the old secret's hash
    // stays valid until previous_expires_at. Secrets are stored only as SHA-256 hashes.
    await d
      .table(db, 'api_keys')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('label', 'text', (c) => c.notNull())
          .addColumn('public_key', 'text', (c) => c.notNull().unique())
          .addColumn('secret_hash', 'text', (c) => c.notNull())
          .addColumn('previous_secret_hash', 'text')
          .addColumn('previous_expires_at', 'text')
          .addColumn('revoked_at', 'text')
          .addColumn('rolled_at', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('api_keys_environment').on('api_keys').columns(['environment_id', 'id']).execute();
    // Today's pair of every environment becomes its first key, under the environment's id
    // (one pair per environment so far, so the id is unique). The environment row keeps its
    // columns as they were; authentication reads this table from now on.
    await sql`insert into api_keys (id, environment_id, label, public_key, secret_hash, created_at)
      select id, id, 'Default', public_key, secret_hash, created_at from environments`.execute(db);
  },
});
