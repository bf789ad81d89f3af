import type { Logger } from 'pino';
import type { Config } from './config';
import type { PayoutProviders } from './payments/payout-gateway';
import type { Gateways } from './payments/registry';
import type { Database } from './store/db';
import type { Outbox } from './store/events';
import type { Limiter } from './store/rate-limits';

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
  /** Send transfers to IBANs, one provider per mode (payout-gateway.ts). */
  payouts: PayoutProviders;
  /** Rate-limit buckets: in the database on PostgreSQL (shared by every process), in memory on SQLite. */
  limiter: Limiter;
}

/**
 * The deps of one request or one job round: the same parts, with its logger (bound to the
 * request id or the job round), read when a line is first written. Use cases log through
 * `deps.log`, so what they write while answering names what they were doing it for.
 */
export function scopedDeps(deps: Deps, scope: { readonly log: Logger }): Deps {
  return {
    ...deps,
    get log() {
      return scope.log;
    },
  };
}
