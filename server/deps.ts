import type { Logger } from 'pino';
import type { Config } from './config';
import type { Gateways } from './payments/registry';
import type { Database } from './store/db';
import type { Outbox } from './store/events';

/** What the app is built from; tests pass their own clock and database. */
export interface Deps {
  config: Config;
  database: Database;
  log: Logger;
  now: () => Date;
  /** Where changes record their events, inside their own database transaction. */
  outbox: Outbox;
  /** The payment gateways, built from configuration at start; tests pass their own. */
  gateways: Gateways;
}
