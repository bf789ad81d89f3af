import { CompiledQuery, PostgresAdapter, PostgresDialect, type PostgresDialectConfig } from 'kysely';

// Kysely's migrator takes a session-level advisory lock on a connection of its own, then
// migrates in a transaction, then unlocks: three round trips that a transaction pooler
// (PgBouncer in transaction mode) may send over three different server connections. The
// lock then stays with a server connection nobody unlocks, and the next start waits for it
// (up to Kysely's hour). Here the lock is transaction-scoped instead: taken as the first
// statement of the migration's transaction (before the migrator reads which migrations
// have run) and released by the server at its commit or rollback, on whatever connection
// the pooler gave it. The same key as Kysely's, so a process of an older version, with its
// session lock, and a new one still exclude each other.

const LOCK_ID = '3853314791062309107';

/** The lock is taken in the transaction, not around it. */
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(): Promise<void> {}
  override async releaseMigrationLock(): Promise<void> {}
}

/** PostgreSQL for the migrator: every transaction it opens begins by taking the migration lock. */
export function migrationDialect(config: PostgresDialectConfig): PostgresDialect {
  return new (class extends PostgresDialect {
    override createAdapter() {
      return new TransactionLockAdapter();
    }
    override createDriver() {
      const driver = super.createDriver();
      const begin = driver.beginTransaction.bind(driver);
      driver.beginTransaction = async (connection, settings) => {
        await begin(connection, settings);
        await connection.executeQuery(CompiledQuery.raw(`select pg_advisory_xact_lock(${LOCK_ID})`));
      };
      return driver;
    }
  })(config);
}
