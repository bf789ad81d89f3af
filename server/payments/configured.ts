import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { Config } from '../config';
import type { Db } from '../store/db';
import type { Gateway } from './gateway';
import { createGateways, type Gateways } from './registry';
import { type PayoutGateway, sepaFilePayouts } from './payout-gateway';
import { sandboxGateways } from './sandbox';
import { databaseBooks, memoryBooks } from './sandbox-books';
import { databaseSessions, memorySessions } from './sandbox-sessions';
import { withLatency } from './sandbox-latency';

/**
 * What a gateway module exports (GATEWAY_MODULES): a function of GATEWAY_SETTINGS that
 * builds its adapters. This is how a real processor joins without touching the checkout.
 */
export type GatewayModule = { default: (settings: unknown) => Gateway[] | Promise<Gateway[]> };

const moduleUrl = (specifier: string) => (specifier.startsWith('.') || specifier.startsWith('/') ? pathToFileURL(resolve(specifier)).href : specifier);

/**
 * The payout provider of live environments: SEPA files (PAYOUT_PROVIDER=sepa-file), or
 * PAYOUT_MODULE's (its default export, given GATEWAY_SETTINGS); null without either (the
 * configuration refuses both at once).
 */
export async function payoutsFromConfig(config: Pick<Config, 'payoutModule' | 'gatewaySettings' | 'sepa'>): Promise<PayoutGateway | null> {
  if (config.sepa) return sepaFilePayouts(config.sepa);
  if (!config.payoutModule) return null;
  const mod = (await import(moduleUrl(config.payoutModule))) as { default: (settings: unknown) => PayoutGateway | Promise<PayoutGateway> };
  return mod.default(config.gatewaySettings);
}

/**
 * The built-in sandbox gateways, their books and sessions where SANDBOX_BOOKS says (on
 * `store`'s database by default), then those of each configured module, in that order.
 */
export async function gatewaysFromConfig(
  config: Pick<Config, 'gatewayModules' | 'gatewaySettings' | 'sandboxLatencyMs' | 'sandboxBooks'>,
  store: { db: Db; now: () => Date },
): Promise<Gateways> {
  const extra: Gateway[] = [];
  for (const specifier of config.gatewayModules) {
    const mod = (await import(moduleUrl(specifier))) as GatewayModule;
    extra.push(...(await mod.default(config.gatewaySettings)));
  }
  const shared = config.sandboxBooks === 'database';
  const books = shared ? databaseBooks(store.db, store.now) : memoryBooks();
  const sessions = shared ? databaseSessions(store.db, store.now) : memorySessions();
  return createGateways([...sandboxGateways(books, sessions).map((g) => withLatency(g, config.sandboxLatencyMs)), ...extra]);
}
