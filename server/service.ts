import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './app';
import type { Config } from './config';
import type { Deps } from './deps';
import { openDatabase } from './store/db';
import { migrate } from './store/migrations';

export interface Service {
  url: string;
  server: Server;
  deps: Deps;
  close(): Promise<void>;
}

/** Opens the database, migrates it and listens: what `npm start` and the tests both run. */
export async function startService(config: Config, log: Logger, now: () => Date = () => new Date()): Promise<Service> {
  const database = openDatabase(config);
  await migrate(database);
  const deps: Deps = { config, database, log, now };
  const app = createApp(deps);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return {
    url: `http://${host}:${port}`,
    server,
    deps,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await database.close();
    },
  };
}
