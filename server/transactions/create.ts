import { newToken, uuidv7 } from '../domain/ids';
import { findCurrency } from '../domain/currencies';
import { MAX_UNITS, toUnits, unitsToDecimalString } from '../domain/money';
import { type Adjustment, computeTotals, PRICE_SCALE_WITHOUT_CURRENCY, QUANTITY_SCALE, rescalePrice } from '../domain/pricing';
import { toMinor, toScaled } from '../http/amounts';
import { ApiError, fieldError } from '../http/problem';
import type { Db } from '../store/db';
import { getItem } from '../store/catalogue';
import { clientEnabled } from '../store/clients';
import { getWallet } from '../store/ledger';
import { getAuthorization } from '../store/sales';
import type { AuthorizationRow, TransactionLineRow } from '../store/schema';
import { insertTransaction } from '../store/transaction-aggregate';
import type { StoredTransaction, Transaction } from '../store/transactions';

// Creating a transaction: references resolved in the caller's environment, amounts in
// minor units, totals computed once, the transaction and its lines stored together.

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** A source pays with exactly one of wallet_id and authorization_id (the API's schema checks it). */
interface SourceInput {
  amount: number;
  wallet_id?: string;
  authorization_id?: string;
}

interface DestinationInput {
  wallet_id: string;
  amount: number;
  concept?: string;
}

/** What creating a transaction takes: the API's validated body (api/transactions.ts), or the demo's own. */
export interface TransactionInput {
  order_id?: string;
  currency: string;
  note?: string;
  extra?: string;
  return_url?: string;
  cancel_url?: string;
  notify_url?: string;
  gateway_selected: boolean;
  language?: 'au' | 'es' | 'en' | 'fr';
  customer_email?: string;
  expired_date?: string;
  products: {
    amount: number;
    product_id?: string;
    product?: { product_id?: string; name: string; price: number; description?: string };
  }[];
  tax_value?: number;
  tax_name?: string;
  tax?: string;
  shipping_value?: number;
  shipping_name?: string;
  shipping?: string;
  coupon_value?: number;
  coupon_name?: string;
  coupon?: string;
  authorize: boolean;
  source?: SourceInput[] | null;
  destination?: DestinationInput[] | null;
}

interface Resolved {
  lines: (Omit<TransactionLineRow, 'id' | 'transaction_id' | 'position' | 'line_total'> & {
    scaledQuantity: bigint;
  })[];
  tax: { ref: string | null; name: string | null; adjustment: Adjustment };
  shipping: { ref: string | null; name: string | null; adjustment: Adjustment };
  coupon: { ref: string | null; name: string | null; adjustment: Adjustment };
}

function sameCurrency(cur: string, path: string, currency: string | null) {
  if (currency && currency !== cur) throw fieldError(path, `is priced in ${currency}, the transaction in ${cur}`);
}

/** A product without a currency takes the transaction's, if its price fits its minor units. */
function inCurrency(cur: string, path: string, price: number) {
  const exponent = findCurrency(cur)?.exponent ?? 2;
  const rescaled = rescalePrice(BigInt(price), exponent);
  if (rescaled === null) {
    throw fieldError(path, `has the price ${unitsToDecimalString(price, PRICE_SCALE_WITHOUT_CURRENCY)}, more decimals than ${cur} has (${exponent})`);
  }
  return Number(rescaled);
}

/** One line: a product given in the body, or one of the catalogue in the caller's environment. */
async function resolveLine(db: Db, envId: string, cur: string, line: TransactionInput['products'][number], i: number): Promise<Resolved['lines'][number]> {
  const quantity = toScaled(line.amount, QUANTITY_SCALE, `products.${i}.amount`);
  if (line.product) {
    const p = line.product;
    return {
      product_ref: null,
      product_id: p.product_id ?? null,
      name: p.name,
      description: p.description ?? null,
      unit_price: toMinor(p.price, cur, `products.${i}.product.price`),
      quantity: unitsToDecimalString(quantity, QUANTITY_SCALE),
      scaledQuantity: quantity,
    };
  }
  const path = `products.${i}.product_id`;
  const product = await getItem(db, 'products', envId, line.product_id!);
  if (!product) throw fieldError(path, 'is not a product of this environment');
  if (!product.enabled) throw fieldError(path, 'is a disabled product');
  sameCurrency(cur, path, product.currency);
  return {
    product_ref: product.id,
    product_id: product.product_id,
    name: product.name,
    description: product.description,
    unit_price: product.currency ? product.price : inCurrency(cur, path, product.price),
    quantity: unitsToDecimalString(quantity, QUANTITY_SCALE),
    scaledQuantity: quantity,
  };
}

type Referenced = { id: string; name: string; enabled: boolean; currency: string | null; adjustment: NonNullable<Adjustment> };

/**
 * A tax, shipping or coupon: a referenced one supplies name and amount; explicit *_value and
 * *_name fields win over it.
 */
async function adjustmentOf(
  body: TransactionInput,
  field: 'tax' | 'shipping' | 'coupon',
  what: string,
  load: (id: string) => Promise<Referenced | undefined>,
): Promise<Resolved['tax']> {
  const cur = body.currency;
  const value = body[`${field}_value`];
  const name = body[`${field}_name`] ?? null;
  const explicit: Adjustment = value === undefined ? null : { amount: BigInt(toMinor(value, cur, `${field}_value`)) };
  const id = body[field];
  if (!id) return { ref: null, name, adjustment: explicit };
  const ref = await load(id);
  if (!ref) throw fieldError(field, `is not a ${what} of this environment`);
  // Refused like a disabled product, even when *_value would override its amount.
  if (!ref.enabled) throw fieldError(field, `is a disabled ${what}`);
  if (!explicit) sameCurrency(cur, field, ref.currency);
  return { ref: ref.id, name: name ?? ref.name, adjustment: explicit ?? ref.adjustment };
}

/** The tax, the shipping and the coupon, each read from the catalogue when referenced. */
async function resolveAdjustments(db: Db, envId: string, body: TransactionInput): Promise<Omit<Resolved, 'lines'>> {
  const tax = await adjustmentOf(body, 'tax', 'tax', async (id) => {
    const row = await getItem(db, 'taxes', envId, id);
    return row && { id: row.id, name: row.name, enabled: row.enabled, currency: null, adjustment: { percent: BigInt(row.rate_e4) } };
  });
  const shipping = await adjustmentOf(body, 'shipping', 'shipping option', async (id) => {
    const row = await getItem(db, 'shipping', envId, id);
    return row && { id: row.id, name: row.name, enabled: row.enabled, currency: row.currency, adjustment: { amount: BigInt(row.price) } };
  });
  const coupon = await adjustmentOf(body, 'coupon', 'coupon', async (id) => {
    const row = await getItem(db, 'coupons', envId, id);
    if (!row) return undefined;
    const value = BigInt(row.value);
    return {
      id: row.id,
      name: row.name,
      enabled: row.enabled,
      currency: row.currency,
      adjustment: row.kind === 'fixed' ? { amount: value } : { percent: value },
    };
  });
  return { tax, shipping, coupon };
}

/** Looks up every referenced object in the caller's environment and converts amounts to minor units. */
async function resolve(db: Db, envId: string, body: TransactionInput): Promise<Resolved> {
  const lines = await Promise.all(body.products.map((line, i) => resolveLine(db, envId, body.currency, line, i)));
  return { lines, ...(await resolveAdjustments(db, envId, body)) };
}

function checkMovements(path: string, list: { amount: number }[] | null | undefined, currency: string, total: bigint) {
  if (!list) return;
  const sum = list.reduce((acc, m, i) => acc + BigInt(toMinor(m.amount, currency, `${path}.${i}.amount`)), 0n);
  if (sum > total) throw fieldError(path, 'amounts add up to more than total_price');
}

/** Sources add up to total_price exactly, and pay at once. */
function checkSources(body: TransactionInput, total: bigint) {
  if (!body.source?.length) return;
  const sum = body.source.reduce((acc, m, i) => acc + BigInt(toMinor(m.amount, body.currency, `source.${i}.amount`)), 0n);
  if (sum !== total) {
    const exp = findCurrency(body.currency)?.exponent ?? 2;
    const fmt = (units: bigint) => unitsToDecimalString(units, exp);
    throw fieldError('source', `amounts add up to ${fmt(sum)}, total_price is ${fmt(total)} (difference ${fmt(sum - total)})`);
  }
  if (body.authorize) throw fieldError('source', 'cannot be used with authorize: a source pays at once');
}

/**
 * A wallet of a client the merchant switched off (`enabled: false`) is moved by no request:
 * not paid into, not paid from, not paid out (409 naming the field). The platform's own
 * movements still reach it (a refund's share taken back, a receivable repaid).
 */
export async function refuseDisabledClient(db: Db, wallet: { environment_id: string; client_id: string }, path: string): Promise<void> {
  if (!(await clientEnabled(db, wallet.environment_id, wallet.client_id))) {
    throw new ApiError('conflict', `${path}: belongs to a disabled client; nothing was moved`, [{ path, message: 'belongs to a disabled client' }]);
  }
}

/** Destination wallets exist here, in the transaction currency, enabled, of an enabled client; a split is of a captured sale. */
async function checkDestinations(db: Db, envId: string, body: TransactionInput) {
  if (!body.destination?.length) return;
  if (body.authorize) throw fieldError('destination', 'cannot be used with authorize: a split is made of captured money');
  for (const [i, d] of body.destination.entries()) {
    const path = `destination.${i}.wallet_id`;
    const wallet = await getWallet(db, envId, d.wallet_id);
    if (!wallet) throw fieldError(path, 'is not a wallet of this environment');
    if (wallet.currency !== body.currency) throw fieldError(path, `is a wallet in ${wallet.currency}, the transaction is in ${body.currency}`);
    if (!wallet.enabled) throw new ApiError('conflict', `${path}: is disabled: no money moves into it`, [{ path, message: 'is disabled' }]);
    await refuseDisabledClient(db, wallet, path);
  }
}

/** A source with what it names, in minor units. */
export type ResolvedSource = { index: number; amount: number } & ({ wallet: string } | { authorization: AuthorizationRow });

/** The sources' wallets and authorizations, looked up in the environment; a 400 naming a source that does not resolve. */
export async function resolveSources(db: Db, envId: string, body: TransactionInput): Promise<ResolvedSource[]> {
  return Promise.all(
    (body.source ?? []).map(async (s, index): Promise<ResolvedSource> => {
      const amount = toMinor(s.amount, body.currency, `source.${index}.amount`);
      if (s.wallet_id !== undefined) {
        const path = `source.${index}.wallet_id`;
        const wallet = await getWallet(db, envId, s.wallet_id);
        if (!wallet) throw fieldError(path, 'is not a wallet of this environment');
        if (wallet.currency !== body.currency) throw fieldError(path, `is a wallet in ${wallet.currency}, the transaction is in ${body.currency}`);
        await refuseDisabledClient(db, wallet, path);
        return { index, amount, wallet: wallet.id };
      }
      const path = `source.${index}.authorization_id`;
      const authorization = await getAuthorization(db, envId, s.authorization_id!);
      if (!authorization || authorization.status !== 'active') throw fieldError(path, 'is not an active authorization of this environment');
      return { index, amount, authorization };
    }),
  );
}

/** The destinations as ledger shares, in minor units: of a request, or of a stored transaction. */
export function destinationShares(t: { currency: string; destination?: DestinationInput[] | null }) {
  const exp = findCurrency(t.currency)?.exponent ?? 2;
  return (t.destination ?? []).map((d) => ({ wallet: d.wallet_id, amount: toUnits(d.amount, exp) }));
}

/**
 * A transaction paid on its page needs a payment method there: with none for its currency
 * (a live environment without a real gateway that takes it), or none that can hold the
 * funds when it asks to (`authorize`), the customer would meet a Pay button that can pay
 * nothing, so it is refused; so is one that splits (`destination`) with none whose money
 * the platform settles. `offered`: how many gateways of the environment's mode accept the
 * currency, how many of those can hold, and how many can split. A transaction paid at
 * creation (`source`) needs none.
 */
export function refuseWithoutPaymentMethod(
  offered: { any: number; holding: number; splitting: number },
  body: { currency: string; authorize: boolean; destination?: readonly unknown[] | null },
): void {
  if (offered.any === 0) {
    const message = `no payment method accepts ${body.currency}: no gateway of this environment takes it`;
    throw new ApiError('conflict', `currency: ${message}. Nothing was created.`, [{ path: 'currency', message }]);
  }
  if (body.authorize && offered.holding === 0) {
    const message = `no payment method that accepts ${body.currency} can hold the funds to capture later: send it without authorize`;
    throw new ApiError('conflict', `authorize: ${message}. Nothing was created.`, [{ path: 'authorize', message }]);
  }
  // A split moves money the platform holds: a merchant's own processor account pays the merchant, not the wallets.
  if (body.destination?.length && offered.splitting === 0) {
    const message = `no payment method that accepts ${body.currency} is settled by the platform, so none can split the payment: send it without destination`;
    throw new ApiError('conflict', `destination: ${message}. Nothing was created.`, [{ path: 'destination', message }]);
  }
}

/**
 * Builds and stores the transaction. In a caller's transaction (the API's, with an
 * Idempotency-Key), its rows go to the database with that transaction's next statement:
 * nothing here reads them back, and nothing outside the database comes before it.
 */
export async function createTransaction(db: Db, envId: string, body: TransactionInput, now: Date): Promise<StoredTransaction> {
  const tx = await buildTransaction(db, envId, body, now);
  await insertTransaction(db, tx, { withNext: true });
  return tx;
}

/** The transaction as it would be stored, checked; nothing written (a source payment stores it once paid). */
export async function buildTransaction(db: Db, envId: string, body: TransactionInput, now: Date): Promise<StoredTransaction> {
  const expiredAt = body.expired_date ? new Date(body.expired_date) : new Date(now.getTime() + WEEK_MS);
  if (expiredAt.getTime() <= now.getTime()) throw fieldError('expired_date', 'must be in the future');

  const resolved = await resolve(db, envId, body);
  const totals = computeTotals({
    lines: resolved.lines.map((l) => ({
      unitPrice: BigInt(l.unit_price),
      quantity: l.scaledQuantity,
    })),
    tax: resolved.tax.adjustment,
    shipping: resolved.shipping.adjustment,
    coupon: resolved.coupon.adjustment,
  });
  // Each price and quantity is bounded, their products and sums are not: past MAX_UNITS a
  // total no longer fits the 64-bit columns (a 500) or a JSON number exactly.
  const tooLarge = totals.lineTotals.findIndex((t) => t > MAX_UNITS);
  if (tooLarge >= 0) throw fieldError(`products.${tooLarge}`, 'amount × price is too large');
  if (totals.itemsPrice > MAX_UNITS) throw fieldError('products', 'the lines add up to too large an amount');
  checkSources(body, totals.totalPrice);
  checkMovements('destination', body.destination, body.currency, totals.totalPrice);
  await checkDestinations(db, envId, body);

  const id = uuidv7(now.getTime());
  const at = now.toISOString();
  const row: Transaction = {
    id,
    environment_id: envId,
    token: newToken(),
    order_id: body.order_id ?? null,
    currency: body.currency,
    note: body.note ?? null,
    extra: body.extra ?? null,
    return_url: body.return_url ?? null,
    cancel_url: body.cancel_url ?? null,
    notify_url: body.notify_url ?? null,
    gateway_selected: body.gateway_selected ?? false,
    language: body.language ?? null,
    customer_email: body.customer_email ?? null,
    expired_at: expiredAt.toISOString(),
    authorize: body.authorize ?? false,
    tax_ref: resolved.tax.ref,
    tax_name: resolved.tax.name,
    tax_value: Number(totals.taxValue),
    shipping_ref: resolved.shipping.ref,
    shipping_name: resolved.shipping.name,
    shipping_value: Number(totals.shippingValue),
    coupon_ref: resolved.coupon.ref,
    coupon_name: resolved.coupon.name,
    coupon_value: Number(totals.couponValue),
    items_price: Number(totals.itemsPrice),
    total_price: Number(totals.totalPrice),
    // An empty source names nothing to pay from: the same as none, paid through a gateway.
    source: body.source?.length ? body.source : null,
    destination: body.destination ?? null,
    status: 'N',
    created_at: at,
    updated_at: at,
  };
  const lines = resolved.lines.map(({ scaledQuantity: _, ...l }, i) => ({
    ...l,
    id: uuidv7(now.getTime()),
    transaction_id: id,
    position: i,
    line_total: Number(totals.lineTotals[i]),
  }));
  return { row, lines };
}
