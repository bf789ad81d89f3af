import { capabilitiesOf } from '../domain/gateway-capabilities';
import type { Db } from '../store/db';
import type { Gateway, GatewayOrigins } from './gateway';
import { settledByProcessor } from './settlement';

/** A set of gateways: the shared ones, or one environment's (`Gateways.of`). */
export interface GatewaySet {
  /** In their fixed order, every mode's. */
  readonly all: readonly Gateway[];
  /**
   * Any mode's: for what a stored row names (a sale, an authorization, a call, a challenge),
   * made under its own mode. A row names its gateway and the processor it acted for: that
   * processor's, even once disconnected (see `named`); a bare id, the first of that id.
   */
  find(gateway: string | NamedGateway): Gateway | undefined;
  /**
   * The enabled gateways of the mode that accept `currency`, in their fixed order (see
   * `usable`); with `hold`, only those that can hold funds (a transaction with `authorize`);
   * with `split`, only those whose money the platform settles (a transaction with
   * `destination`: settlement.ts).
   */
  forCurrency(currency: string, live: boolean, needs?: { hold?: boolean; split?: boolean }): Gateway[];
  /**
   * The gateways an environment may use: a sandbox's are the sandbox ones (test cards, no
   * real money), a live one's those that are not. Never crossed: a real processor in a
   * sandbox would take real money recorded as `livemode: false`.
   */
  usable(live: boolean): Gateway[];
}

/** What a stored row says of the gateway that made it (store/schema.ts `gateway_account`). */
export interface NamedGateway {
  gateway_id: string;
  gateway_account: string | null;
}

/**
 * One environment's processors' gateways (processor-gateways.ts): `active` are offered for
 * new payments; `all` also has those of every disconnected processor, which the rows it made
 * still name (refunds, lookups, saved cards), those of the connected one first, then the
 * disconnected ones' newest first.
 */
export type ProcessorLoader = (environmentId: string, db?: Db) => Promise<{ active: readonly Gateway[]; all: readonly Gateway[] }>;

/**
 * The gateways of this service, built once at start (service.ts) and passed in deps. As a
 * set it holds the shared ones, those every environment has (the sandbox's and
 * GATEWAY_MODULES'); `of` adds an environment's connected processors, read when asked, so
 * a processor connected, rotated or disconnected in any process counts at once.
 */
export interface Gateways extends GatewaySet {
  /** `db`: the caller's transaction, if it is in one (the processors are read on its connection, store/auth-changes.ts). */
  of(environmentId: string, db?: Db): Promise<GatewaySet>;
  /** The same gateways with a processor loader, or each gateway wrapped (metrics), or both. */
  extend(o: { processors?: ProcessorLoader; wrap?: (g: Gateway) => Gateway }): Gateways;
}

/** Whether a gateway serves an environment of this mode. */
const ofMode = (g: Gateway, live: boolean) => !g.sandbox === live;

/** The directives where a gateway may name a host's subdomains (`https://*.js.processor.example`): what its script loads, frames and asks. */
const WILDCARD_KINDS: readonly (keyof GatewayOrigins)[] = ['script', 'frame', 'connect'];
const WILDCARD = /^https:\/\/\*\.([a-z0-9.-]+)$/;

/**
 * An origin a gateway declares must be exactly one https origin: anything else could widen a
 * page's CSP beyond it. The one exception, for script, frame and connect sources: the
 * subdomains of a host the gateway also declares exactly (Stripe.js loads from
 * `https://*.js.stripe.com` beside `https://js.stripe.com`), never a bare suffix such as
 * `https://*.com`, and never where the customer is sent (redirect, form).
 */
function checkOrigins(g: Gateway): void {
  const declared = g.origins ?? {};
  const exactHosts = new Set<string>();
  const refuse = (origin: string) => new Error(`gateway ${g.code}: ${JSON.stringify(origin)} is not an https origin`);
  const wildcards: string[] = [];
  for (const [kind, origins] of Object.entries(declared) as [keyof GatewayOrigins, readonly string[]][]) {
    for (const origin of origins) {
      if (WILDCARD_KINDS.includes(kind) && WILDCARD.test(origin)) {
        wildcards.push(origin);
        continue;
      }
      let url: URL | null = null;
      try {
        url = new URL(origin);
      } catch {
        // named below
      }
      // The URL parser takes a `*` in a host, which CSP reads as a wildcard: letters, digits, dots and hyphens only.
      if (url?.protocol !== 'https:' || url.origin !== origin || !/^[a-z0-9.-]+$/.test(url.hostname)) throw refuse(origin);
      exactHosts.add(url.hostname);
    }
  }
  for (const origin of wildcards) if (!exactHosts.has(WILDCARD.exec(origin)![1]!)) throw refuse(origin);
}

/**
 * The one rule by which a row finds its gateway. Gateway ids are per processor type, not per
 * account: after a disconnect and a new connect of the same type, both accounts' gateways
 * share ids. A row made through a connected processor names it (`gateway_account`, the
 * gateway's `account`), so it reaches that account, disconnected or not, never another; a
 * row of a shared gateway, or made before migration 138, names none and reaches the first
 * of its id in `known` (the account connected now, else the one disconnected last).
 */
function named(known: readonly Gateway[], gateway: string | NamedGateway): Gateway | undefined {
  if (typeof gateway === 'string') return known.find((g) => g.id === gateway);
  const { gateway_id: id, gateway_account: account } = gateway;
  return known.find((g) => g.id === id && (account === null || g.account === account));
}

/** One gateway per id, the first met: what the set lists. */
function firstOfEachId(gateways: readonly Gateway[]): Gateway[] {
  const seen = new Set<string>();
  return gateways.filter((g) => !seen.has(g.id) && (seen.add(g.id), true));
}

/** `offered`: those new payments may use; `known`: also those only stored rows still name; `shared`: every environment's. */
function gatewaySet(offered: readonly Gateway[], known: readonly Gateway[], shared: readonly Gateway[]): GatewaySet {
  const takes = (g: Gateway, currency: string) => g.currencies === null || g.currencies.includes(currency);
  return {
    all: firstOfEachId(known),
    find: (gateway) => named(known, gateway),
    forCurrency: (currency, live, needs = {}) =>
      offered.filter(
        (g) => g.enabled && ofMode(g, live) && takes(g, currency) && (!needs.hold || capabilitiesOf(g).hold) && (!needs.split || !settledByProcessor(g, shared)),
      ),
    usable: (live) => offered.filter((g) => ofMode(g, live)),
  };
}

export function createGateways(list: readonly Gateway[], o: { processors?: ProcessorLoader; wrap?: (g: Gateway) => Gateway } = {}): Gateways {
  const ids = new Set(list.map((g) => g.id));
  if (ids.size !== list.length) throw new Error('two gateways share an id');
  list.forEach(checkOrigins);
  const wrap = o.wrap ?? ((g: Gateway) => g);
  const shared = list.map(wrap);
  const sharedSet = gatewaySet(shared, shared, shared);
  const load = o.processors;
  // A processor's gateway never shadows a shared one of the same id: stored rows keep meaning what they meant.
  const own = (gs: readonly Gateway[]) => gs.filter((g) => !ids.has(g.id)).map((g) => (checkOrigins(g), wrap(g)));
  return {
    ...sharedSet,
    async of(environmentId, db) {
      if (!load) return sharedSet;
      const { active, all } = await load(environmentId, db);
      return gatewaySet([...shared, ...own(active)], [...shared, ...own(all)], shared);
    },
    extend: (more) =>
      createGateways(list, {
        processors: more.processors ?? load,
        wrap: more.wrap ? (g) => more.wrap!(wrap(g)) : o.wrap,
      }),
  };
}
