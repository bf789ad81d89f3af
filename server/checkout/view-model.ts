import type { CheckoutView, EmbedView, GatewayField, GatewayOption, Language, Receipt, ScreenStatus } from '../../widget/screen/view';
import { findCurrency } from '../domain/currencies';
import { effectiveStatus } from '../domain/transaction-status';
import type { Gateway } from '../payments/gateway';
import type { GatewaySet } from '../payments/registry';
import type { SaleRow } from '../store/schema';
import type { StoredTransaction } from '../store/transactions';

// Token → what the screen shows. Pure: the routes fetch, this shapes.

const SCREEN_STATUS: Record<string, ScreenStatus> = { N: 'pending', D: 'paid', C: 'cancelled', E: 'expired' };

export interface ViewInput {
  tx: StoredTransaction;
  gateways: GatewaySet;
  /** The environment is live: no sandbox gateway is offered. */
  live: boolean;
  merchantName: string;
  language: Language;
  csrf: string;
  now: Date;
  embed: { parentOrigin: string } | null;
  sale?: SaleRow | null;
  /** A payment of the transaction has an unknown outcome and is being checked (no other is taken). */
  checking?: boolean;
  /** This answer shows the result of the customer's own pay/cancel (see EmbedView.justFinished). */
  justFinished?: boolean;
  /** From the last POST: a message key and per-field keys, and the gateway the customer chose. */
  error?: CheckoutView['error'];
  chosenGateway?: string | null;
  declined?: boolean;
  /** The no-JS cancel's first step: ask to confirm. */
  confirmCancel?: boolean;
  /** The fields of a failed form post, as kept by `keptValues`. */
  values?: Record<string, string>;
  /** When paying is allowed again after too many declines. */
  retryAt?: string | null;
  /** return_url and cancel_url as the customer is sent to them (signed once final: checkout/returns.ts); default the transaction's. */
  urls?: { return_url: string | null; cancel_url: string | null };
}

/** Fields a failed post may show again: everything but the card number and the CVC. */
export function keptValues(fields: readonly GatewayField[], values: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (value !== undefined && field.validate !== 'card-number' && field.validate !== 'card-cvc') kept[field.name] = value;
  }
  return kept;
}

/** The shop's home page: the site of a URL the merchant gave for this payment. */
function siteOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return `${new URL(url).origin}/`;
  } catch {
    return null;
  }
}

/** The way back to the shop that leaves the payment open: cancel_url, else the site of return_url. */
export function backUrlOf(row: { cancel_url: string | null; return_url: string | null }): string | null {
  return row.cancel_url ?? siteOf(row.return_url);
}

/** What a payment asks of its gateway: its currency, a hold (`authorize`), a split (`destination`). */
type PaymentNeeds = { currency: string; authorize: boolean; destination?: readonly unknown[] | null };

/** The gateways a payment may be paid with: of its mode, for its currency, able to hold the funds when it asks to, settled by the platform when it splits. */
export const paymentGateways = (gateways: GatewaySet, row: PaymentNeeds, live: boolean) =>
  gateways.forCurrency(row.currency, live, { hold: row.authorize, split: (row.destination?.length ?? 0) > 0 });

/** The processor's fields for this payment; none when its script cannot be given the amount (its pay refuses it too). */
function hostedOption(fields: Gateway['hostedFields'], row: PaymentNeeds & { total_price: number }): Pick<GatewayOption, 'hosted'> {
  if (!fields) return {};
  const { units, ...hosted } = fields;
  const amount = units ? units(row.total_price, row.currency) : row.total_price;
  return amount === null ? {} : { hosted: { ...hosted, amount, currency: row.currency, hold: row.authorize } };
}

export function gatewayOptions(gateways: GatewaySet, row: PaymentNeeds & { total_price: number }, live: boolean): GatewayOption[] {
  return paymentGateways(gateways, row, live).map((g) => ({
    id: g.id,
    code: g.code,
    name: g.name,
    flow: g.flow,
    fields: g.fields,
    // What the processor's fields are created with: the same amount (in the processor's units), currency and capture as the payment `pay` will start.
    ...hostedOption(g.hostedFields, row),
  }));
}

function receiptOf(sale: SaleRow | null | undefined): Receipt | null {
  if (!sale) return null;
  return {
    saleId: sale.id,
    amount: sale.amount,
    brand: sale.card_brand,
    last4: sale.card_last4,
    paidAt: sale.created_at,
  };
}

export function buildView(input: ViewInput): CheckoutView {
  const { row, lines } = input.tx;
  const urls = input.urls ?? row;
  const status = SCREEN_STATUS[effectiveStatus(row.status, row.expired_at, input.now)]!;
  const gateways = gatewayOptions(input.gateways, row, input.live);
  const chosen = gateways.find((g) => g.id === input.chosenGateway)?.id;
  // In embed mode the shop is the page around the frame: no link leaves it.
  const backUrl = input.embed ? null : backUrlOf(row);
  const adjustment = (name: string | null, value: number) => (value !== 0 || name ? { name: name ?? '', value } : null);
  return {
    transactionId: row.id,
    language: input.language,
    merchantName: input.merchantName,
    orderId: row.order_id,
    currency: row.currency,
    exponent: findCurrency(row.currency)?.exponent ?? 2,
    lines: lines.map((l) => ({
      name: l.name,
      description: l.description,
      quantity: l.quantity,
      unitPrice: l.unit_price,
      lineTotal: l.line_total,
    })),
    itemsPrice: row.items_price,
    tax: adjustment(row.tax_name, row.tax_value),
    shipping: adjustment(row.shipping_name, row.shipping_value),
    coupon: adjustment(row.coupon_name, row.coupon_value),
    totalPrice: row.total_price,
    expiresAt: row.expired_at,
    serverNow: input.now.toISOString(),
    status: status === 'pending' && input.checking ? 'checking' : status === 'pending' && input.declined ? 'declined' : status,
    gateways,
    // With one method there is nothing to choose: its form shows at once.
    selectedGateway: chosen ?? (row.gateway_selected || gateways.length === 1 ? (gateways[0]?.id ?? null) : null),
    error: input.error ?? null,
    receipt: status === 'paid' ? receiptOf(input.sale) : null,
    csrf: input.csrf,
    embed: embedView(input.embed, urls, !!input.justFinished && (status === 'paid' || status === 'cancelled')),
    backUrl,
    // return_url may carry the merchant's "paid" markers: shown only once it is true.
    returnUrl: status === 'paid' && !input.embed ? (urls.return_url ?? siteOf(row.cancel_url)) : null,
    confirmCancel: !!input.confirmCancel && status === 'pending',
    values: input.values ?? {},
    retryAt: input.retryAt ?? null,
  };
}

/** The frame's part of a view (null on the hosted page); `justFinished`: see EmbedView. */
export function embedView(
  embed: { parentOrigin: string } | null,
  urls: { return_url: string | null; cancel_url: string | null },
  justFinished: boolean,
): EmbedView | null {
  return embed && { parentOrigin: embed.parentOrigin, returnUrl: urls.return_url, cancelUrl: urls.cancel_url, justFinished };
}
