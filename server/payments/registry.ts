import type { Gateway } from './gateway';
import { sandboxCard, sandboxRedirect } from './sandbox';

/** Seeded and read-only: the same gateways, in this fixed order, in every environment. */
export const GATEWAYS: readonly Gateway[] = [sandboxCard, sandboxRedirect];

export function findGateway(id: string): Gateway | undefined {
  return GATEWAYS.find((g) => g.id === id);
}

/** The enabled gateways that accept `currency`, in their fixed order. */
export function gatewaysFor(currency: string): Gateway[] {
  return GATEWAYS.filter((g) => g.enabled && (g.currencies === null || g.currencies.includes(currency)));
}
