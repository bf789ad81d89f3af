// What every tier's services and use-case worlds are configured with.

/**
 * SECRETS_KEY of every service and CLI the API tests start: stored secrets are sealed, as
 * in production. One key for all, since test files share the PostgreSQL database.
 */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export const ENGINES = [
  'sqlite',
  ...(process.env.TEST_DATABASE_URL ? ['postgres'] : []),
] as const;
export type EngineName = (typeof ENGINES)[number];
