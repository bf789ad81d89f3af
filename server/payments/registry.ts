import { capabilitiesOf } from '../domain/gateway-capabilities';
import type { Gateway } from './gateway';

/** The gateways of this service, built once at start (service.ts) and passed in deps. */
export interface Gateways {
  /** In their fixed order, every mode's. */
  readonly all: readonly Gateway[];
  /** Any mode's: for what a stored row names (a sale, an authorization, a call), made under its own mode. */
  find(id: string): Gateway | undefined;
  /**
   * The enabled gateways of the mode that accept `currency`, in their fixed order (see
   * `usable`); with `hold`, only those that can hold funds (a transaction with `authorize`).
   */
  forCurrency(currency: string, live: boolean, needs?: { hold?: boolean }): Gateway[];
  /**
   * The gateways an environment may use: a sandbox's are the sandbox ones (test cards, no
   * real money), a live one's those that are not. Never crossed: a real processor in a
   * sandbox would take real money recorded as `livemode: false`.
   */
  usable(live: boolean): Gateway[];
}

/** Whether a gateway serves an environment of this mode. */
const ofMode = (g: Gateway, live: boolean) => !g.sandbox === live;

/** An origin a gateway declares must be exactly one https origin: anything else could widen a page's CSP beyond it. */
function checkOrigins(g: Gateway): void {
  for (const origin of Object.values(g.origins ?? {}).flat()) {
    let url: URL | null = null;
    try {
      url = new URL(origin);
    } catch {
      // named below
    }
    // The URL parser takes a `*` in a host, which CSP reads as a wildcard: letters, digits, dots and hyphens only.
    if (url?.protocol !== 'https:' || url.origin !== origin || !/^[a-z0-9.-]+$/.test(url.hostname)) {
      throw new Error(`gateway ${g.code}: ${JSON.stringify(origin)} is not an https origin`);
    }
  }
}

export function createGateways(list: readonly Gateway[]): Gateways {
  const ids = new Set(list.map((g) => g.id));
  if (ids.size !== list.length) throw new Error('two gateways share an id');
  list.forEach(checkOrigins);
  return {
    all: list,
    find: (id) => list.find((g) => g.id === id),
    forCurrency: (currency, live, needs = {}) =>
      list.filter((g) => g.enabled && ofMode(g, live) && (g.currencies === null || g.currencies.includes(currency)) && (!needs.hold || capabilitiesOf(g).hold)),
    usable: (live) => list.filter((g) => ofMode(g, live)),
  };
}
