import { z } from 'zod';
import { unitsToNumber } from '../domain/money';
import { RATE_SCALE } from '../domain/pricing';
import { pageQuery, pageEnvelope, pageEnvelopeSchema } from '../http/pagination';
import { ApiError, fieldError, invalid } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import {
  type CatalogueItem,
  type CatalogueTable,
  deleteItem,
  getItem,
  insertItem,
  listItems,
  updateItem,
} from '../store/catalogue';
import {
  amount,
  currencyCode,
  exponentOf,
  name,
  percentage,
  text,
  timestamps,
  toMinor,
  toScaled,
} from './fields';

// The five catalogue groups share their five operations; each group only says how its
// fields look and how they map to a row. PATCH merges into the current object and
// re-validates the whole, so cross-field rules hold after every change.

type Row<T extends CatalogueTable> = CatalogueItem<T>;
type OwnFields = 'id' | 'environment_id' | 'created_at' | 'updated_at';

interface Group<T extends CatalogueTable, C extends z.ZodObject> {
  group: string;
  table: T;
  title: string;
  fields: C;
  /** Rules across fields, on the merged object; throw fieldError. */
  check?(value: z.output<C>): void;
  toRow(value: z.output<C>): Omit<Row<T>, OwnFields>;
  toApi(row: Row<T>): z.output<C>;
  filters: z.ZodObject;
}

/** Infers the field types from `fields`, so the mappers are checked against the schema. */
function defineGroup<T extends CatalogueTable, C extends z.ZodObject>(g: Group<T, C>): Group<T, C> {
  return g;
}

const rate = (units: number) => unitsToNumber(units, RATE_SCALE);
const money = (units: number, currency: string) => unitsToNumber(units, exponentOf(currency));
const enabledFilter = z.object({ enabled: z.enum(['true', 'false']).optional() });

const product = defineGroup({
  table: 'products',
  group: 'product',
  title: 'Product',
  fields: z.strictObject({
    product_id: text(255).nullable().default(null).describe('Your external identifier'),
    name,
    description: text(2000).nullable().default(null),
    price: amount.describe('Unit price in major units of `currency`'),
    currency: currencyCode,
    enabled: z.boolean().default(true),
  }),
  toRow: (v) => ({
    product_id: v.product_id,
    name: v.name,
    description: v.description,
    price: toMinor(v.price, v.currency, 'price'),
    currency: v.currency,
    enabled: v.enabled,
  }),
  toApi: (r) => ({
    product_id: r.product_id,
    name: r.name,
    description: r.description,
    price: money(r.price, r.currency),
    currency: r.currency,
    enabled: r.enabled,
  }),
  filters: enabledFilter.extend({ product_id: z.string().optional(), currency: z.string().optional() }),
});

const plan = defineGroup({
  table: 'plans',
  group: 'plan',
  title: 'Plan',
  fields: z.strictObject({
    plan_id: text(255).nullable().default(null).describe('Your external identifier'),
    name,
    description: text(2000).nullable().default(null),
    amount: amount.describe('Charged every period, in major units of `currency`'),
    currency: currencyCode,
    interval: z.enum(['day', 'week', 'month', 'year']),
    interval_count: z.number().int().min(1).max(365).default(1),
    trial_days: z.number().int().min(0).max(730).default(0),
    enabled: z.boolean().default(true),
  }),
  toRow: (v) => ({
    plan_id: v.plan_id,
    name: v.name,
    description: v.description,
    amount: toMinor(v.amount, v.currency, 'amount'),
    currency: v.currency,
    interval: v.interval,
    interval_count: v.interval_count,
    trial_days: v.trial_days,
    enabled: v.enabled,
  }),
  toApi: (r) => ({
    plan_id: r.plan_id,
    name: r.name,
    description: r.description,
    amount: money(r.amount, r.currency),
    currency: r.currency,
    interval: r.interval,
    interval_count: r.interval_count,
    trial_days: r.trial_days,
    enabled: r.enabled,
  }),
  filters: enabledFilter.extend({ plan_id: z.string().optional(), currency: z.string().optional() }),
});

const tax = defineGroup({
  table: 'taxes',
  group: 'tax',
  title: 'Tax',
  fields: z.strictObject({
    name,
    rate: percentage.describe('Percentage of items_price: 21 means 21 %; up to 4 decimals'),
    enabled: z.boolean().default(true),
  }),
  toRow: (v) => ({ name: v.name, rate_e4: Number(toScaled(v.rate, RATE_SCALE, 'rate')), enabled: v.enabled }),
  toApi: (r) => ({ name: r.name, rate: rate(r.rate_e4), enabled: r.enabled }),
  filters: enabledFilter,
});

const shipping = defineGroup({
  table: 'shipping',
  group: 'shipping',
  title: 'Shipping option',
  fields: z.strictObject({
    name,
    price: amount.describe('In major units of `currency`'),
    currency: currencyCode,
    enabled: z.boolean().default(true),
  }),
  toRow: (v) => ({
    name: v.name,
    price: toMinor(v.price, v.currency, 'price'),
    currency: v.currency,
    enabled: v.enabled,
  }),
  toApi: (r) => ({ name: r.name, price: money(r.price, r.currency), currency: r.currency, enabled: r.enabled }),
  filters: enabledFilter.extend({ currency: z.string().optional() }),
});

const coupon = defineGroup({
  table: 'coupons',
  group: 'coupon',
  title: 'Coupon',
  fields: z.strictObject({
    name,
    code: text(64).nullable().default(null).describe('What the customer types, if anything'),
    kind: z.enum(['fixed', 'percent']),
    value: amount.describe('`fixed`: an amount in major units of `currency`; `percent`: a percentage of items_price'),
    currency: currencyCode.nullable().default(null).describe('Required for `fixed`, absent for `percent`'),
    enabled: z.boolean().default(true),
  }),
  check: (v) => {
    if (v.kind === 'fixed' && !v.currency) throw fieldError('currency', 'is required for a fixed coupon');
    if (v.kind === 'percent' && v.currency) throw fieldError('currency', 'must be null for a percent coupon');
    if (v.kind === 'percent' && v.value > 100) throw fieldError('value', 'must be at most 100 (percent)');
  },
  toRow: (v) => ({
    name: v.name,
    code: v.code,
    kind: v.kind,
    value:
      v.kind === 'fixed'
        ? toMinor(v.value, v.currency!, 'value')
        : Number(toScaled(v.value, RATE_SCALE, 'value')),
    currency: v.currency,
    enabled: v.enabled,
  }),
  toApi: (r) => ({
    name: r.name,
    code: r.code,
    kind: r.kind,
    value: r.kind === 'fixed' ? money(r.value, r.currency!) : rate(r.value),
    currency: r.currency,
    enabled: r.enabled,
  }),
  filters: enabledFilter.extend({ code: z.string().optional(), kind: z.string().optional() }),
});

export const CATALOGUE = [product, plan, tax, shipping, coupon] as Group<CatalogueTable, z.ZodObject>[];

/** Every field optional and without its default, so an absent field stays unchanged. */
export function patchOf(fields: z.ZodObject) {
  const shape = Object.fromEntries(
    Object.entries(fields.shape).map(([k, s]) => [
      k,
      (s instanceof z.ZodDefault ? (s.unwrap() as z.ZodType) : (s as z.ZodType)).optional(),
    ]),
  );
  // The refine is for the API, minProperties for the OpenAPI document (which cannot show a refine).
  return z
    .strictObject(shape)
    .meta({ minProperties: 1 })
    .refine((v) => Object.keys(v).length > 0, 'send at least one field to change');
}

function groupRoutes<T extends CatalogueTable>(g: Group<T, z.ZodObject>): RouteDef[] {
  const output = z.object({ id: z.uuid(), ...g.fields.shape, ...timestamps }).meta({
    id: g.title.replace(/(?:^|\s)(\w)/g, (_, c: string) => c.toUpperCase()),
  });
  const present = (row: Row<T>) => ({
    id: row.id,
    ...g.toApi(row),
    created: row.created_at,
    updated: row.updated_at,
  });
  const build = (value: z.output<typeof g.fields>) => {
    g.check?.(value);
    return g.toRow(value);
  };
  const base = `/${g.group}/`;
  const item = `/${g.group}/{id}/`;
  const tag = g.title;
  const notFound = () => new ApiError('not_found', `No ${g.group} with this id`);
  return [
    route({
      method: 'get',
      path: base,
      summary: `List ${g.group}s, newest first`,
      tag,
      query: pageQuery.extend(g.filters.shape),
      response: pageEnvelopeSchema(output),
      status: 200,
      async handler({ env, query, req, baseUrl, db }) {
        const { page, page_size, ...filters } = query as { page: number; page_size: number } & Record<string, string>;
        const where = Object.fromEntries(
          Object.entries(filters)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, k === 'enabled' ? v === 'true' : v]),
        );
        const { count, rows } = await listItems(db, g.table, env.id, where, { page, page_size });
        return pageEnvelope(req, baseUrl, { page, page_size }, count, rows.map(present));
      },
    }),
    route({
      method: 'post',
      path: base,
      summary: `Create a ${g.group}`,
      tag,
      body: g.fields,
      response: output,
      status: 201,
      async handler({ env, body, deps, db }) {
        const row = await insertItem(db, g.table, env.id, build(body), deps.now());
        return present(row);
      },
    }),
    route({
      method: 'get',
      path: item,
      summary: `Get a ${g.group}`,
      tag,
      response: output,
      status: 200,
      async handler({ env, params, db }) {
        const row = await getItem(db, g.table, env.id, params.id!);
        if (!row) throw notFound();
        return present(row);
      },
    }),
    route({
      method: 'patch',
      path: item,
      summary: `Change fields of a ${g.group}`,
      tag,
      body: patchOf(g.fields),
      response: output,
      status: 200,
      async handler({ env, params, body, deps, db }) {
        const row = await getItem(db, g.table, env.id, params.id!);
        if (!row) throw notFound();
        const merged = g.fields.safeParse({ ...g.toApi(row), ...body });
        if (!merged.success) throw invalid(merged.error);
        const updated = await updateItem(db, g.table, env.id, params.id!, build(merged.data), deps.now());
        if (!updated) throw notFound();
        return present(updated);
      },
    }),
    route({
      method: 'delete',
      path: item,
      summary: `Delete a ${g.group}; transactions keep their copy of its name and price`,
      tag,
      status: 204,
      async handler({ env, params, db }) {
        if (!(await deleteItem(db, g.table, env.id, params.id!))) throw notFound();
      },
    }),
  ];
}

export const catalogueRoutes = (): RouteDef[] => CATALOGUE.flatMap(groupRoutes);
