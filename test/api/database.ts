import { freshDatabase } from '../database-template';
import { type EngineName, startTestService, type TestService } from './harness';

export { freshDatabase } from '../database-template';

/**
 * A test service on a database of its own (a fresh PostgreSQL database; SQLite's is always
 * its own), dropped on close: for tests whose jobs take every due row they find.
 */
export async function startIsolatedService(engine: EngineName, opts: Parameters<typeof startTestService>[1] = {}): Promise<TestService> {
  const database = engine === 'postgres' ? await freshDatabase() : undefined;
  const t = await startTestService(engine, { ...opts, env: { ...opts.env, ...(database ? { DATABASE_URL: database.url } : {}) } });
  return {
    ...t,
    async close() {
      await t.close();
      await database?.drop();
    },
  };
}
