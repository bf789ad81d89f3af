import { type Migration } from 'kysely';
import { type Def } from './dialect';

// Released: never rename this file or change what it does (deployed databases record its name).
export const migration = (d: Def): Migration => ({
  async up(db) {
    // A dashboard user's authenticator (TOTP, RFC 6238): the shared secret (base32; the
    // server must read it to check codes), confirmed once the user has typed a first code,
    // and the last time step used, so a code is good once.
    await d
      .table(db, 'user_totp')
      .build((t) =>
        t
          .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
          .addColumn('secret', 'text', (c) => c.notNull())
          .addColumn('confirmed_at', 'text')
          .addColumn('last_step', d.int, (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
    // Single-use codes for a lost authenticator; only their SHA-256 is kept.
    await d
      .table(db, 'totp_recovery_codes')
      .build((t) =>
        t
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('code_hash', 'text', (c) => c.notNull())
          .addColumn('used_at', 'text')
          .addPrimaryKeyConstraint('totp_recovery_codes_pk', ['user_id', 'code_hash']),
      )
      .execute();
    // A sign-in whose password was right, waiting for the code: the cookie carries a random
    // id, the table its SHA-256.
    await d
      .table(db, 'sign_in_challenges')
      .build((t) =>
        t
          .addColumn('id_hash', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
          .addColumn('expires_at', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull()),
      )
      .execute();
  },
});
