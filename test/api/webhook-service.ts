import { freshDatabase } from './database';
import { type EngineName, startTestService, type TestService } from './harness';
import { type Receiver, startReceiver } from './receiver';

/**
 * A service whose background work the test runs by hand (jobs.runAll) unless it asks for the
 * jobs to run (`background`), allowed to notify private URLs, and a webhook receiver. A
 * round takes every due row of its database, so on PostgreSQL the service gets a fresh
 * database of its own, apart from other files'.
 */
export async function startWebhookService(
  engine: EngineName,
  opts: { now?: () => Date; env?: Record<string, string>; background?: boolean } = {},
): Promise<{ t: TestService; hook: Receiver; close(): Promise<void> }> {
  const database = engine === 'postgres' ? await freshDatabase() : undefined;
  const env = { ALLOW_PRIVATE_NOTIFY_URLS: 'true', ...(database ? { DATABASE_URL: database.url } : {}), ...opts.env };
  const t = await startTestService(engine, { now: opts.now, background: opts.background ?? false, env });
  const hook = await startReceiver();
  return {
    t,
    hook,
    async close() {
      await t.close();
      await hook.close();
      await database?.drop();
    },
  };
}
