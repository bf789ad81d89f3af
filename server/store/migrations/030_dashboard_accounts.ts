import { type Migration } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // People who sign in to the dashboard. The email is stored lower-cased (one account per
    // address); password_hash is null until the invite is used.
    await d
      .table(db, 'users')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('email', 'text', (c) => c.notNull().unique())
          .addColumn('password_hash', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    // A user's role in one environment.
    await d
      .table(db, 'memberships')
      .build((t) =>
        t
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'environment_id']),
      )
      .execute();
    await db.schema.createIndex('memberships_environment').on('memberships').column('environment_id').execute();
    // One-time links to set a password; only the token's SHA-256 is kept.
    await d
      .table(db, 'invites')
      .build((t) =>
        t
          .addColumn('token_hash', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .addColumn('used_at', 'text')
          .addColumn('created_by', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    // Signed-in browsers. The cookie carries a random id; the table keeps its SHA-256, so a
    // reader of the database cannot take over a session.
    await d
      .table(db, 'dashboard_sessions')
      .build((t) =>
        t
          .addColumn('id_hash', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('csrf_token', 'text', (c) => c.notNull())
          .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('last_seen_at', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('dashboard_sessions_user').on('dashboard_sessions').column('user_id').execute();
    // Who did what, when, from where: sign-ins, failures and every dashboard action.
    await d
      .table(db, 'audit_log')
      .build((t) =>
        t
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('environment_id', 'text', (c) => c.references('environments.id'))
          .addColumn('user_id', 'text', (c) => c.references('users.id'))
          .addColumn('email', 'text')
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('detail', 'text')
          .addColumn('ip', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    await db.schema.createIndex('audit_log_environment').on('audit_log').columns(['environment_id', 'id']).execute();
    // Failed sign-ins per key (an account's email or a client IP) in a fixed window: shared
    // by every process on the database.
    await d
      .table(db, 'sign_in_failures')
      .build((t) =>
        t
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('failures', d.int, (c) => c.notNull())
          .addColumn('window_start', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
