import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './app';
import type { Config } from './config';
import type { Deps } from './deps';
import { createOutbox } from './notify/outbox';
import { type Background, createBackground } from './notify/worker';
import { openDatabase } from './store/db';
import { migrate } from './store/migrations';

export interface Service {
  url: string;
  server: Server;
  deps: Deps;
  /** Webhook delivery and the expiry sweep; runOnce() for tests that stop the timers. */
  background: Background;
  close(): Promise<void>;
}

/** Opens the database, migrates it and listens: what `npm start` and the tests both run. */
export async function startService(
  config: Config,
  log: Logger,
  now: () => Date = () => new Date(),
  opts: { background?: boolean } = {},
): Promise<Service> {
  const database = openDatabase(config);
  await migrate(database);
  let url = '';
  const outbox = createOutbox(() => config.publicUrl ?? url);
  const deps: Deps = { config, database, log, now, outbox };
  const app = createApp(deps);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer(app).listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  url = `http://${host}:${port}`;
  const background = createBackground({
    db: database.db,
    outbox,
    now,
    log,
    allowPrivateNotifyUrls: config.allowPrivateNotifyUrls,
  });
  if (opts.background ?? config.backgroundWork) background.start();
  return {
    url,
    server,
    deps,
    background,
    async close() {
      await background.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await database.close();
    },
  };
}
