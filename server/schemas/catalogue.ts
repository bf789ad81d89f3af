import { z } from 'zod';
import { exponentOf } from '../domain/currencies';
import { unitsToNumber } from '../domain/money';
import { PRICE_SCALE_WITHOUT_CURRENCY, RATE_SCALE } from '../domain/pricing';
import { fieldError } from '../http/problem';
import type { CatalogueFamily } from '../domain/event-types';
import type { CatalogueItem, CatalogueTable } from '../store/catalogue';
import {
  amount,
  CURRENCY_DECIMALS,
  currencyCode,
  exact,
  freeText,
  livemode,
  moneyAmount,
  name,
  objectId,
  percentage,
  text,
  timestamps,
} from './fields';
import { toMinor, toScaled } from '../http/amounts';

// The five catalogue groups share their five operations (catalogue-routes.ts); each group only says how its
// fields look and how they map to a row. PATCH merges into the current object and
// re-validates the whole, so cross-field rules hold after every change.

export type Row<T extends CatalogueTable> = CatalogueItem<T>;
type OwnFields = 'id' | 'environment_id' | 'created_at' | 'updated_at';

export interface Group<T extends CatalogueTable, C extends z.ZodObject> {
  group: string;
  table: T;
  title: string;
  /** The noun in operationIds: `listProducts`, `createProduct`, … */
  noun: { one: string; many: string };
  /** What one object is, for the document. */
  about: string;
  /** A create request and the object it makes (without id and timestamps). */
  example: { request: Record<string, unknown>; object: Record<string, unknown> };
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
/** Kept at PRICE_SCALE_WITHOUT_CURRENCY decimals, a larger price would pass 2^53 units. */
const PRICE_WITHOUT_CURRENCY_MAX = 1e11;
const enabledFilter = z.object({ enabled: z.enum(['true', 'false']).optional().describe('Only enabled (`true`) or disabled (`false`) objects') });

const product = defineGroup({
  table: 'products',
  group: 'product',
  title: 'Product',
  noun: { one: 'Product', many: 'Products' },
  about: 'A catalogue product, referenced by a transaction line through `product_id`',
  example: {
    request: { product_id: 'mug-01', name: 'Mug', description: 'Stoneware, 300 ml', price: 12, currency: 'EUR' },
    object: { product_id: 'mug-01', name: 'Mug', description: 'Stoneware, 300 ml', price: 12, currency: 'EUR', enabled: true },
  },
  fields: z.strictObject({
    product_id: text(255).nullable().default(null).describe('Your external identifier'),
    name: name.describe('Name of the product, shown on the payment screen'),
    description: freeText(2000).nullable().default(null).describe('Description of the product'),
    price: amount.describe(
      `Unit price in major units of \`currency\`, ${CURRENCY_DECIMALS}; without a currency, in those of the transaction that uses it (up to ${PRICE_SCALE_WITHOUT_CURRENCY} decimals, checked against that currency then) and at most ${PRICE_WITHOUT_CURRENCY_MAX.toLocaleString('en')}`,
    ),
    currency: currencyCode
      .nullable()
      .default(null)
      .describe('ISO 4217 code the price is in; null: the price is in the currency of each transaction that uses it'),
    enabled: z.boolean().default(true).describe('Whether new transactions may use it'),
  }),
  check: (v) => {
    if (v.currency === null && v.price > PRICE_WITHOUT_CURRENCY_MAX) {
      throw fieldError('price', `without a currency, at most ${PRICE_WITHOUT_CURRENCY_MAX.toLocaleString('en')}`);
    }
  },
  toRow: (v) => ({
    product_id: v.product_id,
    name: v.name,
    description: v.description,
    price: v.currency ? toMinor(v.price, v.currency, 'price') : Number(toScaled(v.price, PRICE_SCALE_WITHOUT_CURRENCY, 'price')),
    currency: v.currency,
    enabled: v.enabled,
  }),
  toApi: (r) => ({
    product_id: r.product_id,
    name: r.name,
    description: r.description,
    price: r.currency ? money(r.price, r.currency) : unitsToNumber(r.price, PRICE_SCALE_WITHOUT_CURRENCY),
    currency: r.currency,
    enabled: r.enabled,
  }),
  filters: enabledFilter.extend({
    product_id: exact(255).optional().describe('Only products with this `product_id`'),
    currency: exact(3).optional().describe('Only products in this currency'),
  }),
});

const plan = defineGroup({
  table: 'plans',
  group: 'plan',
  title: 'Plan',
  noun: { one: 'Plan', many: 'Plans' },
  about: 'A catalogue plan: what a subscription charges, and how often',
  example: {
    request: { plan_id: 'club', name: 'Coffee club', amount: 19.9, currency: 'EUR', interval: 'month' },
    object: { plan_id: 'club', name: 'Coffee club', description: null, amount: 19.9, currency: 'EUR', interval: 'month', interval_count: 1, trial_days: 0, enabled: true },
  },
  fields: z.strictObject({
    plan_id: text(255).nullable().default(null).describe('Your external identifier'),
    name: name.describe('Name of the plan, shown on the sign-up page'),
    description: freeText(2000).nullable().default(null).describe('Description of the plan'),
    amount: moneyAmount('Charged every period, in major units of `currency`'),
    currency: currencyCode,
    interval: z.enum(['day', 'week', 'month', 'year']).describe('Unit of the period'),
    interval_count: z.number().int().min(1).max(365).default(1).describe('Intervals per period: 3 with `month` charges every quarter'),
    trial_days: z.number().int().min(0).max(730).default(0).describe('Free days before the first charge'),
    enabled: z.boolean().default(true).describe('Whether new subscriptions may use it'),
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
  filters: enabledFilter.extend({
    plan_id: exact(255).optional().describe('Only plans with this `plan_id`'),
    currency: exact(3).optional().describe('Only plans in this currency'),
  }),
});

const tax = defineGroup({
  table: 'taxes',
  group: 'tax',
  title: 'Tax',
  noun: { one: 'Tax', many: 'Taxes' },
  about: 'A catalogue tax: a percentage of a transaction\'s items_price',
  example: { request: { name: 'VAT', rate: 21 }, object: { name: 'VAT', rate: 21, enabled: true } },
  fields: z.strictObject({
    name: name.describe('Name of the tax, shown on the payment screen'),
    rate: percentage.describe('Percentage of items_price: 21 means 21 %; up to 4 decimals'),
    enabled: z.boolean().default(true).describe('Whether new transactions may use it'),
  }),
  toRow: (v) => ({ name: v.name, rate_e4: Number(toScaled(v.rate, RATE_SCALE, 'rate')), enabled: v.enabled }),
  toApi: (r) => ({ name: r.name, rate: rate(r.rate_e4), enabled: r.enabled }),
  filters: enabledFilter,
});

const shipping = defineGroup({
  table: 'shipping',
  group: 'shipping',
  title: 'Shipping option',
  noun: { one: 'ShippingOption', many: 'ShippingOptions' },
  about: 'A catalogue shipping option: a price added to a transaction',
  example: { request: { name: 'Courier', price: 4.95, currency: 'EUR' }, object: { name: 'Courier', price: 4.95, currency: 'EUR', enabled: true } },
  fields: z.strictObject({
    name: name.describe('Name of the shipping option, shown on the payment screen'),
    price: moneyAmount('In major units of `currency`'),
    currency: currencyCode,
    enabled: z.boolean().default(true).describe('Whether new transactions may use it'),
  }),
  toRow: (v) => ({
    name: v.name,
    price: toMinor(v.price, v.currency, 'price'),
    currency: v.currency,
    enabled: v.enabled,
  }),
  toApi: (r) => ({ name: r.name, price: money(r.price, r.currency), currency: r.currency, enabled: r.enabled }),
  filters: enabledFilter.extend({ currency: exact(3).optional().describe('Only shipping options in this currency') }),
});

/** What a coupon takes off: the list's filter takes the same. */
const COUPON_KINDS = ['fixed', 'percent'] as const;

const coupon = defineGroup({
  table: 'coupons',
  group: 'coupon',
  title: 'Coupon',
  noun: { one: 'Coupon', many: 'Coupons' },
  about: 'A catalogue coupon: a fixed amount or a percentage of items_price off a transaction',
  example: {
    request: { name: 'Welcome', code: 'WELCOME10', kind: 'percent', value: 10 },
    object: { name: 'Welcome', code: 'WELCOME10', kind: 'percent', value: 10, currency: null, enabled: true },
  },
  fields: z.strictObject({
    name: name.describe('Name of the coupon, shown on the payment screen'),
    code: text(64).nullable().default(null).describe('What the customer types, if anything'),
    kind: z.enum(COUPON_KINDS).describe('`fixed`: an amount off; `percent`: a percentage of items_price off'),
    value: amount.describe(`\`fixed\`: an amount in major units of \`currency\`, ${CURRENCY_DECIMALS}; \`percent\`: a percentage of items_price, up to 4 decimals`),
    currency: currencyCode.nullable().default(null).describe('Required for `fixed`, absent for `percent`'),
    enabled: z.boolean().default(true).describe('Whether new transactions may use it'),
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
  filters: enabledFilter.extend({
    code: exact(255).optional().describe('Only the coupon with this code'),
    kind: z.enum(COUPON_KINDS).optional().describe('Only coupons of this kind: `fixed` or `percent`'),
  }),
});

export const CATALOGUE = [product, plan, tax, shipping, coupon] as Group<CatalogueTable, z.ZodObject>[];

/** Every field optional and without its default, so an absent field stays unchanged. */
export function patchOf(fields: z.ZodObject) {
  const shape = Object.fromEntries(
    Object.entries(fields.shape).map(([k, s]) => {
      const field = (s instanceof z.ZodDefault ? (s.unwrap() as z.ZodType) : (s as z.ZodType)).optional();
      // The description sits on the default it was declared on: keep it.
      const { description } = s as z.ZodType;
      return [k, description ? field.describe(description) : field];
    }),
  );
  // The refine is for the API, minProperties for the OpenAPI document (which cannot show a refine).
  return z
    .strictObject(shape)
    .meta({ minProperties: 1, description: 'The fields to change, at least one; the others stay as they are' })
    .refine((v) => Object.keys(v).length > 0, 'send at least one field to change');
}

/** How a group's objects look in answers and events: one schema and one presenter per group. */
export function viewOf<T extends CatalogueTable>(g: Group<T, z.ZodObject>) {
  return {
    table: g.table,
    output: z.object({ id: objectId, livemode, ...g.fields.shape, ...timestamps }).meta({ id: g.noun.one, description: g.about }),
    present: (row: Row<T>) => ({ id: row.id, ...g.toApi(row), created: row.created_at, updated: row.updated_at }),
  };
}

export type CatalogueView = ReturnType<typeof viewOf<CatalogueTable>>;

/** Each group's view by its event family (`product`, `plan`, …), for the outbox and the document's webhooks. */
export const CATALOGUE_VIEWS = Object.fromEntries(CATALOGUE.map((g) => [g.group, viewOf(g)])) as Record<CatalogueFamily, CatalogueView>;
