// What every tier's services and use-case worlds are configured with.

/**
 * SECRETS_KEY of every service and CLI the API tests start: stored secrets are sealed, as
 * in production. One key for all, since test files share the PostgreSQL database.
 */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export type EngineName = 'sqlite' | 'postgres';

/** SQLite always, PostgreSQL whenever TEST_DATABASE_URL is set. */
export const EVERY_ENGINE: readonly EngineName[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/**
 * The engines this run's suites take each test through: EVERY_ENGINE, or those of it that
 * TEST_ENGINES names. npm test runs the use-case and API tiers once per engine, each run with
 * its own (vitest.config.ts), so that neither registers the other's tests.
 */
export const ENGINES: readonly EngineName[] = EVERY_ENGINE.filter((engine) => process.env.TEST_ENGINES?.split(',').includes(engine) ?? true);
