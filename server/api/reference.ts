import { z } from 'zod';
import { CURRENCIES } from '../domain/currencies';
import { uuidv5 } from '../domain/ids';
import { pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import type { Deps } from '../deps';
import type { Gateway } from '../payments/gateway';

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
    id: z.uuid(),
    code: z.string().describe('ISO 4217 alphabetic code: what `currency` fields take'),
    numeric_code: z.string(),
    name: z.string(),
    exponent: z.number().int().describe('Minor-unit digits: amounts may have at most this many decimals'),
  })
  .meta({ id: 'Currency' });

const gatewayOut = z
  .object({
    id: z.uuid(),
    code: z.string(),
    name: z.string(),
    flow: z.enum(['form', 'redirect']).describe('form: the screen collects fields; redirect: the customer continues on the provider page'),
    currencies: z.array(z.string()).nullable().describe('null: every currency'),
    enabled: z.boolean(),
    enabled_by_compliance: z.boolean(),
  })
  .meta({ id: 'Gateway' });

const presentGateway = (g: Gateway) => ({
  id: g.id,
  code: g.code,
  name: g.name,
  flow: g.flow,
  currencies: g.currencies,
  enabled: g.enabled,
  enabled_by_compliance: true,
});

function readOnly<T extends { id: string }>(opts: {
  group: string;
  tag: string;
  items: (deps: Deps) => T[];
  out: z.ZodType;
  filter?: (item: T, query: Record<string, unknown>) => boolean;
  query?: z.ZodObject;
}): RouteDef[] {
  return [
    route({
      method: 'get',
      path: `/${opts.group}/`,
      summary: `List ${opts.group === 'currency' ? 'currencies' : `${opts.group}s`}`,
      tag: opts.tag,
      query: opts.query ?? pageQuery,
      response: pageEnvelopeSchema(opts.out),
      status: 200,
      async handler({ query, req, baseUrl, deps }) {
        const { page, page_size } = query as { page: number; page_size: number };
        const all = opts.items(deps).filter((i) => opts.filter?.(i, query as Record<string, unknown>) ?? true);
        const start = (page - 1) * page_size;
        return pageEnvelope(req, baseUrl, { page, page_size }, all.length, all.slice(start, start + page_size));
      },
    }),
    route({
      method: 'get',
      path: `/${opts.group}/{id}/`,
      summary: `Get a ${opts.group}`,
      tag: opts.tag,
      response: opts.out,
      status: 200,
      async handler({ params, deps }) {
        const item = opts.items(deps).find((i) => i.id === params.id);
        if (!item) throw new ApiError('not_found', `No ${opts.group} with this id`);
        return item;
      },
    }),
  ];
}

export const referenceRoutes = (): RouteDef[] => [
  ...readOnly({
    group: 'gateway',
    tag: 'Gateway',
    items: (deps) => deps.gateways.all.map(presentGateway),
    out: gatewayOut,
  }),
  ...readOnly({
    group: 'currency',
    tag: 'Currency',
    items: () => currencyList,
    out: currencyOut,
    query: pageQuery.extend({ code: z.string().max(3).optional() }),
    filter: (c, q) => q.code === undefined || c.code === q.code,
  }),
];

