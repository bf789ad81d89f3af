import type { Gateway } from './gateway';

/** The gateways of this service, built once at start (service.ts) and passed in deps. */
export interface Gateways {
  /** In their fixed order, the same in every environment. */
  readonly all: readonly Gateway[];
  find(id: string): Gateway | undefined;
  /** The enabled gateways that accept `currency`, in their fixed order; in a live environment not the sandbox ones. */
  forCurrency(currency: string, live: boolean): Gateway[];
  /** The gateways an environment may use: all of them in a sandbox, in a live one those that are not sandboxes. */
  usable(live: boolean): Gateway[];
}

export function createGateways(list: readonly Gateway[]): Gateways {
  const ids = new Set(list.map((g) => g.id));
  if (ids.size !== list.length) throw new Error('two gateways share an id');
  return {
    all: list,
    find: (id) => list.find((g) => g.id === id),
    forCurrency: (currency, live) =>
      list.filter((g) => g.enabled && !(live && g.sandbox) && (g.currencies === null || g.currencies.includes(currency))),
    usable: (live) => list.filter((g) => !(live && g.sandbox)),
  };
}
