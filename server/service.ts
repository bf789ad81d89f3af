import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './app';
import type { Config } from './config';
import type { Deps } from './deps';
import { serviceJobs } from './jobs';
import { createRunner, type Runner } from './jobs/runner';
import { createOutbox } from './notify/outbox';
import { gatewaysFromConfig } from './payments/configured';
import type { Gateways } from './payments/registry';
import { openDatabase } from './store/db';
import { migrate } from './store/migrations';

export interface Service {
  url: string;
  server: Server;
  deps: Deps;
  /** The background jobs (server/jobs/); runAll() / runOnce() for tests that keep them stopped. */
  jobs: Runner;
  close(): Promise<void>;
}

export interface ServiceOptions {
  now?: () => Date;
  /** Run the jobs in this process; default: the BACKGROUND_WORK setting. */
  background?: boolean;
  /** Instead of the gateways the configuration names (tests: gateways that fail on purpose). */
  gateways?: Gateways;
}

/** Opens the database, migrates it and listens: what `npm start` and the tests both run. */
export async function startService(config: Config, log: Logger, opts: ServiceOptions = {}): Promise<Service> {
  const now = opts.now ?? (() => new Date());
  const gateways = opts.gateways ?? (await gatewaysFromConfig(config));
  const database = openDatabase(config);
  await migrate(database);
  let url = '';
  const outbox = createOutbox(() => config.publicUrl ?? url);
  const deps: Deps = { config, database, log, now, outbox, gateways };
  const app = createApp(deps);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer(app).listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  url = `http://${host}:${port}`;
  const jobs = createRunner(serviceJobs(deps), { now, log });
  if (opts.background ?? config.backgroundWork) jobs.start();
  return {
    url,
    server,
    deps,
    jobs,
    async close() {
      // Stop taking work first, finish what is under way, then the HTTP side and the database.
      await jobs.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await database.close();
    },
  };
}
