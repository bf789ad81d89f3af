import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import type { Config } from '../config';
import type { Gateway } from './gateway';
import { createGateways, type Gateways } from './registry';
import { sandboxGateways } from './sandbox';

/**
 * What a gateway module exports (GATEWAY_MODULES): a function of GATEWAY_SETTINGS that
 * builds its adapters. This is how a real processor joins without touching the checkout.
 */
export type GatewayModule = { default: (settings: unknown) => Gateway[] | Promise<Gateway[]> };

/** The built-in sandbox gateways, then those of each configured module, in that order. */
export async function gatewaysFromConfig(config: Pick<Config, 'gatewayModules' | 'gatewaySettings'>): Promise<Gateways> {
  const extra: Gateway[] = [];
  for (const specifier of config.gatewayModules) {
    const url = specifier.startsWith('.') || specifier.startsWith('/') ? pathToFileURL(resolve(specifier)).href : specifier;
    const mod = (await import(url)) as GatewayModule;
    extra.push(...(await mod.default(config.gatewaySettings)));
  }
  return createGateways([...sandboxGateways(), ...extra]);
}
