import { loadConfig } from '../server/config';
import { type Db, openDatabase } from '../server/store/db';
import { createEnvironment, type NewKeys } from '../server/store/environments';
import { migrate } from '../server/store/migrations';
import { TEST_SECRETS_KEY } from './api/harness';
import type { ProcessEnv } from './api/process';

// What a process test used `npm run keys` for when the CLI is not its subject, done as the
// CLI does it but in the test's process: a start of the CLI's bundle cost some 0.5–1 s per
// call on these machines (docs/performance-changelog.md). The CLI itself is the subject of
// process/keys-cli.test.ts, and process/pgbouncer.test.ts still runs it through the pooler.

/** The data of `env` opened as the CLI opens it: migrated, secrets sealed under the processes' SECRETS_KEY. */
export async function withShopData<T>(env: ProcessEnv, use: (db: Db) => Promise<T>): Promise<T> {
  const database = openDatabase(loadConfig({ DATA_DIR: env.DATA_DIR, DATABASE_URL: env.DATABASE_URL, SECRETS_KEY: TEST_SECRETS_KEY }));
  try {
    await migrate(database);
    return await use(database.db);
  } finally {
    await database.close();
  }
}

/** A sandbox environment and its keys, as `npm run keys -- create --name <name> --json` prints them. */
export const createShopKeys = (name: string, env: ProcessEnv): Promise<NewKeys> => withShopData(env, (db) => createEnvironment(db, { name, now: new Date() }));
