import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../server/config';
import { createOutbox } from '../../server/notify/outbox';
import type { PaymentDeps } from '../../server/payments/ask';
import type { Gateway } from '../../server/payments/gateway';
import { createGateways } from '../../server/payments/registry';
import { SANDBOX_CARD_ID, sandboxGateways } from '../../server/payments/sandbox';
import { CATALOGUE_VIEWS } from '../../server/schemas/catalogue';
import { openDatabase } from '../../server/store/db';
import { createEnvironment } from '../../server/store/environments';
import { type TestClock, testClock } from '../clock';
import { freshDatabase, migratedDataDir } from '../database-template';
import { type EngineName, TEST_SECRETS_KEY } from '../test-env';

// The use-case tier's world: what a use case of server/payments/ or server/commands/ is
// given in the service (deps.ts), without HTTP. A fresh database per file (a migrated
// SQLite copy; a PostgreSQL database of its own when TEST_DATABASE_URL is set), the sandbox
// gateways (a test scripts one by spying on its methods), the test's clock and a sandbox
// environment to act in. No service is started and no route loaded: a file of the tier
// imports the use cases and the store it drives.

export interface UseCaseWorld {
  deps: PaymentDeps;
  clock: TestClock;
  environmentId: string;
  /** The sandbox card gateway, the one the world's payments go through. */
  card: Gateway;
}

/** A world for the enclosing describe block: opened before its tests, closed (and its database dropped) after. */
export function useWorld(engine: EngineName): UseCaseWorld {
  const world = {} as UseCaseWorld;
  let close = async () => {};
  beforeAll(async () => {
    const opened = await openWorld(engine);
    Object.assign(world, opened.world);
    close = opened.close;
  });
  afterAll(() => close());
  return world;
}

async function openWorld(engine: EngineName): Promise<{ world: UseCaseWorld; close(): Promise<void> }> {
  const pg = engine === 'postgres' ? await freshDatabase() : undefined;
  const dataDir = pg ? mkdtempSync(join(tmpdir(), 'checkout-usecase-')) : await migratedDataDir('checkout-usecase-');
  const config = loadConfig({
    DATA_DIR: dataDir,
    DEMO: 'false',
    LOG_LEVEL: 'silent',
    SECRETS_KEY: TEST_SECRETS_KEY,
    ...(pg ? { DATABASE_URL: pg.url } : {}),
  });
  const log = pino({ level: 'silent' });
  const database = openDatabase({ ...config, log });
  const clock = testClock();
  const gateways = createGateways(sandboxGateways());
  const outbox = createOutbox(() => 'http://usecase.test', CATALOGUE_VIEWS);
  const { environment_id: environmentId } = await createEnvironment(database.db, { name: 'Use case shop', now: clock.now() });
  return {
    world: { deps: { config, database, gateways, log, now: clock.now, outbox }, clock, environmentId, card: gateways.find(SANDBOX_CARD_ID)! },
    async close() {
      await database.close();
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
