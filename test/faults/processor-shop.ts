import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { openDatabase } from '../../server/store/db';
import { listCalls } from '../../server/store/gateway-calls';
import type { GatewayCall } from '../../server/store/gateway-calls';
import { freshDatabase } from '../api/database';
import { Client, type EngineName } from '../api/harness';
import { freePort } from '../api/pg-cluster';
import { type ProcessEnv, type ServiceProcess, startServiceProcess, testClock } from '../api/process';
import { createShopKeys } from '../shop-keys';

// A shop of the processor fault matrix: the service as a real process (jobs on, reconciliation
// at a tenth of its period) with a processor connected through `POST /v1/processor/`, on a
// fresh database of the engine, for the enclosing describe block. Its cases share it, each
// on payments of its own. A kill is SIGKILL, then the same service starts again on the same
// port: the URLs the processor was given (Stripe's webhook endpoint, Redsys's notification
// URL, the customer's return) keep pointing at it.

/** Short enough that nothing waits long, long enough for a loaded machine (the shared CI one); the claim outlives two gateway calls (config.ts). */
const GATEWAY_TIMEOUT_MS = 3_000;
export const SETTLE_WINDOW_MS = 12_000;

export interface ProcessorShop {
  api: Client;
  url: string;
  env: ProcessEnv;
  /** Every process the shop ran, killed ones included (their output is checked for secrets). */
  processes: ServiceProcess[];
  /** SIGKILL now; `meanwhile` runs while the service is down; then it starts again. */
  kill(meanwhile?: () => Promise<void>): Promise<void>;
  /** Moves the service's clock on (the processes read it on every call). */
  advance(ms: number): void;
  /** How far the service's clock has been moved on, in ms. */
  elapsed(): number;
  /**
   * Stops the service's clock where it is; the function it answers starts it again from
   * there (`elapsed` then counts the stop as time moved back), so that however long the
   * machine takes meanwhile (a restart under load), no deadline passes for the service.
   */
  holdClock(): () => void;
  /** Our gateway calls of a subject (a transaction or a sale), read from the database. */
  calls(subjectId: string): Promise<GatewayCall[]>;
  /** The card a subscription's sign-up waits for or was signed up with (its latest), read from the database. */
  signupCard(subscriptionId: string): Promise<string | null>;
}

/** A shop on `engine` for the describe block: `extraEnv` points the service at the double, `connect` connects it. */
export function useProcessorShop(engine: EngineName, setup: { env(): Record<string, string>; connect(api: Client): Promise<void> }): ProcessorShop {
  const shop = { processes: [] as ServiceProcess[] } as unknown as ProcessorShop;
  let service: ServiceProcess | null = null;
  let dropDatabase = async () => {};
  let offset = 0;
  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'checkout-processor-faults-'));
    const clock = testClock(dataDir);
    const port = await freePort();
    const env: ProcessEnv = {
      DATA_DIR: dataDir,
      ...clock.env,
      ...setup.env(),
      PORT: String(port),
      BACKGROUND_WORK: 'true',
      // The sandbox's books kept out of our database, like the double's (issue 49).
      SANDBOX_BOOKS: 'memory',
      GATEWAY_TIMEOUT_MS: String(GATEWAY_TIMEOUT_MS),
      PAYMENT_CLAIM_MS: String(2 * GATEWAY_TIMEOUT_MS),
      PAYMENT_SETTLE_WINDOW_MS: String(SETTLE_WINDOW_MS),
    };
    if (engine === 'postgres') {
      const db = await freshDatabase();
      dropDatabase = db.drop;
      env.DATABASE_URL = db.url;
    }
    const keys = await createShopKeys('Processor faults shop', env);
    service = await startServiceProcess(env);
    shop.processes.push(service);
    const database = openDatabase({ databaseUrl: env.DATABASE_URL ?? null, dataDir });
    Object.assign(shop, {
      env,
      url: service.url,
      api: new Client(service.url, keys),
      advance: (ms: number) => clock.set((offset += ms)),
      elapsed: () => offset,
      holdClock() {
        const at = Date.now() + offset;
        clock.stand(at);
        return () => clock.set((offset = at - Date.now()));
      },
      calls: (subjectId: string) => listCalls(database.db, subjectId),
      signupCard: async (id: string) =>
        (await database.db.selectFrom('subscriptions').select('signup_authorization_id').where('id', '=', id).executeTakeFirstOrThrow()).signup_authorization_id ?? null,
      async kill(meanwhile?: () => Promise<void>) {
        service!.child.kill('SIGKILL');
        expect(await service!.exited).toBe('SIGKILL');
        await meanwhile?.();
        service = await startServiceProcess(env);
        shop.processes.push(service);
        expect(service.url).toBe(shop.url);
      },
    });
    afterAllClose.push(() => database.close());
    await setup.connect(shop.api);
  });
  const afterAllClose: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await service?.stop();
    for (const close of afterAllClose) await close();
    await dropDatabase();
    if (shop.env) rmSync(shop.env.DATA_DIR, { recursive: true, force: true });
  });
  return shop;
}
