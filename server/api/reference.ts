import { z } from 'zod';
import { CURRENCIES } from '../domain/currencies';
import { uuidv5 } from '../domain/ids';
import { capabilitiesOf } from '../domain/gateway-capabilities';
import { TEST_CARDS, type TestCardBehaviour } from '../domain/test-cards';
import { pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { notFound } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import type { Deps } from '../deps';
import { canStore, type Gateway } from '../payments/gateway';
import { CURRENCY_EXAMPLE, GATEWAY_EXAMPLE, page } from './examples';
import { exact, objectId } from '../schemas/fields';

// Gateways and currencies: seeded, read-only, the same in every environment.

// Currency ids are name-based UUIDs of the ISO code, stable across installations.
const CURRENCY_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8'; // RFC 9562 URL namespace
const currencyList = [...CURRENCIES.values()].map((c) => ({
  id: uuidv5(`urn:iso:std:iso:4217:${c.code}`, CURRENCY_NAMESPACE),
  code: c.code,
  numeric_code: c.numeric,
  name: c.name,
  exponent: c.exponent,
}));

const currencyOut = z
  .object({
    id: objectId,
    code: z.string().describe('ISO 4217 alphabetic code: what `currency` fields take'),
    numeric_code: z.string().describe('ISO 4217 numeric code'),
    name: z.string().describe('English name of the currency'),
    exponent: z.number().int().describe('Minor-unit digits: amounts may have at most this many decimals'),
  })
  .meta({ id: 'Currency', description: 'A currency the service knows, with its exponent' });

const gatewayOut = z
  .object({
    id: objectId,
    code: z.string().describe('Short stable name of the gateway'),
    name: z.string().describe('Name shown to customers'),
    flow: z.enum(['form', 'redirect']).describe('form: the screen collects fields; redirect: the customer continues on the provider page'),
    currencies: z.array(z.string()).nullable().describe('null: every currency'),
    enabled: z.boolean().describe('Whether it is offered on the payment screen'),
    enabled_by_compliance: z.boolean().describe('Always true for the built-in gateways'),
    capabilities: z
      .object({
        hold: z.boolean().describe('Holds the funds to capture later: offered for a transaction with `authorize`'),
        partial_capture: z.boolean().describe('Captures less than it holds; false: a capture takes the whole hold'),
        repeated_capture: z
          .boolean()
          .describe('Captures a hold more than once; false: the first capture releases the rest of the hold (voided with it) and a second capture is a 409'),
        refunds: z.boolean().describe('Refunds at all'),
        partial_refunds: z.boolean().describe('Refunds less than what is refundable; false: a refund takes the whole refundable amount'),
        saved_cards: z.boolean().describe('Stores a card for later charges (`POST /authorization/`, subscriptions)'),
      })
      .describe('What it can do beyond taking a payment: the payment page offers, and the API accepts, only what the gateway can do (a 409 otherwise)'),
    test_cards: z
      .array(
        z.object({
          number: z.string().describe('A published test card number'),
          behaviour: z.enum(Object.keys(TEST_CARDS) as [TestCardBehaviour, ...TestCardBehaviour[]]).describe('What paying with it does'),
        }),
      )
      .describe("A sandbox gateway's test cards, one per outcome it can reach; empty for a gateway that moves real money"),
  })
  .meta({ id: 'Gateway', description: 'A payment gateway of the service' });

const presentGateway = (g: Gateway) => ({
  id: g.id,
  code: g.code,
  name: g.name,
  flow: g.flow,
  currencies: g.currencies,
  enabled: g.enabled,
  enabled_by_compliance: true,
  capabilities: presentCapabilities(g),
  test_cards: g.sandbox ? (g.testData?.cards ?? []) : [],
});

function presentCapabilities(g: Gateway) {
  const c = capabilitiesOf(g);
  return { hold: c.hold, partial_capture: c.partialCapture, repeated_capture: c.repeatedCapture, refunds: c.refunds, partial_refunds: c.partialRefunds, saved_cards: canStore(g) };
}

function readOnly<T extends { id: string }>(opts: {
  group: string;
  tag: string;
  noun: { one: string; many: string };
  example: unknown;
  /** What the environment can use (`live`: a live one; a sandbox has only sandbox gateways, a live one none). */
  items: (deps: Deps, env: { id: string; live: boolean }) => T[] | Promise<T[]>;
  out: z.ZodType;
  filter?: (item: T, query: Record<string, unknown>) => boolean;
  query?: z.ZodObject;
}): RouteDef[] {
  return [
    route({
      method: 'get',
      path: `/${opts.group}/`,
      operationId: `list${opts.noun.many}`,
      summary: `List ${opts.noun.many.toLowerCase()}`,
      description: `Every ${opts.group} your environment can use, in a fixed order (a sandbox has only the sandbox gateways, a live environment only those for real money).`,
      example: { response: page([opts.example]) },
      tag: opts.tag,
      query: opts.query ?? pageQuery,
      response: pageEnvelopeSchema(opts.out),
      status: 200,
      async handler({ query, req, baseUrl, deps, env }) {
        const { page, page_size } = query as { page: number; page_size: number };
        const all = (await opts.items(deps, { id: env.id, live: env.mode === 'live' })).filter((i) => opts.filter?.(i, query as Record<string, unknown>) ?? true);
        const start = (page - 1) * page_size;
        return pageEnvelope(req, baseUrl, { page, page_size }, all.length, all.slice(start, start + page_size));
      },
    }),
    route({
      method: 'get',
      path: `/${opts.group}/{id}/`,
      operationId: `get${opts.noun.one}`,
      summary: `Get a ${opts.group}`,
      description: `One ${opts.group} of the service.`,
      example: { response: opts.example },
      tag: opts.tag,
      response: opts.out,
      status: 200,
      async handler({ params, deps, env }) {
        const item = (await opts.items(deps, { id: env.id, live: env.mode === 'live' })).find((i) => i.id === params.id);
        if (!item) throw notFound(opts.group);
        return item;
      },
    }),
  ];
}

export const referenceRoutes = (): RouteDef[] => [
  ...readOnly({
    group: 'gateway',
    tag: 'Gateway',
    noun: { one: 'Gateway', many: 'Gateways' },
    example: GATEWAY_EXAMPLE,
    items: async (deps, env) => (await deps.gateways.of(env.id)).usable(env.live).map(presentGateway),
    out: gatewayOut,
  }),
  ...readOnly({
    group: 'currency',
    tag: 'Currency',
    noun: { one: 'Currency', many: 'Currencies' },
    example: CURRENCY_EXAMPLE,
    items: () => currencyList,
    out: currencyOut,
    query: pageQuery.extend({ code: exact(3).optional().describe('Only the currency with this ISO 4217 code') }),
    filter: (c, q) => q.code === undefined || c.code === q.code,
  }),
];

